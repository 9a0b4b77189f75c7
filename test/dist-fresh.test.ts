/**
 * A clone runs its dist/ while it is fresh, its sources once one changed (bin/dist-fresh.mjs): on a
 * folder laid out as a clone, with the files' times set.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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
/** A clone built at time 1000: its sources older, its build's stamp and entry at 1000. */
const clone = () => {
  root = testTemp('a2a-dist-fresh-');
  for (const f of [
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/build.mjs',
    'harness/cli/main.ts',
    'scenarios/a.scenario.ts',
    'reports/html/report.tsx',
  ])
    at(f, 900);
  at('dist/harness/cli/main.js', 1000);
  at('dist/.built', 1000);
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

  it('a newer file that is not a source of the build changes nothing (an example client, a dependency folder, a README)', () => {
    clone();
    at('clients/examples/python/client.py', 2000);
    at('clients/examples/python/.venv/lib/x.ts', 2000);
    at('harness/node_modules/x/index.ts', 2000);
    at('scenarios/README.md', 2000);
    expect(fresh(root)).toBe(true);
  });
});
