/**
 * docs/architecture.md's "Add a binding", followed by a binding that needs a transport of its own, as
 * gRPC did: `TOY-SOCKET` (test/fixtures/toy-binding/), one call a raw TLS connection, a line each
 * way, no HTTP. Its folder holds its wire and its transport; one line registers it
 * (`addInterface(toyBinding)`, below). Then the peer host starts its listeners beside its own, a card
 * offers it at its listener's origin, the runtime mints and reads tasks through it, errors come by
 * §5.4's one table, it streams, its mTLS listener demands a client certificate, and the transcript
 * records its handshakes and calls as every other listener's. The last test counts the files outside
 * the folder that know of it: none.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { glob } from 'tinyglobby';
import { afterAll, describe, expect, it } from 'vitest';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import type { HttpEvent, TlsEvent, Transcript } from '../harness/core/transcript.js';
import { PeerHost } from '../harness/net/peer-host.js';
import { makePki } from '../harness/pki/index.js';
import { addInterface } from '../peers/wires/index.js';
import { TOY_BINDING, toyBinding } from './fixtures/toy-binding/index.js';
import { ROOT } from './helpers/cli.js';
import { sharedPeer } from './helpers/peer.js';

// The one registry line.
const remove = addInterface(toyBinding);
afterAll(() => remove());

type Json = Record<string, any>;
const peer = sharedPeer();

const desc = (rpcListener: 'tls' | 'mtls' = 'tls'): PeerDescription => ({
  factory: 'contoso-control',
  card: {
    name: 'Contoso Sockets',
    description: 'Answers over a toy socket binding and JSON-RPC.',
    supportedInterfaces: [
      { url: '{{toySocketUrl}}', protocolBinding: TOY_BINDING, protocolVersion: '1.0' },
      { url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'sockets', name: 'Sockets', description: 'Plays', tags: ['toys'] }],
  },
  runtime: {
    cardListener: 'tls',
    rpcListener,
    workMs: 100,
    streaming: true,
    push: { supported: false, delivery: 'plain' },
    outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  },
  signals: [],
});

/** One call over the toy binding: a TLS connection, a line out, every line back until the server closes. */
function toy(url: string, line: string, o: { version?: string; cert?: boolean } = {}): Promise<string> {
  const { port } = new URL(url);
  const pki = peer.fx.pki;
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port: Number(port), ca: pki.testCa.cert, ...(o.cert ? { cert: pki.client.cert, key: pki.client.key } : {}) },
      () => socket.write(`A2A/${o.version ?? '1.0'} ${line}\n`),
    );
    let got = '';
    socket.on('data', (chunk) => (got += chunk.toString('utf8')));
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

const toyUrlOf = (card: Json) => (card.supportedInterfaces as Array<{ url: string }>)[0]!.url;
const calls = (t: Transcript) => t.events.filter((e): e is HttpEvent => e.kind === 'http' && !!e.rpc);
const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately: true } });

describe('a binding with its own transport, from one folder and one registry line (docs/architecture.md, "Add a binding")', () => {
  it("is served at its transport's listener: SendMessage mints a task, GetTask reads it; the handshake and the calls are on record as any listener's", async () => {
    const run = peer.fx.start(desc());
    try {
      const url = toyUrlOf(run.peer.card);
      expect(url).toBe(peer.fx.host.transportOrigin('toy-socket', 'tls'));
      expect(url).not.toBe(peer.fx.host.origin('tls'));
      const sent = await toy(url, `SendMessage ${JSON.stringify(message('hi'))}`);
      expect(sent).toMatch(/^ok /);
      const task = JSON.parse(sent.slice(3)).task as Json;
      expect(run.ledger.get(task.id)).toBeDefined();
      const got = await toy(url, `GetTask ${JSON.stringify({ id: task.id })}`);
      expect(JSON.parse(got.slice(3)).id).toBe(task.id);
      const [send, get] = calls(run.transcript);
      expect(send).toMatchObject({ binding: TOY_BINDING, listener: 'tls', origin: url, interfaceUrl: url, rpc: { method: 'SendMessage' }, status: 200 });
      expect(send!.headers.a2aVersion).toBe('1.0');
      expect(get).toMatchObject({ binding: TOY_BINDING, rpc: { method: 'GetTask', params: { id: task.id } } });
      const handshakes = run.transcript.events.filter((e): e is TlsEvent => e.kind === 'tls' && e.ok);
      expect(handshakes.length).toBe(2);
    } finally {
      run.end();
    }
  });

  it("errors come by §5.4's one table, the version check holds, and a line it cannot read is refused", async () => {
    const run = peer.fx.start(desc());
    try {
      const url = toyUrlOf(run.peer.card);
      expect(await toy(url, 'GetTask {"id":"nope"}')).toMatch(/^error -32001 /);
      expect(await toy(url, 'GetTask {"id":"nope"}', { version: '0.3' })).toMatch(/^error -32009 /);
      expect(await toy(url, 'SendMessage [1')).toMatch(/^error -32700 /);
      expect(calls(run.transcript).map((e) => e.rpcError?.code)).toEqual([-32001, -32009]);
      expect(run.transcript.events.some((e) => e.kind === 'http' && e.rpcError?.code === -32700)).toBe(true);
    } finally {
      run.end();
    }
  });

  it('streams as the runtime streams: the Task first, then its updates to the end, a line each', async () => {
    const run = peer.fx.start(desc());
    try {
      const out = await toy(toyUrlOf(run.peer.card), `SendStreamingMessage ${JSON.stringify({ message: message('go').message })}`);
      const events = out
        .split('\n')
        .filter((l) => l.startsWith('event '))
        .map((l) => JSON.parse(l.slice(6)) as Json);
      expect(Object.keys(events[0]!)).toEqual(['task']);
      expect(events.at(-1)!.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      run.end();
    }
  });

  it('on an mTLS interface, its mTLS listener: no client certificate, a failed handshake on record and no call; with one, the call', async () => {
    const run = peer.fx.start(desc('mtls'));
    try {
      const url = toyUrlOf(run.peer.card);
      expect(url).toBe(peer.fx.host.transportOrigin('toy-socket', 'mtls'));
      await expect(toy(url, 'ListTasks {}')).rejects.toThrow();
      await peer.fx.host.handshakesSettled(5000);
      expect(run.transcript.events.some((e) => e.kind === 'tls' && e.listener === 'mtls' && !e.ok)).toBe(true);
      expect(calls(run.transcript)).toEqual([]);
      expect(await toy(url, 'ListTasks {}', { cert: true })).toMatch(/^ok /);
      expect(calls(run.transcript)).toHaveLength(1);
    } finally {
      run.end();
    }
  });

  it('closes with the host: its listeners refuse connections afterwards', async () => {
    const pki = await makePki();
    const host = await PeerHost.start(pki, { transports: [toyBinding.transport!] });
    const { port } = new URL(host.transportOrigin('toy-socket', 'tls')!);
    await host.close();
    const refused = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port), ca: pki.testCa.cert }, () => resolve('connected'));
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('touched nothing outside its folder but the registry line: no other file names it, and its folder imports only the extension points', async () => {
    const FOLDER = 'test/fixtures/toy-binding/';
    const files = await glob(['**/*.{ts,tsx,mts,mjs,js,json,md}'], {
      cwd: ROOT,
      ignore: ['**/node_modules/**', 'dist/**', 'conformance-report/**', 'test-output/**', 'scratch/**', `${FOLDER}**`],
    });
    expect(files.length).toBeGreaterThan(300);
    const THIS = 'test/toy-binding.test.ts';
    const knowing = files.filter((f) => f !== THIS && /TOY-SOCKET|toy-socket|toySocket|fixtures\/toy-binding/.test(readFileSync(`${ROOT}/${f}`, 'utf8')));
    // docs/architecture.md names it as the example it is; nothing that runs does.
    expect(knowing).toEqual(['docs/architecture.md']);
    const own = await glob([`${FOLDER}*.ts`], { cwd: ROOT });
    const imported = new Set(
      own.flatMap((f) => [...readFileSync(`${ROOT}/${f}`, 'utf8').matchAll(/from '(\.\.\/[^']+)'/g)].map((m) => m[1]!.replace(/^(\.\.\/)+/, ''))),
    );
    expect([...imported].sort()).toEqual([
      'harness/core/scenario/runtime.js',
      'harness/core/transcript.js',
      'harness/net/request-record.js',
      'harness/net/respond.js',
      'harness/net/transport.js',
      'harness/pki/index.js',
      'peers/wires/error-map.js',
      'peers/wires/index.js',
      'peers/wires/wire.js',
    ]);
  });
});
