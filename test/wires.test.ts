/**
 * The shape of peers/ (issue 26): the neutral runtime knows no wire, a wire knows no other wire, and
 * every wire folder is registered in the one registry, for every dialect core's protocol folder names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../harness/core/protocol/types.js';
import { GRPC_STATUS } from '../harness/core/protocol/grpc-frame.js';
import { A2AError, type A2AErrorName } from '../peers/runtime/errors.js';
import { ERROR_MAP } from '../peers/wires/error-map.js';
import { ALL_WIRES, DIALECT_WIRES } from '../peers/wires/index.js';
import { ROOT } from './helpers/cli.js';

/** Every relative import of the files under `pattern`, resolved against the root. */
async function importsOf(pattern: string): Promise<Array<{ from: string; to: string }>> {
  const files = await glob([pattern], { cwd: ROOT, ignore: ['**/node_modules/**'] });
  const re = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  return files.flatMap((from) =>
    [...readFileSync(join(ROOT, from), 'utf8').matchAll(re)].map((m) => ({
      from,
      to: relative(ROOT, resolve(dirname(join(ROOT, from)), (m[1] ?? m[2])!)).replace(/\.js$/, '.ts'),
    })),
  );
}

/** A wire's folder: peers/wires/<folder>/, the shared JSON-RPC envelope (jsonrpc/) being no wire. */
const wireFolderOf = (path: string) => /^peers\/wires\/([^/]+)\//.exec(path)?.[1];
const WIRE_FOLDERS = readdirSync(join(ROOT, 'peers/wires'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'jsonrpc')
  .map((d) => d.name);

describe('peers/: one runtime, one folder per wire, one registry', () => {
  it('the runtime imports no wire (nor the endpoint or the peer that join them): it imports nothing of peers/ outside itself', async () => {
    const edges = await importsOf('peers/runtime/**/*.ts');
    expect(edges.length).toBeGreaterThan(10);
    expect(edges.filter((e) => e.to.startsWith('peers/') && !e.to.startsWith('peers/runtime/'))).toEqual([]);
  });

  it('no wire imports another wire', async () => {
    const edges = await importsOf('peers/wires/*/**/*.ts');
    const crossing = edges.filter((e) => {
      const to = wireFolderOf(e.to);
      return to !== undefined && to !== 'jsonrpc' && to !== wireFolderOf(e.from);
    });
    expect(crossing).toEqual([]);
    expect(edges.filter((e) => e.to.startsWith('peers/') && !e.to.startsWith('peers/wires/') && !e.to.startsWith('peers/runtime/'))).toEqual([]);
  });

  it('every wire folder is registered, and every dialect has its wire', async () => {
    const registry = readFileSync(join(ROOT, 'peers/wires/index.ts'), 'utf8');
    expect(WIRE_FOLDERS.length).toBeGreaterThanOrEqual(2);
    for (const folder of WIRE_FOLDERS) expect(registry, folder).toContain(`./${folder}/index.js`);
    expect(ALL_WIRES.length).toBe(WIRE_FOLDERS.length);
    expect(Object.keys(DIALECT_WIRES).sort()).toEqual([...DIALECTS].sort());
    for (const [dialect, entry] of Object.entries(DIALECT_WIRES)) expect(entry.wire.dialect).toBe(dialect);
  });

  it('the dialect literals live with their wires and the registry', async () => {
    const files = await glob(['peers/**/*.ts'], { cwd: ROOT });
    const holders = files.filter((f) => readFileSync(join(ROOT, f), 'utf8').includes("'a2a-v0.3'"));
    expect(holders.sort()).toEqual(['peers/wires/index.ts', 'peers/wires/jsonrpc-v03/index.ts']);
  });

  it("every wire answers each A2A error by §5.4's one table (peers/wires/error-map.ts), and records its JSON-RPC code as the neutral id", async () => {
    const kinds = Object.keys(ERROR_MAP) as A2AErrorName[];
    expect(kinds.length).toBeGreaterThanOrEqual(10);
    const seen = new Set<string>();
    for (const wire of ALL_WIRES)
      for (const kind of kinds) {
        const row = ERROR_MAP[kind];
        const { response, recorded } = wire.error({ id: 7 }, new A2AError(kind));
        const what = `${wire.binding} ${wire.dialect} ${kind}`;
        expect(recorded.code, what).toBe(row.jsonRpc);
        seen.add(wire.binding);
        if (wire.binding === 'JSONRPC') expect(((await response.json()) as { error: { code: number } }).error.code, what).toBe(row.jsonRpc);
        else if (wire.binding === 'HTTP+JSON') {
          expect(response.status, what).toBe(row.http[0]);
          expect(((await response.json()) as { error: { status: string } }).error.status, what).toBe(row.http[1]);
        } else if (wire.binding === 'GRPC') expect(response.headers.get('grpc-status'), what).toBe(String(GRPC_STATUS[row.grpc]));
        // A custom binding answers in its own form (§5.4: its own mapping, the same meaning): its neutral id is checked above.
      }
    for (const b of ['GRPC', 'HTTP+JSON', 'JSONRPC']) expect(seen, b).toContain(b);
  });
});
