/**
 * The boundaries of DESIGN.md §1, checked on the import graph of the sources:
 * clients see only the wire (never the oracle, the rules or the peers); peers never import clients;
 * core is pure (no `node:` imports, nothing outside core).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

interface Edge {
  from: string;
  spec: string;
  /** Resolved path relative to the root, for relative imports. */
  to?: string;
}

async function importsOf(pattern: string): Promise<Edge[]> {
  const files = await glob([pattern], { cwd: ROOT, ignore: ['**/node_modules/**', '**/*.test.ts'] });
  const edges: Edge[] = [];
  const re = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(re)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      const to = spec.startsWith('.') ? relative(ROOT, resolve(dirname(join(ROOT, f)), spec)).replace(/\.js$/, '.ts') : undefined;
      edges.push({ from: f, spec, ...(to ? { to } : {}) });
    }
  }
  return edges;
}

describe('module boundaries (DESIGN.md §1)', () => {
  const VOCABULARY = 'harness/core/vocabulary/';
  const forbiddenForClients = (edges: Edge[]) =>
    edges.filter((e) => e.to && ((e.to.startsWith('harness/') && !e.to.startsWith(VOCABULARY)) || e.to.startsWith('peers/') || e.to.startsWith('scenarios/')));

  it("clients/** import nothing of the harness but core's vocabulary: never the oracle, the rules, the runner or the peers", async () => {
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

  it("core's vocabulary stands alone: it imports nothing outside itself", async () => {
    const edges = await importsOf(`${VOCABULARY}**/*.ts`);
    expect(edges.filter((e) => e.to && !e.to.startsWith(VOCABULARY))).toEqual([]);
  });

  it('peers/** never import clients', async () => {
    const edges = await importsOf('peers/**/*.ts');
    expect(edges.filter((e) => e.to?.startsWith('clients/'))).toEqual([]);
    expect(edges.filter((e) => e.to?.startsWith('harness/') && !e.to.startsWith('harness/core/'))).toEqual([]);
  });

  it('harness/core is pure: no node: imports, nothing outside core', async () => {
    const edges = await importsOf('harness/core/**/*.ts');
    expect(edges.filter((e) => e.spec.startsWith('node:'))).toEqual([]);
    expect(edges.filter((e) => e.to && !e.to.startsWith('harness/core/'))).toEqual([]);
  });
});
