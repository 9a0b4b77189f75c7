/**
 * Attribution never depends on the client's stack (DESIGN.md §3). A dual-stack client reaches the
 * listeners on 127.0.0.1 through AF_INET6 sockets with the v4-mapped address ::ffff:127.0.0.1 (grpcio,
 * many Java and Go stacks); the kernel lists its end in /proc/net/tcp6 only. The same reference client
 * behind the NDJSON protocol, once over AF_INET and once dual-stack (test/fixtures/clients/dual-stack.mjs),
 * must get the same verdicts on every binding: TLS verification judged from the handshakes the
 * listeners recorded, gRPC calls attributed to their run. With the IPv6 table taken from the owner
 * lookup, the same dual-stack run must break, and loudly: the harness's ERROR, never a credited refusal.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOCKET_TABLES, socketInode } from '../harness/adapters/process-group.js';
import type { RunResults } from '../harness/core/results.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { ROOT } from './helpers/cli.js';
import { BUILTIN_FILES } from './helpers/scenarios.js';

const FIXTURES = join(ROOT, 'test/fixtures/clients');
const REFERENCE = `"${process.execPath}" "${join(FIXTURES, 'reference-ndjson.mjs')}" 4`;
const DUAL_STACK = `"${process.execPath}" --import "${join(FIXTURES, 'dual-stack.mjs')}" "${join(FIXTURES, 'reference-ndjson.mjs')}" 4`;

/** Bad certificates (a handshake the listener must see fail), a rejection, and tasks followed by poll, push and stream. */
const PICK =
  /^(spec-tls-verify\/(untrusted-ca|wrong-host|valid-certificate-control)|trust-kid\/expired|push-auth\/wrong-credentials-failed|stream-recovery\/closed-after-first-event)(\.grpc|\.rest)?$/;

const run = (clientCmd: string) =>
  runConformance({
    clientCmd,
    cwd: ROOT,
    files: BUILTIN_FILES,
    bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
    pick: { grep: { source: PICK.source, test: (t) => PICK.test(t) } },
    lanes: 4,
    seed: 'dual-stack',
  });

/** Each scenario's verdict and its checks' verdicts, by id. */
const verdicts = (r: RunResults) => Object.fromEntries(r.results.map((x) => [x.id, `${x.verdict} ${x.checks.map((c) => `${c.rule}:${c.verdict}`).join(' ')}`]));

describe('attribution of a dual-stack client (AF_INET6, v4-mapped) on every binding', () => {
  it('the owner lookup finds a v4-mapped socket in the IPv6 table, and only there', async () => {
    const net = await import('node:net');
    const server = net.createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    const socket = net.connect({ host: '::ffff:127.0.0.1', port });
    try {
      await new Promise((done) => socket.once('connect', done));
      expect(socket.localAddress).toBe('::ffff:127.0.0.1');
      expect(socketInode(socket.localPort!, port)).toMatch(/^\d+$/);
      expect(socketInode(socket.localPort!, port, ['/proc/net/tcp'])).toBe('');
    } finally {
      socket.destroy();
      server.close();
    }
  });

  it('gets the same verdicts as over AF_INET over JSON-RPC, HTTP+JSON and gRPC; without the IPv6 table, the harness says ERROR where it refused a call', {
    timeout: 240_000,
  }, async () => {
    const plain = await run(REFERENCE);
    const dual = await run(DUAL_STACK);
    const ids = plain.results.map((x) => x.id).sort();
    expect(ids.filter((id) => id.endsWith('.grpc')).length).toBeGreaterThanOrEqual(4);
    expect(ids.filter((id) => id.endsWith('.rest')).length).toBeGreaterThanOrEqual(4);
    expect(dual.results.map((x) => x.id).sort()).toEqual(ids);
    // The dual-stack client really connected through AF_INET6 sockets, on every binding.
    for (const x of dual.results) expect(x.stderr ?? '', x.id).toContain('[dual-stack] AF_INET6 ::ffff:127.0.0.1');
    expect(verdicts(dual)).toEqual(verdicts(plain));
    expect(plain.results.every((x) => x.verdict === x.expect)).toBe(true);

    // The same dual-stack run with the owner lookup blind to IPv6: gRPC calls refused, handshakes not on record.
    const tables = SOCKET_TABLES.splice(0, SOCKET_TABLES.length, '/proc/net/tcp');
    let blind: RunResults;
    try {
      blind = await run(DUAL_STACK);
    } finally {
      SOCKET_TABLES.splice(0, SOCKET_TABLES.length, ...tables);
    }
    const by = new Map(blind.results.map((x) => [x.id, x]));
    expect(verdicts(blind)).not.toEqual(verdicts(plain));
    // A refused gRPC call is the harness's ERROR, never a credited rejection.
    const grpc = by.get('push-auth/wrong-credentials-failed.grpc')!;
    expect(grpc.verdict).toBe('ERROR');
    expect(grpc.transcript.some((e) => e.kind === 'harness' && /refused the gRPC call \/lf\.a2a\.v1\.A2AService\//.test(e.message))).toBe(true);
    // A request on a connection not tied to the client is ERROR too: its handshake was not recorded.
    expect(by.get('spec-tls-verify/valid-certificate-control.rest')!.verdict).toBe('ERROR');
  });
});
