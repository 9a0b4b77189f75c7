/**
 * `serve`: peers on loopback for debugging by hand. Prints card URLs and certificate files, logs
 * requests as they arrive, keeps the CA across runs with --pki-dir, stops cleanly on SIGINT.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { ALL_SCENARIOS } from './helpers/scenarios.js';
import { testTemp } from './helpers/tmp.js';

/** Every serve started, killed after each test: a failed assertion must not leave one running. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function startServe(args: string[]) {
  const child = spawn(process.execPath, [join(ROOT, 'bin/a2a-conformance.mjs'), 'serve', ...args], { cwd: ROOT });
  started.push(child);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const waitFor = async (re: RegExp, ms = 20_000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const m = re.exec(out);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`serve did not print ${re}: ${out}`);
  };
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, waitFor, exit, output: () => out };
}

describe('a2a-conformance serve', () => {
  it('serves a peer a client can reach with the printed CA, logs the request, keeps the CA, stops on SIGINT', { timeout: 60_000 }, async () => {
    const pkiDir = testTemp('a2a-serve-pki-');
    const s = startServe(['--peer', 'spec-tls-verify/valid-certificate-control', '--pki-dir', pkiDir]);
    await s.waitFor(/ready: 1 peer/);
    const cardUrl = (await s.waitFor(/https:\/\/127\.0\.0\.1:\d+\/t\/\S+\/\.well-known\/agent-card\.json/))[0];
    const caFile = (await s.waitFor(/trust this CA for every peer:\s+(\S+)/))[1]!;
    const ca = await readFile(caFile, 'utf8');
    const agent = new Agent({ connect: { ca } });
    const res = await request(cardUrl, { dispatcher: agent, headers: { 'a2a-version': '1.0' } });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { name: string }).name).toBe('Contoso Helpdesk');
    await agent.close();
    await s.waitFor(/GET \/t\/\S+\/\.well-known\/agent-card\.json → 200/);
    s.child.kill('SIGINT');
    expect(await s.exit).toBe(0);

    // Again with the same --pki-dir: the same CA.
    const again = startServe(['--peer', 'contoso-bad-cert', '--pki-dir', pkiDir]);
    // Every scenario of the factory (its bad certificates on the card or on the RPC interface, each told in both dialects).
    const badCert = ALL_SCENARIOS.filter((x) => x.peer.factory === 'contoso-bad-cert').length;
    await again.waitFor(new RegExp(`ready: ${badCert} peer`));
    expect(await readFile(caFile, 'utf8')).toBe(ca);
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  });

  it('with every peer at once, each peer with a gRPC interface answers its own calls there (its card, its ledger)', { timeout: 90_000 }, async () => {
    const s = startServe([]);
    await s.waitFor(/ready: \d+ peer/, 60_000);
    const caFile = (await s.waitFor(/trust this CA for every peer:\s+(\S+)/))[1]!;
    const ca = await readFile(caFile, 'utf8');
    const agent = new Agent({ connect: { ca } });
    const { credentials, makeGenericClientConstructor, Metadata } = await import('@grpc/grpc-js');
    const { a2aGrpcService } = await import('../harness/core/protocol/grpc-service.js');
    const Service = makeGenericClientConstructor(a2aGrpcService(), 'A2AService');
    try {
      const grpcUrls: string[] = [];
      for (const id of ['interface/grpc-first', 'interface/jsonrpc-first', 'interface/first-busy-once']) {
        const cardUrl = (await s.waitFor(new RegExp(`${id.replace('/', '\\/')}\\s+(https:\\S+agent-card\\.json)`)))[1]!;
        const card = (await (await request(cardUrl, { dispatcher: agent, headers: { 'a2a-version': '1.0' } })).body.json()) as {
          supportedInterfaces: Array<{ url: string; protocolBinding: string }>;
        };
        const url = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')!.url;
        grpcUrls.push(url);
        const client = new Service(new URL(url).host, credentials.createSsl(Buffer.from(ca))) as unknown as Record<string, Function> & { close(): void };
        const md = new Metadata();
        md.set('a2a-version', '1.0');
        const sent = await new Promise<{ err?: { code: number; details: string }; res?: { task?: { id: string } } }>((done) =>
          client.SendMessage!(
            { message: { messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: 'Book 40 EUR' }] }, configuration: { returnImmediately: true } },
            md,
            (err: { code: number; details: string } | null, res: { task?: { id: string } }) => done(err ? { err } : { res }),
          ),
        );
        client.close();
        // first-busy-once's own peer answers its first SendMessage 503 (UNAVAILABLE): that it does shows the call reached it.
        if (id === 'interface/first-busy-once') expect(sent.err?.code, JSON.stringify(sent)).toBe(14);
        else expect(sent.res?.task?.id, JSON.stringify(sent)).toBeTruthy();
      }
      expect(new Set(grpcUrls).size).toBe(grpcUrls.length);
    } finally {
      await agent.close();
    }
    s.child.kill('SIGINT');
    expect(await s.exit).toBe(0);
  });

  it('names an unknown peer with a clear error and exit 2', async () => {
    const s = startServe(['--peer', 'nope']);
    expect(await s.exit).toBe(2);
    expect(s.output()).toContain('no scenario id or peer factory named "nope"');
  });
});
