/**
 * The boundaries of DESIGN.md §1 and docs/architecture.md, checked on the import graph of the sources:
 * clients see only the wire (never the oracle, the rules or the peers); peers never import clients;
 * core is pure (no `node:` imports, nothing outside core); every import runs down the floors of
 * scripts/floors.ts (docs/architecture.md's table); no files import each other in a circle; no source file is over 450 lines.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { FLOORS } from '../scripts/floors.js';
import { ROOT } from './helpers/cli.js';

interface Edge {
  from: string;
  spec: string;
  /** Resolved path relative to the root, for relative imports. */
  to?: string;
}

/** The source file an import names (`x.js` is `x.ts` or `x.tsx`, as TypeScript resolves it). */
const sourceOf = (path: string) => {
  const base = path.replace(/\.js$/, '');
  return ['.ts', '.tsx'].map((x) => base + x).find((f) => existsSync(join(ROOT, f))) ?? path.replace(/\.js$/, '.ts');
};

async function importsOf(pattern: string): Promise<Edge[]> {
  const files = await glob([pattern], { cwd: ROOT, ignore: ['**/node_modules/**', '**/*.test.ts'] });
  const edges: Edge[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(re)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      const to = spec.startsWith('.') ? sourceOf(relative(ROOT, resolve(dirname(join(ROOT, f)), spec))) : undefined;
      edges.push({ from: f, spec, ...(to ? { to } : {}) });
    }
  }
  return edges;
}

describe('module boundaries (DESIGN.md §1)', () => {
  const VOCABULARY = 'harness/core/protocol/';
  const forbiddenForClients = (edges: Edge[]) =>
    edges.filter((e) => e.to && ((e.to.startsWith('harness/') && !e.to.startsWith(VOCABULARY)) || e.to.startsWith('peers/') || e.to.startsWith('scenarios/')));

  it("clients/** import nothing of the harness but core's protocol folder: never the oracle, the rules, the runner or the peers", async () => {
    const edges = await importsOf('clients/**/*.ts');
    expect(edges.length).toBeGreaterThan(10);
    expect(forbiddenForClients(edges)).toEqual([]);
  });

  it('the boundary check itself catches a forbidden import', async () => {
    // Guard against a check that cannot fail: the same filter, fed the oracle's own imports, finds the oracle's parts.
    const edges = [...(await importsOf('harness/core/oracle/index.ts')), ...(await importsOf('harness/runner/engine/*.ts'))];
    const caught = forbiddenForClients(edges).map((e) => e.to);
    expect(caught.some((t) => t?.startsWith('harness/core/oracle/'))).toBe(true);
    expect(caught).toContain('harness/core/oracle/index.ts');
  });

  it("core's protocol folder stands alone: it imports nothing outside itself", async () => {
    const edges = await importsOf(`${VOCABULARY}**/*.ts`);
    expect(edges.filter((e) => e.to && !e.to.startsWith(VOCABULARY))).toEqual([]);
  });

  it('peers/** never import clients; of the harness only core, and a binding folder (its transport) the listeners and the PKI', async () => {
    const edges = await importsOf('peers/**/*.ts');
    expect(edges.filter((e) => e.to?.startsWith('clients/'))).toEqual([]);
    // A binding whose requests need listeners of its own brings its transport in its folder (gRPC's host.ts): it
    // records as the host's listeners do (harness/net) and serves the run's certificates (harness/pki). Nothing else does.
    const transportFile = (from: string) => /^peers\/wires\/[^/]+\//.test(from) || from === 'peers/wires/index.ts';
    const allowed = (e: { from: string; to: string }) =>
      e.to.startsWith('harness/core/') || (transportFile(e.from) && (e.to.startsWith('harness/net/') || e.to.startsWith('harness/pki/')));
    expect(edges.filter((e) => e.to?.startsWith('harness/') && !allowed(e as { from: string; to: string }))).toEqual([]);
    expect(edges.some((e) => e.to?.startsWith('harness/net/'))).toBe(true);
  });

  it('harness/core is pure: no node: imports, nothing outside core', async () => {
    const edges = await importsOf('harness/core/**/*.ts');
    expect(edges.filter((e) => e.spec.startsWith('node:'))).toEqual([]);
    expect(edges.filter((e) => e.to && !e.to.startsWith('harness/core/'))).toEqual([]);
  });
});

/**
 * The floors of docs/architecture.md, lowest first: a file may import its own area, an area on a
 * lower floor, or one on its own floor. The first
 * prefix that matches names a file's area.
 */
const PLACES = FLOORS.flatMap((rooms, floor) => rooms.map(({ area, path: prefix }) => ({ area, prefix, floor })))
  // Longest prefix first: harness/core/oracle/ before harness/core/, peers/runtime/ before peers/.
  .sort((a, b) => b.prefix.length - a.prefix.length);
const placeOf = (file: string) => PLACES.find((p) => file.startsWith(p.prefix));

/** Imports that run up a floor (or into an area no floor names). */
const upward = (edges: Edge[]) =>
  edges.filter((e) => {
    // The bench measures the built package (dist/), which stands on no floor of the sources.
    if (!e.to || e.to.startsWith('dist/')) return false;
    const [a, b] = [placeOf(e.from), placeOf(e.to)];
    if (!a || !b) return true;
    return a.area !== b.area && b.floor > a.floor;
  });

/** Files that import each other in a loop (strongly connected components of more than one file). */
function circles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) if (e.to && e.to !== e.from) next.set(e.from, (next.get(e.from) ?? new Set()).add(e.to));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string) => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        on.delete(w);
        c.push(w);
        if (w === v) break;
      }
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

const SOURCES = [
  'harness/**/*.{ts,tsx}',
  'peers/**/*.ts',
  'clients/**/*.ts',
  'reports/**/*.{ts,tsx}',
  'scenarios/**/*.ts',
  'scripts/**/*.ts',
  'bench/**/*.{ts,mjs}',
];

describe('the floors and the rooms (docs/architecture.md)', () => {
  it('every import runs down a floor, or stays in its area', async () => {
    const edges = (await Promise.all(SOURCES.map(importsOf))).flat();
    expect(edges.filter((e) => e.to).length).toBeGreaterThan(500);
    // Every source file has a place on a floor.
    expect([...new Set(edges.map((e) => e.from))].filter((f) => !placeOf(f))).toEqual([]);
    expect(upward(edges).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('no files import each other in a circle (type imports included)', async () => {
    const edges = (await Promise.all(SOURCES.map(importsOf))).flat();
    expect(circles(edges)).toEqual([]);
  });

  it('the checks can fail: an import up a floor and a circle of two files are caught', () => {
    const up = [{ from: 'harness/core/verdict.ts', spec: '../runner/engine/run.js', to: 'harness/runner/engine/run.ts' }];
    expect(upward(up)).toEqual(up);
    expect(upward([{ from: 'harness/runner/engine/run.ts', spec: 'x', to: 'harness/core/verdict.ts' }])).toEqual([]);
    const loop = [
      { from: 'a.ts', spec: './b.js', to: 'b.ts' },
      { from: 'b.ts', spec: './c.js', to: 'c.ts' },
      { from: 'c.ts', spec: './a.js', to: 'a.ts' },
    ];
    expect(circles(loop)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(circles(loop.slice(0, 2))).toEqual([]);
  });

  it('no source file under harness/, peers/, clients/ or reports/ is over 450 lines', async () => {
    const files = await glob(['harness/**/*.{ts,tsx}', 'peers/**/*.ts', 'clients/**/*.ts', 'reports/**/*.{ts,tsx}'], { cwd: ROOT });
    expect(files.length).toBeGreaterThan(100);
    const long = files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length] as const).filter(([, n]) => n > 450);
    expect(long).toEqual([]);
  });
});

describe('the test tiers hold what they say (vitest.config.ts, docs/architecture.md "The tests")', () => {
  /** What only the system tier may do: start the CLI (in this process or as a child), a whole run or sweep, a browser, read dist/. */
  const SYSTEM_ONLY =
    /runCli\(|startCli\(|startCliIn\(|runMain\(|mainRun\(|cliRun\(|\bcli\(|(?<!\.)\bexec\(|execSync\(|runInProcess\([^,()]*\)|runConformance\(|runProperties\(|mutationCheck\(|exportCheck\(|\.\.\/dist\/|ROOT, 'dist'|chromium|spawn\(|spawnSync\(|execFile|fork\(|new Worker\(/;
  /** What the unit tier may not do besides: open a listener, mount a peer, start a harness. */
  const LISTENS = /startHarness\(|peerFixture\(|sharedPeer\(|PeerHost\.start\(|createServer\(|openEnv\(|\.listen\(/;

  /**
   * The test helpers that start the CLI or a sweep: importing one is doing it (./helpers/cli.js gives ROOT too, which any tier
   * may read; ./helpers/results.js runs the scenarios it is named in this process, the whole catalogue when named none).
   */
  const SYSTEM_HELPERS =
    /from '\.\.?\/(?:\.\.\/)?helpers\/(?:main|property-mutants)\.js'|import \{[^}]*\b(?:cli|cliRun|intoReport|resultsValidator)\b[^}]*\} from '\.\.?\/(?:\.\.\/)?helpers\/cli\.js'/;

  it('every test file is in one tier; the unit tier opens no listener, the integration tier starts no CLI, run, sweep, browser or dist/', async () => {
    const { UNIT, INTEGRATION } = await import('../vitest.config.js');
    const all = await glob(['test/**/*.test.ts'], { cwd: ROOT, ignore: ['**/node_modules/**'] });
    for (const f of [...UNIT, ...INTEGRATION]) expect(all, f).toContain(f);
    expect(UNIT.filter((f) => INTEGRATION.includes(f))).toEqual([]);
    const text = (f: string) => readFileSync(join(ROOT, f), 'utf8');
    // This file names the patterns it looks for; dist-fresh.test.ts makes a dist/ of its own in a temp folder.
    const own = ['test/architecture.test.ts', 'test/dist-fresh.test.ts'];
    expect(UNIT.filter((f) => !own.includes(f) && (SYSTEM_ONLY.test(text(f)) || LISTENS.test(text(f))))).toEqual([]);
    expect(INTEGRATION.filter((f) => SYSTEM_ONLY.test(text(f)) || SYSTEM_HELPERS.test(text(f)))).toEqual([]);
    // The check can fail: a system test's text, and a test that runs the CLI through a helper, are caught.
    expect(SYSTEM_ONLY.test(text('test/cli.test.ts'))).toBe(true);
    expect(SYSTEM_HELPERS.test(text('test/bindings-grading.test.ts'))).toBe(true);
    expect(INTEGRATION.length).toBeGreaterThan(20);
  });
});
