/**
 * The gRPC wire (A2A v1.0 §10) of the scripted peers, through the peer host's HTTP/2 listeners, to a
 * real @grpc/grpc-js client over TLS on 127.0.0.1: the proof that the listeners speak gRPC. A card
 * offering `{{grpcUrl}}` (GRPC) beside its JSON-RPC interface; one runtime behind both.
 */
import { credentials, Metadata, makeGenericClientConstructor, type ServiceError, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { AddressInfo } from 'node:net';
import { type HttpEvent, type TlsEvent, Transcript } from '../harness/core/transcript.js';
import { GRPC_KINDS, grpcTransport } from '../peers/wires/grpc-v1/host.js';
import { PeerHost } from '../harness/net/peer-host.js';
import { a2aGrpcService, GRPC_STATUS_DETAILS } from '../harness/core/protocol/grpc-service.js';
import { decodeGrpcStatus, encodeV1, V1_SERVICE } from '../harness/core/protocol/proto-wire.js';
import { connect, constants } from 'node:http2';
import { bareRpc, clientAgent, peerFixture, type PeerFixture } from './helpers/peer.js';

type Json = Record<string, any>;
type Client = Record<string, any> & { close(): void };

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 300,
  streaming: true,
  push: { supported: true, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
};

const card = {
  name: 'Contoso Notes',
  description: 'Files notes over JSON-RPC and gRPC.',
  supportedInterfaces: [
    { url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: '{{grpcUrl}}', protocolBinding: 'GRPC', protocolVersion: '1.0' },
  ],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '2.0.0',
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'notes', name: 'Notes', description: 'Files a note', tags: ['notes'] }],
};

const peer = (rt: Partial<PeerRuntime> = {}): PeerDescription => ({ factory: 'contoso-control', card, runtime: { ...runtime, ...rt }, signals: [] });

const message = (text: string) => ({ message: { messageId: `m-${Math.random().toString(36).slice(2)}`, role: 'ROLE_USER', parts: [{ text }] } });

const interfaceOf = (c: Json, binding: string): string => c.supportedInterfaces.find((i: Json) => i.protocolBinding === binding).url;

const Service = makeGenericClientConstructor(a2aGrpcService(), 'A2AService');

let fx: PeerFixture;
const clients: Client[] = [];

/** A grpc-js client of the card's gRPC interface: trusting the test CA, with the client certificate where `withCert`. */
function clientOf(url: string, withCert = false): Client {
  const { pki } = fx;
  const creds = withCert
    ? credentials.createSsl(Buffer.from(pki.testCa.cert), Buffer.from(pki.client.key), Buffer.from(pki.client.cert))
    : credentials.createSsl(Buffer.from(pki.testCa.cert));
  const c = new Service(new URL(url).host, creds) as unknown as Client;
  clients.push(c);
  return c;
}

const md = (extra: Record<string, string> = {}) => {
  const m = new Metadata();
  for (const [k, v] of Object.entries({ 'a2a-version': '1.0', ...extra })) m.set(k, v);
  return m;
};

function unary(c: Client, method: string, req: Json, meta = md()): Promise<{ res?: Json; err?: ServiceError }> {
  return new Promise((done) => c[method](req, meta, (err: ServiceError | null, res?: Json) => done(err ? { err } : { res: res! })));
}

async function streamed(c: Client, method: string, req: Json, meta = md()): Promise<{ events: Json[]; err?: ServiceError }> {
  const events: Json[] = [];
  try {
    for await (const e of c[method](req, meta)) events.push(e as Json);
    return { events };
  } catch (err) {
    return { events, err: err as ServiceError };
  }
}

const calls = (t: Transcript): HttpEvent[] => t.events.filter((e): e is HttpEvent => e.kind === 'http' && e.binding === 'GRPC');
const lastCall = (t: Transcript): HttpEvent => calls(t).at(-1)!;

async function until(what: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

beforeAll(async () => {
  fx = await peerFixture();
});
afterAll(async () => {
  for (const c of clients) c.close();
  await fx?.close();
});

describe('the gRPC wire, served by the peer host over HTTP/2 to @grpc/grpc-js', () => {
  it('fills {{grpcUrl}} with the origin of the gRPC listener of the RPC listener’s TLS kind', () => {
    const run = fx.start(peer());
    const url = interfaceOf(run.peer.card, 'GRPC');
    expect(url).toBe(fx.host.transportOrigin('grpc', 'tls'));
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe(fx.host.origin('tls'));
    expect(fx.host.transportOrigin('grpc', 'mtls')).not.toBe(url);
    run.end();
  });

  it('SendMessage creates a task (in the ledger), GetTask reads it, and the transcript keeps the neutral call and the decoded answer', async () => {
    const run = fx.start(peer());
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const sent = await unary(c, 'SendMessage', { ...message('file this'), configuration: { returnImmediately: true } });
    expect(sent.err).toBeUndefined();
    const id = sent.res!.task.id as string;
    expect(run.ledger.get(id)).toBeDefined();
    const ev = lastCall(run.transcript);
    expect(ev).toMatchObject({ method: 'POST', path: '/lf.a2a.v1.A2AService/SendMessage', status: 200, grpc: { status: 0 }, binding: 'GRPC' });
    expect(ev.interfaceUrl).toBe(fx.host.transportOrigin('grpc', 'tls'));
    expect(ev.rpc).toMatchObject({ method: 'SendMessage', wireMethod: '/lf.a2a.v1.A2AService/SendMessage', params: { message: { role: 'ROLE_USER' } } });
    expect(ev.headers).toMatchObject({ a2aVersion: '1.0', contentType: 'application/grpc' });
    expect(ev.responseBody).toMatchObject({ contentType: 'application/grpc+proto', json: { task: { id } } });
    const got = await unary(c, 'GetTask', { id });
    expect(got.res).toMatchObject({ id, status: { state: expect.stringMatching(/^TASK_STATE_/) } });
    await until(() => run.ledger.get(id)!.state === 'TASK_STATE_COMPLETED');
    expect((await unary(c, 'GetTask', { id })).res!.status.state).toBe('TASK_STATE_COMPLETED');
    run.end();
  });

  it('SendStreamingMessage streams the Task first, then its updates to a terminal state; each kept decoded on the event', async () => {
    const run = fx.start(peer());
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const { events, err } = await streamed(c, 'SendStreamingMessage', message('stream it'));
    expect(err).toBeUndefined();
    expect(Object.keys(events[0]!)).toEqual(['task']);
    const last = events.at(-1)!;
    expect(last.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');
    const ev = lastCall(run.transcript);
    expect(ev.grpc).toEqual({ status: 0 });
    expect(ev.responseBody!.events).toEqual(events);
    run.end();
  });

  it('SubscribeToTask follows a task to its end; CancelTask cancels a working one', async () => {
    const run = fx.start(peer({ workMs: 1500 }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const a = (await unary(c, 'SendMessage', { ...message('a'), configuration: { returnImmediately: true } })).res!.task.id as string;
    const sub = await streamed(c, 'SubscribeToTask', { id: a });
    expect(sub.err).toBeUndefined();
    expect(sub.events[0]!.task.id).toBe(a);
    expect(sub.events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const b = (await unary(c, 'SendMessage', { ...message('b'), configuration: { returnImmediately: true } })).res!.task.id as string;
    const canceled = await unary(c, 'CancelTask', { id: b });
    expect(canceled.res!.status.state).toBe('TASK_STATE_CANCELED');
    expect(run.ledger.get(b)!.state).toBe('TASK_STATE_CANCELED');
    run.end();
  });

  it('push configs: create, get, list, delete', async () => {
    const run = fx.start(peer({ workMs: 3000 }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const taskId = (await unary(c, 'SendMessage', { ...message('push'), configuration: { returnImmediately: true } })).res!.task.id as string;
    const config = { taskId, id: 'cfg-1', url: 'https://127.0.0.1:1/hook', token: 'tok-123' };
    const created = await unary(c, 'CreateTaskPushNotificationConfig', config);
    expect(created.err).toBeUndefined();
    expect(created.res).toMatchObject({ taskId, url: config.url });
    const id = created.res!.id as string;
    // The id the client chose is the config's: get and delete by it find it.
    expect(id).toBe('cfg-1');
    expect((await unary(c, 'GetTaskPushNotificationConfig', { taskId, id })).res).toMatchObject({ id, url: config.url });
    expect((await unary(c, 'ListTaskPushNotificationConfigs', { taskId })).res!.configs.map((x: Json) => x.id)).toEqual([id]);
    const deleted = await unary(c, 'DeleteTaskPushNotificationConfig', { taskId, id });
    expect(deleted).toEqual({ res: {} });
    expect((await unary(c, 'ListTaskPushNotificationConfigs', { taskId })).res!.configs ?? []).toEqual([]);
    // The push token is a credential: redacted in the transcript as on JSON bindings.
    const create = calls(run.transcript).find((e) => e.rpc?.method === 'CreateTaskPushNotificationConfig')!;
    expect((create.rpc!.params as Json).token).toBe('REDACTED');
    run.end();
  });

  it('an unknown task: NOT_FOUND with the ErrorInfo TASK_NOT_FOUND in grpc-status-details-bin; the transcript keeps -32001 and the gRPC status 5', async () => {
    const run = fx.start(peer());
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const { err } = await unary(c, 'GetTask', { id: 'no-such-task' });
    expect(err!.code).toBe(status.NOT_FOUND);
    const details = decodeGrpcStatus(err!.metadata.get(GRPC_STATUS_DETAILS)[0] as Buffer);
    expect(details).toMatchObject({ code: status.NOT_FOUND, errorInfo: { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' } });
    const ev = lastCall(run.transcript);
    expect(ev).toMatchObject({ status: 200, binding: 'GRPC', rpcError: { code: -32001 }, grpc: { status: 5 } });
    expect(ev.grpc!.message).toBe(err!.details);
    run.end();
  });

  it('a wrong a2a-version: FAILED_PRECONDITION with VERSION_NOT_SUPPORTED; none at all is read as 0.3 and refused the same way', async () => {
    const run = fx.start(peer());
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    for (const meta of [md({ 'a2a-version': '9.9' }), new Metadata()]) {
      const { err } = await unary(c, 'GetTask', { id: 'x' }, meta);
      expect(err!.code).toBe(status.FAILED_PRECONDITION);
      expect(decodeGrpcStatus(err!.metadata.get(GRPC_STATUS_DETAILS)[0] as Buffer).errorInfo!.reason).toBe('VERSION_NOT_SUPPORTED');
      expect(lastCall(run.transcript)).toMatchObject({ rpcError: { code: -32009 }, grpc: { status: status.FAILED_PRECONDITION } });
    }
    run.end();
  });

  it('a path the service does not have is UNIMPLEMENTED, a body that is no message of the method INVALID_ARGUMENT; both recorded', async () => {
    const run = fx.start(peer());
    const url = interfaceOf(run.peer.card, 'GRPC');
    const raw = new (makeGenericClientConstructor(
      {
        Nope: { path: '/lf.a2a.v1.A2AService/Nope', requestStream: false, responseStream: false, ...bytesCodec },
        GetTask: { path: '/lf.a2a.v1.A2AService/GetTask', requestStream: false, responseStream: false, ...bytesCodec },
      },
      'Raw',
    ))(new URL(url).host, credentials.createSsl(Buffer.from(fx.pki.testCa.cert))) as unknown as Client;
    clients.push(raw);
    const nope = await unary(raw, 'Nope', Buffer.alloc(0) as never);
    expect(nope.err!.code).toBe(status.UNIMPLEMENTED);
    expect(lastCall(run.transcript)).toMatchObject({ rpcError: { code: -32601 }, grpc: { status: status.UNIMPLEMENTED } });
    const garbage = await unary(raw, 'GetTask', Buffer.from([0x0a, 0xff, 0xff]) as never);
    expect(garbage.err!.code).toBe(status.INVALID_ARGUMENT);
    expect(lastCall(run.transcript)).toMatchObject({ rpc: { method: 'GetTask' }, rpcError: { code: -32602 }, grpc: { status: status.INVALID_ARGUMENT } });
    run.end();
  });

  it('a compressed message, by gRPC’s compression rules: gzip is UNIMPLEMENTED with grpc-accept-encoding: identity; the flag with no encoding named is INTERNAL', async () => {
    const run = fx.start(peer());
    const url = new URL(interfaceOf(run.peer.card, 'GRPC'));
    const { connect } = await import('node:http2');
    const { gzipSync } = await import('node:zlib');
    const session = connect(url.origin, { ca: fx.pki.testCa.cert });
    session.on('error', () => {});
    const call = (encoding: string | undefined, payload: Uint8Array) =>
      new Promise<Record<string, unknown>>((done, fail) => {
        const frame = Buffer.alloc(5 + payload.length);
        frame[0] = 1; // the Compressed-Flag
        frame.writeUInt32BE(payload.length, 1);
        Buffer.from(payload).copy(frame, 5);
        const req = session.request({
          ':method': 'POST',
          ':path': '/lf.a2a.v1.A2AService/GetTask',
          'content-type': 'application/grpc',
          te: 'trailers',
          'a2a-version': '1.0',
          ...(encoding ? { 'grpc-encoding': encoding } : {}),
        });
        let headers: Record<string, unknown> = {};
        req.on('response', (h) => (headers = { ...h }));
        req.on('trailers', (t) => (headers = { ...headers, ...t }));
        req.on('error', fail);
        req.on('close', () => done(headers));
        req.resume();
        req.end(frame);
      });
    try {
      const gzip = await call('gzip', gzipSync(Buffer.from([0x0a, 0x01, 0x78])));
      expect(gzip['grpc-status']).toBe(String(status.UNIMPLEMENTED));
      expect(gzip['grpc-accept-encoding']).toBe('identity');
      expect(decodeURIComponent(String(gzip['grpc-message']))).toMatch(/gzip.*accepts identity/);
      expect(lastCall(run.transcript)).toMatchObject({ rpc: { method: 'GetTask' }, grpc: { status: status.UNIMPLEMENTED } });
      const unnamed = await call(undefined, Buffer.from([0x0a, 0x01, 0x78]));
      expect(unnamed['grpc-status']).toBe(String(status.INTERNAL));
    } finally {
      session.destroy();
      run.end();
    }
  });

  it('an auth gate’s 401: UNAUTHENTICATED with its challenge as metadata; the event keeps the 401 and the call', async () => {
    const run = fx.start(peer({ auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300 } }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const { err } = await unary(c, 'GetTask', { id: 'x' }, md({ authorization: 'Bearer not-a-token' }));
    expect(err!.code).toBe(status.UNAUTHENTICATED);
    expect(String(err!.metadata.get('www-authenticate')[0])).toMatch(/^Bearer realm=/);
    const ev = lastCall(run.transcript);
    expect(ev).toMatchObject({ status: 401, grpc: { status: status.UNAUTHENTICATED }, rpc: { method: 'GetTask', params: { id: 'x' } } });
    expect(ev.headers).toMatchObject({ authorization: true, authScheme: 'Bearer' });
    expect(ev.response?.wwwAuthenticate).toMatch(/^Bearer/);
    run.end();
  });

  it('a scripted busy answer (503, Retry-After) is UNAVAILABLE with retry-after; the event keeps 503', async () => {
    const run = fx.start(peer({ unavailable: { status: 503, retryAfterSeconds: 2, calls: 1 } }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const { err } = await unary(c, 'SendMessage', message('busy'));
    expect(err!.code).toBe(status.UNAVAILABLE);
    expect(String(err!.metadata.get('retry-after')[0])).toBe('2');
    expect(lastCall(run.transcript)).toMatchObject({ status: 503, grpc: { status: status.UNAVAILABLE }, response: { retryAfter: '2' } });
    run.end();
  });

  it('a scripted dropped connection: the headers and a few bytes, then the stream is reset; the client sees no status of the peer’s', async () => {
    const run = fx.start(peer({ drop: { afterBytes: 3, calls: 1 } }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const { err } = await unary(c, 'SendMessage', message('dropped'));
    expect(err!.code).toBe(status.INTERNAL);
    expect(err!.details).toMatch(/RST_STREAM/);
    const ev = lastCall(run.transcript);
    expect(ev.note).toMatch(/runtime\.drop/);
    expect(ev.grpc).toBeUndefined();
    expect(ev.responseBody).toMatchObject({ bytes: 3 });
    // The next call is answered: only the first was scripted to drop.
    expect((await unary(c, 'SendMessage', message('again'))).res!.task).toBeDefined();
    run.end();
  });

  it('a stream reset mid-event (runtime.streamEnds.midEvent): the whole events, then RST_STREAM inside the next message; the half is not kept', async () => {
    const run = fx.start(peer({ streamEnds: { afterEvents: 1, midEvent: true } }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const { events, err } = await streamed(c, 'SendStreamingMessage', message('cut me'));
    expect(events.map((e) => Object.keys(e))).toEqual([['task']]);
    expect(err!.code).toBe(status.INTERNAL);
    expect(err!.details).toMatch(/RST_STREAM/);
    const ev = lastCall(run.transcript);
    expect(ev.note).toMatch(/reset mid-way through the next \(runtime\.streamEnds\.midEvent\)/);
    expect(ev.responseBody!.events).toHaveLength(1);
    expect(ev.grpc).toBeUndefined();
    run.end();
  });

  it('the half of a message reset mid-event reaches the client before the RST_STREAM (raw HTTP/2)', async () => {
    const run = fx.start(peer({ streamEnds: { afterEvents: 1, midEvent: true } }));
    const url = interfaceOf(run.peer.card, 'GRPC');
    const session = connect(url, { ca: fx.pki.testCa.cert });
    const body = encodeV1('SendMessageRequest', message('cut me'));
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), Buffer.from(body)]);
    framed.writeUInt32BE(body.length, 1);
    const req = session.request({
      ':method': 'POST',
      ':path': `/${V1_SERVICE}/SendStreamingMessage`,
      'content-type': 'application/grpc',
      te: 'trailers',
      'a2a-version': '1.0',
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    // The reset is the point: it ends the request with an error, read here as its code.
    req.on('error', () => {});
    const closed = new Promise<number>((resolve) => req.once('close', () => resolve(req.rstCode)));
    req.end(framed);
    const code = await closed;
    session.destroy();
    run.end();
    expect(code).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    const got = Buffer.concat(chunks);
    // One whole message (the Task), then part of the next: its length prefix promises more than came.
    const first = 5 + got.readUInt32BE(1);
    expect(got.length).toBeGreaterThan(first);
    expect(got.length - first).toBeLessThan(5 + got.readUInt32BE(first + 1));
  });

  it('a client that gives up (its deadline) before a slow answer: DEADLINE_EXCEEDED, and no harness fault when the answer comes too late to write', async () => {
    const run = fx.start(peer({ slow: { ms: 1500, method: 'GetTask' } }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const err = await new Promise<ServiceError>((done) => c.GetTask({ id: 'x' }, md(), { deadline: Date.now() + 200 }, (e: ServiceError) => done(e)));
    expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    const ev = lastCall(run.transcript);
    await until(() => ev.note !== undefined);
    expect(ev.note).toMatch(/reset the call/);
    expect(run.transcript.events.filter((e) => e.kind === 'harness')).toEqual([]);
    run.end();
  });

  it('the TLS handshakes are recorded; the mtls listener refuses a client without a certificate and serves one with', async () => {
    const run = fx.start(peer({ rpcListener: 'mtls' }));
    const url = interfaceOf(run.peer.card, 'GRPC');
    expect(url).toBe(fx.host.transportOrigin('grpc', 'mtls'));
    const without = await unary(clientOf(url), 'GetTask', { id: 'x' });
    expect(without.err!.code).toBe(status.UNAVAILABLE);
    await fx.host.handshakesSettled(5000);
    const tls = () => run.transcript.events.filter((e): e is TlsEvent => e.kind === 'tls' && e.listener === 'mtls');
    expect(tls().some((e) => !e.ok)).toBe(true);
    const withCert = await unary(clientOf(url, true), 'GetTask', { id: 'x' });
    expect(withCert.err!.code).toBe(status.NOT_FOUND);
    expect(tls().some((e) => e.ok && e.clientCert)).toBe(true);
    expect(lastCall(run.transcript)).toMatchObject({ listener: 'mtls', origin: url, clientCert: { presented: true } });
    run.end();
  });

  it('a call while no run is active is UNAVAILABLE and recorded nowhere', async () => {
    const run = fx.start(peer());
    const url = interfaceOf(run.peer.card, 'GRPC');
    run.end();
    const before = run.transcript.events.length;
    const { err } = await unary(clientOf(url), 'GetTask', { id: 'x' });
    expect(err!.code).toBe(status.UNAVAILABLE);
    expect(run.transcript.events.length).toBe(before);
  });

  it('the run’s end closes a stream still open', async () => {
    const run = fx.start(peer({ staysWorking: true }));
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const events: Json[] = [];
    const call = c.SendStreamingMessage(message('forever'), md());
    const ended = new Promise<ServiceError | undefined>((done) => {
      call.on('data', (e: Json) => events.push(e));
      call.on('error', (e: ServiceError) => done(e));
      call.on('end', () => done(undefined));
    });
    await until(() => events.length > 0);
    run.end();
    const err = await ended;
    expect(events[0]!.task).toBeDefined();
    expect(err?.code).toBe(status.CANCELLED);
  });
});

describe('the gRPC listeners close with the host', () => {
  it('close resolves with a client’s channel still open, and leaves no listener or connection behind', async () => {
    const own = await PeerHost.start(fx.pki, { transports: [grpcTransport] });
    const ports = GRPC_KINDS.map((k: (typeof GRPC_KINDS)[number]) => Number(new URL(own.transportOrigin('grpc', k)!).port));
    own.beginRun('solo', new Transcript(() => performance.now()));
    const c = new Service(new URL(own.transportOrigin('grpc', 'tls')!).host, credentials.createSsl(Buffer.from(fx.pki.testCa.cert))) as unknown as Client;
    // No handlers in this run: the call reaches the listener and is answered UNIMPLEMENTED (404, no handler).
    expect((await unary(c, 'GetTask', { id: 'x' })).err!.code).toBe(status.UNIMPLEMENTED);
    const ours = () =>
      (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter((h) => {
        const port = (h as { localPort?: number }).localPort ?? ((h as { address?(): AddressInfo | null }).address?.() as AddressInfo | null)?.port;
        return port !== undefined && ports.includes(port);
      });
    expect(ours().length).toBeGreaterThan(0);
    await own.close();
    await until(() => ours().length === 0, 5000);
    expect(ours()).toEqual([]);
    c.close();
  });
});

describe('one runtime, two bindings: the same calls over JSON-RPC and gRPC are kept alike', () => {
  it('ev.rpc.method, the neutral params and rpcError.code agree', async () => {
    const run = fx.start(peer());
    const agent = clientAgent(fx.pki);
    const c = clientOf(interfaceOf(run.peer.card, 'GRPC'));
    const jsonrpc = interfaceOf(run.peer.card, 'JSONRPC');
    const send = { message: { messageId: 'm-same', role: 'ROLE_USER', parts: [{ text: 'same' }] }, configuration: { returnImmediately: true } };
    const table: Array<[string, Json]> = [
      ['SendMessage', send],
      ['GetTask', { id: 'no-such-task' }],
      ['CancelTask', { id: 'no-such-task' }],
      ['ListTaskPushNotificationConfigs', { taskId: 'no-such-task' }],
    ];
    for (const [method, params] of table) {
      await bareRpc(agent, jsonrpc, method, params);
      const viaJson = run.transcript.events.filter((e): e is HttpEvent => e.kind === 'http' && e.binding === 'JSONRPC').at(-1)!;
      await unary(c, method, params);
      const viaGrpc = lastCall(run.transcript);
      expect(viaGrpc.rpc!.method, method).toBe(viaJson.rpc!.method);
      // Protobuf keeps no default value (an empty string, false, 0): params with none are the same object.
      expect(viaGrpc.rpc!.params, method).toEqual(viaJson.rpc!.params);
      expect(viaGrpc.rpcError?.code, method).toBe(viaJson.rpcError?.code);
      expect(viaGrpc.paramsDigest, method).toBe(viaJson.paramsDigest);
    }
    await agent.close();
    run.end();
  });
});

/** Bytes as they are: a method of the service sent whatever the test writes. */
const bytesCodec = {
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
};
