/**
 * A clone runs its dist/ while it is fresh, its sources once one changed (bin/dist-fresh.mjs): on a
 * folder laid out as a clone, with the files' times set.
 */
import { mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript beside the bin, with no declarations.
import { distIsFresh } from '../bin/dist-fresh.mjs';
import { testTemp } from './helpers/tmp.js';

const fresh = distIsFresh as (root: string) => boolean;
let root = '';
const at = (path: string, seconds: number) => {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '');
  utimesSync(file, seconds, seconds);
};
const SOURCES = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'harness/cli/main.ts',
  'scenarios/a.scenario.ts',
  'reports/html/report.tsx',
];
/** Sets the source folders' own times (writing a file in a folder moves its time to now). */
const dated = (seconds: number, more: string[] = []) => {
  const folders = new Set(
    [...SOURCES, ...more].flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  for (const d of folders) utimesSync(join(root, d), seconds, seconds);
};
/** A clone built at time 1000: its sources and their folders older, its build's stamp and entry at 1000. */
const clone = () => {
  root = testTemp('a2a-dist-fresh-');
  for (const f of SOURCES) at(f, 900);
  at('dist/harness/cli/main.js', 1000);
  at('dist/.built', 1000);
  dated(900);
};
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('bin/dist-fresh.mjs', () => {
  it('fresh: every source older than the build', () => {
    clone();
    expect(fresh(root)).toBe(true);
  });

  it.each(['harness/cli/main.ts', 'scenarios/a.scenario.ts', 'reports/html/report.tsx', 'peers/new-file.ts', 'package.json', 'scripts/build.mjs'])(
    'stale once %s changed after the build',
    (path) => {
      clone();
      at(path, 1001);
      expect(fresh(root)).toBe(false);
    },
  );

  it('stale without a stamp (a build that failed half-way) or without the CLI', () => {
    clone();
    rmSync(join(root, 'dist/.built'));
    expect(fresh(root)).toBe(false);
    clone();
    rmSync(join(root, 'dist/harness/cli/main.js'));
    expect(fresh(root)).toBe(false);
  });

  it('stale once a source file is removed, or one keeping an older time is moved in', () => {
    clone();
    rmSync(join(root, 'scenarios/a.scenario.ts'));
    expect(fresh(root)).toBe(false);
    clone();
    at('elsewhere/b.scenario.ts', 800);
    renameSync(join(root, 'elsewhere/b.scenario.ts'), join(root, 'scenarios/b.scenario.ts'));
    expect(fresh(root)).toBe(false);
  });

  it('a newer file that is not a source of the build changes nothing (an example client, a dependency folder)', () => {
    clone();
    const others = ['clients/examples/python/client.py', 'clients/examples/python/.venv/lib/x.ts', 'harness/node_modules/x/index.ts'];
    for (const f of others) at(f, 2000);
    // Their folders as they stood before (a file written in one moves its time).
    dated(900, others);
    expect(fresh(root)).toBe(true);
  });
});
