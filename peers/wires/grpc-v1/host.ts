/**
 * gRPC's transport (A2A v1.0 §10; harness/net/transport.ts), which the peer host starts beside its own listeners: `node:http2` secure servers on 127.0.0.1, one per
 * TLS kind an RPC listener can be ('tls'; 'mtls', which demands a client certificate from the test
 * CA; and the three bad certificates a client must refuse), each with its kind's certificate. Not a @grpc/grpc-js Server: that hides the connection (no
 * handshake, no raw request, no answer cut at a byte). These speak gRPC's framing themselves and
 * feed each call to the same msw handlers as the HTTP/1.1 listeners (harness/net/peer-host.ts), so the same
 * peer, runtime, gates and incidents serve it; a @grpc/grpc-js client is what they are tested with.
 *
 * Attribution. gRPC's paths are the service's own (`/lf.a2a.v1.A2AService/<Method>`): no `/t/<run>/`
 * prefix can name a run. A call belongs to the run active on the host (a host serves one run at a
 * time); the Request the run's handlers see is at `<origin><:path>`, the origin being the URL a card
 * names for its gRPC interface (`{{grpcUrl}}`). A call while no run is active is answered UNAVAILABLE
 * and counted (`idleCalls`). One on a connection no process of the lane's client holds (by its owner
 * lookup, IPv4 and IPv6 sockets alike) is refused too, and recorded in the active run as the
 * harness's error: that run is ERROR, never a refusal credited to the client.
 *
 * Recorded as on the HTTP/1.1 listeners (harness/net/request-record.ts): handshakes (ok or failed, the client
 * certificate) by the host's own TLS watch, under the listener's TLS kind (`listener: 'tls'` or
 * 'mtls'; the event's `origin` tells the gRPC listener apart); each call an `http` event (POST, the
 * real :path, the metadata that matter as headers). A connection whose handshake is on record in
 * another run (or none) is recorded again by the run that uses it, `reused`. Its answer: ./answer.ts.
 */
import { createHash } from 'node:crypto';
import { constants, createSecureServer, type Http2SecureServer, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { getResponse } from 'msw';
import { GRPC_LISTENER_KINDS, type ListenerKind } from '../../../harness/core/scenario/runtime.js';
import { RUN_INPUT_BYTES, SEQ_HEADER, type HttpEvent } from '../../../harness/core/transcript.js';
import { GRPC_STATUS } from '../../../harness/core/protocol/grpc-frame.js';
import { V1_METHODS } from '../../../harness/core/protocol/proto-v1.js';
import { V1_SERVICE } from '../../../harness/core/protocol/proto-wire.js';
import { listenerLeaf, type Pki } from '../../../harness/pki/index.js';
import { endWith, refuseCall, writeCall, type Answering } from './answer.js';
import { ownPorts } from '../../../harness/net/own-ports.js';
import { connectionEvent, recordRequest, redactQuery } from '../../../harness/net/request-record.js';
import { readBody } from '../../../harness/net/respond.js';
import type { HostRun, Transport, TransportHooks, TransportListeners } from '../../../harness/net/transport.js';

/**
 * The TLS kinds a gRPC listener is started for: those an RPC listener sits on, the bad certificates
 * included (a sound card may name an RPC interface whose certificate a client must refuse).
 */
export const GRPC_KINDS = GRPC_LISTENER_KINDS;
export type GrpcKind = (typeof GRPC_KINDS)[number];

/** Sessions idle this long are closed (GOAWAY): a client that keeps its channel open across runs reconnects. */
const SESSION_IDLE_MS = 120_000;

export class GrpcHost<R extends HostRun> implements TransportListeners<R> {
  private readonly listeners = new Map<GrpcKind, { server: Http2SecureServer; origin: string }>();
  private readonly sessions = new Set<ServerHttp2Session>();
  /** The run each session's handshake (or latest call) is on record in; a foreign session has none on record. */
  private readonly sessionRun = new WeakMap<ServerHttp2Session, R | undefined>();
  /** Each run's calls still answering (streams), reset when the run ends. */
  private readonly open = new Map<R, Set<ServerHttp2Stream>>();
  /** Calls that came while no run was active (a client still calling after its result): answered UNAVAILABLE, counted. */
  idleCalls = 0;

  private constructor(private readonly hooks: TransportHooks<R>) {}

  static async start<R extends HostRun>(pki: Pki, hooks: TransportHooks<R>): Promise<GrpcHost<R>> {
    const host = new GrpcHost(hooks);
    const started = await Promise.allSettled(GRPC_KINDS.map((kind) => host.listen(kind, pki)));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) {
      // A listener that could not start: those that did are closed (the transport contract), then the error is the caller's.
      await host.close();
      throw failed.reason;
    }
    return host;
  }

  private async listen(kind: GrpcKind, pki: Pki): Promise<void> {
    const server = createSecureServer({
      ...listenerLeaf(pki, kind),
      allowHTTP1: false,
      // The mTLS listener demands a client certificate from the test CA, as the HTTP/1.1 one does.
      ...(kind === 'mtls' ? { ca: pki.testCa.cert, requestCert: true, rejectUnauthorized: true } : {}),
    });
    this.hooks.watchTls(kind, server);
    server.on('session', (session: ServerHttp2Session) => this.onSession(session));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    ownPorts.add(port, server);
    const origin = `https://127.0.0.1:${port}`;
    server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
      stream.on('error', () => {}); // a client that goes mid-call: nothing to answer
      this.onStream(kind, origin, stream, headers).catch((err: unknown) => {
        // Never leave a client hanging on a harness fault: answer, and record it as ours.
        this.hooks.active()?.transcript.record({ kind: 'harness', level: 'error', message: `gRPC listener ${kind}: ${(err as Error).stack ?? String(err)}` });
        if (!stream.headersSent) endWith(stream, GRPC_STATUS.INTERNAL, 'harness error (not the client’s fault)');
        else stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      });
    });
    this.listeners.set(kind, { server, origin });
  }

  /** A session (one TLS connection): its run is the one its handshake was recorded in, at this same moment. */
  private onSession(session: ServerHttp2Session): void {
    this.sessions.add(session);
    session.on('close', () => this.sessions.delete(session));
    session.on('error', () => {});
    session.setTimeout(SESSION_IDLE_MS, () => session.close());
    if (!this.hooks.isForeign(session.socket as TLSSocket)) this.sessionRun.set(session, this.hooks.active());
  }

  /** The origin of the listener of a TLS kind; undefined for a kind without one. */
  origin(kind: ListenerKind): string | undefined {
    return this.listeners.get(kind as GrpcKind)?.origin;
  }

  /** Resets a run's calls still answering (its streams), as the host closes its SSE streams. */
  endRun(run: R): void {
    // RST_STREAM CANCEL: a client reports the call CANCELLED, as a stream whose server went away.
    for (const stream of this.open.get(run) ?? []) stream.close(constants.NGHTTP2_CANCEL);
    this.open.delete(run);
  }

  /** Closes the listeners: every session destroyed (the host destroys their sockets, and any connection not yet a session). */
  async close(): Promise<void> {
    for (const run of [...this.open.keys()]) this.endRun(run);
    const closed = [...this.listeners.values()].map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve())));
    for (const session of this.sessions) session.destroy();
    this.sessions.clear();
    await Promise.all(closed);
  }

  private async onStream(kind: GrpcKind, origin: string, stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const session = stream.session as ServerHttp2Session;
    const run = this.hooks.active();
    if (!run) {
      this.idleCalls++;
      return endWith(stream, GRPC_STATUS.UNAVAILABLE, 'no scenario run is active on this listener');
    }
    if (!this.sessionRun.has(session)) {
      // The owner lookup found no process of the lane's client holding this connection. Refused all the same (another
      // process's call must not reach the run's peers), but never silently: the harness cannot prove the call was not
      // the client's, so the run is the harness's ERROR, never a refusal the client is credited with.
      run.transcript.record({
        kind: 'harness',
        level: 'error',
        message: `refused the gRPC call ${String(headers[':path'] ?? '/')} on the ${kind} listener: no process of the client under test was found holding its connection (from port ${session.socket?.remotePort ?? '?'}), so it was answered UNAVAILABLE and is not graded`,
      });
      return endWith(stream, GRPC_STATUS.UNAVAILABLE, 'this connection is not attributed to the scenario run active on this listener');
    }
    const socket = session.socket as TLSSocket;
    const was = this.sessionRun.get(session);
    if (was !== run) {
      run.transcript.record(connectionEvent(kind, socket, !!was));
      this.sessionRun.set(session, run);
    }
    const { transcript } = run;
    const method = String(headers[':method'] ?? 'POST');
    const path = redactQuery(String(headers[':path'] ?? '/'));
    const ev = recordRequest(transcript, kind, origin, { method, headers, socket }, path);
    // A gRPC call is a POST to /<service>/<method> (gRPC over HTTP/2). Anything else (OPTIONS *, TRACE, CONNECT, a
    // path with no leading slash) is the client's odd call, answered UNIMPLEMENTED and recorded as its own.
    if (method !== 'POST' || !path.startsWith('/')) {
      stream.resume();
      return refuseCall(
        transcript,
        ev,
        stream,
        405,
        GRPC_STATUS.UNIMPLEMENTED,
        `a ${method} to ${path} is not a gRPC call (gRPC calls are POSTs)`,
        'not a gRPC call',
      );
    }
    let body: Buffer | undefined;
    try {
      body = await bodyOf(stream);
    } catch (err) {
      return refuseCall(transcript, ev, stream, 413, GRPC_STATUS.RESOURCE_EXHAUSTED, (err as Error).message, 'request body too large');
    }
    if (!body) {
      ev.note = 'the client reset the call before its request ended';
      return;
    }
    if (body.length > 0) ev.requestDigest = createHash('sha256').update(body).digest('hex').slice(0, 16);
    // Past the run's input budget (a flood of large requests): answered without reaching a peer, which would store it.
    if (!transcript.receive(body.length)) {
      const note = `past the ${RUN_INPUT_BYTES / 1024 / 1024} MiB of requests one scenario run takes: not passed to the peer`;
      return refuseCall(transcript, ev, stream, 429, GRPC_STATUS.UNAVAILABLE, note, 'too much sent in this scenario run');
    }
    const response = await this.peerResponse(run, ev, stream, toRequest(origin + path, method, headers, ev.seq, body), origin, `${method} ${path}`);
    if (!response) return;
    const open = this.open.get(run) ?? new Set<ServerHttp2Stream>();
    this.open.set(run, open);
    await writeCall(transcript, open, ev, stream, response, answering(path));
  }

  /** The run's peers' answer to a call; none (answered here) where no handler serves it or one threw, a fault of the harness's. */
  private async peerResponse(run: R, ev: HttpEvent, stream: ServerHttp2Stream, request: Request, baseUrl: string, what: string): Promise<Response | undefined> {
    let response: Response | undefined;
    try {
      response = await getResponse(run.handlers, request, { baseUrl });
    } catch (err) {
      run.transcript.record({ kind: 'harness', level: 'error', message: `peer handler threw on gRPC ${what}: ${(err as Error).stack ?? String(err)}` });
      refuseCall(run.transcript, ev, stream, 500, GRPC_STATUS.INTERNAL, undefined, 'harness error (not the client’s fault)');
      return undefined;
    }
    if (!response) refuseCall(run.transcript, ev, stream, 404, GRPC_STATUS.UNIMPLEMENTED, 'no handler for this path', 'not found');
    return response;
  }
}

/** A call's request body; undefined where the client resets the call before it ends. */
function bodyOf(stream: ServerHttp2Stream): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    stream.once('close', () => resolve(undefined)); // after the body's end, a no-op
    readBody(stream).then(resolve, reject);
  });
}

/** The method a path names, for reading its answer back: its response type and whether it streams. */
function answering(path: string): Answering {
  const prefix = `/${V1_SERVICE}/`;
  const m = path.startsWith(prefix) ? V1_METHODS.find((x) => x.name === path.slice(prefix.length)) : undefined;
  return { response: m?.response, stream: m?.stream ?? false };
}

/** The Fetch Request the peers' handlers see: the call's metadata as headers, the event's sequence number, the body. */
function toRequest(url: string, method: string, from: IncomingHttpHeaders, seq: number, body: Buffer): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(from)) if (v !== undefined && !k.startsWith(':')) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  headers.set(SEQ_HEADER, String(seq));
  return new Request(url, { method, headers, ...(body.length > 0 && method !== 'GET' && method !== 'HEAD' ? { body: new Uint8Array(body) } : {}) });
}

/** gRPC's transport, as the registry (../index.ts) hands it to the peer host: HTTP/2 listeners of their own, one per RPC listener's TLS kind. */
export const grpcTransport: Transport = { name: 'grpc', start: (pki, hooks) => GrpcHost.start(pki, hooks) };
