/**
 * PeerHost: real Node `https` listeners on 127.0.0.1 that serve msw request handlers through
 * `getResponse` (docs/architecture.md). It records what only a listener can know (handshakes, failed ones
 * included; client certificates; every request) into the transcript of the scenario run the
 * request belongs to. A request is attributed by its path prefix `/t/<run>/`, a handshake to the
 * run active on this host: a host serves one run at a time (each lane of a run has its own host).
 * Where the lane's client runs in processes of its own, the runner hands the host a filter
 * (`foreign`, built on the adapters' process lookup) and a connection counts only when one of those
 * processes holds its other end: another lane's client scanning these ports is not this run's.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';
import type { CardSigners } from '../core/scenario/card.js';
import { listenerLeaf, type Pki } from '../pki/index.js';
import type { ListenerKind } from '../core/scenario/runtime.js';
import { LISTENER_KINDS } from '../core/scenario/runtime.js';
import { RUN_INPUT_BYTES, SEQ_HEADER, type HttpEvent, type Transcript } from '../core/transcript.js';
import { answer, readBody, refuse } from './respond.js';
import { ownPorts } from './own-ports.js';
import { certSubject, connectionEvent, recordRequest, redactQuery } from './request-record.js';
import type { Transport, TransportListeners } from './transport.js';

export { redactQuery };

export interface RunSlot {
  key: string;
  transcript: Transcript;
  handlers: RequestHandler[];
  /** Open response streams (SSE), closed when the run ends. */
  streams: Set<ServerResponse>;
}

interface Listener {
  kind: ListenerKind;
  server: Server;
  origin: string;
}

/** Whether a connection (the client's port, this listener's port) came from a process other than the lane's client's. */
export type ForeignConnection = (remotePort: number, localPort: number) => boolean;

export class PeerHost {
  private readonly runs = new Map<string, RunSlot>();
  /** The run each TLS connection's handshake (or latest use) is on record in. */
  private readonly socketRun = new WeakMap<TLSSocket, RunSlot | undefined>();
  private readonly listeners = new Map<ListenerKind, Listener>();
  private active: RunSlot | undefined;
  /** The card-signing keys the peers on this host sign with (PEMs from the run's PKI). */
  signers!: CardSigners;
  /** TCP connections accepted, and handshakes that reached an outcome (done or failed), on every listener. */
  private accepted = 0;
  private outcomes = 0;
  /** Every connection open on the host's listeners (its transports' too), destroyed when the host closes. */
  private readonly sockets = new Set<Socket>();
  /** Connections whose other end is not the lane's client (by raw socket): recorded in no run. */
  private readonly foreignSockets = new WeakSet<object>();
  /** Connections made by a process not the lane's client, counted. */
  foreignConnections = 0;
  /** The bindings' own transports' listeners (./transport.ts; gRPC's HTTP/2), by transport name. */
  private readonly transportListeners = new Map<string, TransportListeners<RunSlot>>();
  /** Transport listeners of one run's own (`reserveTransports`), by run key, then transport name: where several runs are active at once. */
  private readonly ownListeners = new Map<string, Map<string, TransportListeners<RunSlot>>>();

  private constructor(
    private readonly pki: Pki,
    private readonly foreign: ForeignConnection | undefined,
    private readonly transports: readonly Transport[],
  ) {}

  /** Whether a TLS socket's connection came from another process than the lane's client. */
  private isForeign(socket: TLSSocket): boolean {
    return this.foreignSockets.has((socket as unknown as { _parent?: object })._parent ?? socket);
  }

  /** The run active when each connection was accepted (by its TCP socket). */
  private readonly acceptedIn = new WeakMap<object, RunSlot | undefined>();

  /**
   * The run a connection's handshake belongs to: the one active when it was accepted, while that run
   * lasts. A handshake that ends after its run did (a client that ignored the abort, still dialing a
   * listener being replaced) is no later run's: recorded in none, as one made while no run was active.
   */
  private runAtAccept(socket: TLSSocket): RunSlot | undefined {
    const raw = (socket as unknown as { _parent?: object })._parent ?? socket;
    const slot = this.acceptedIn.has(raw) ? this.acceptedIn.get(raw) : this.active;
    return slot && this.runs.get(slot.key) === slot ? slot : undefined;
  }

  /**
   * Starts one listener of every kind on 127.0.0.1:0, and each binding's own transport beside them.
   * `foreign`: where the lane's client runs in processes of its own, whether a connection came from
   * another process (the runner builds it). `transports`: the registered bindings' (peers/wires/index.ts
   * `transports()`, which the runner hands over: this floor knows no binding).
   */
  static async start(pki: Pki, o: { foreign?: ForeignConnection | undefined; transports?: readonly Transport[] } = {}): Promise<PeerHost> {
    const names = (o.transports ?? []).map((t) => t.name);
    if (new Set(names).size !== names.length) throw new Error(`[harness] two transports share a name: ${names.join(', ')}`);
    const host = new PeerHost(pki, o.foreign, o.transports ?? []);
    host.signers = { published: pki.cardSigner, expired: pki.cardSignerExpired, notYetValid: pki.cardSignerFuture };
    await Promise.all(
      LISTENER_KINDS.map(async (kind) => {
        const server = createServer({
          ...listenerLeaf(pki, kind),
          // The mTLS listener demands a client certificate from the test CA.
          ...(kind === 'mtls' ? { ca: pki.testCa.cert, requestCert: true, rejectUnauthorized: true } : {}),
          // Longer than any client's keep-alive threshold (undici's is 2 s, subtracted from the
          // server's hint): a scenario's requests share a connection, and its handshakes are those the
          // client really makes. Connections are not cut when a run ends: a client that pools them
          // across runs would meet a closed socket it did not close, a fault of the harness's making.
          keepAliveTimeout: 30_000,
        });
        host.watch(kind, server);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve());
        });
        const { port } = server.address() as AddressInfo;
        ownPorts.add(port, server);
        host.listeners.set(kind, { kind, server, origin: `https://127.0.0.1:${port}` });
      }),
    );
    try {
      for (const [name, l] of await host.startTransports(host.transports, () => host.active)) host.transportListeners.set(name, l);
    } catch (err) {
      await host.close();
      throw err;
    }
    return host;
  }

  /** Starts transports' listeners; where one fails to start, the transports started are closed and the error thrown (a failed start closes its own, harness/net/transport.ts). */
  private async startTransports(transports: readonly Transport[], active: () => RunSlot | undefined): Promise<Map<string, TransportListeners<RunSlot>>> {
    const hooks = { active, watchTls: this.watchTls.bind(this), isForeign: this.isForeign.bind(this) };
    const started = await Promise.allSettled(transports.map((t) => t.start<RunSlot>(this.pki, hooks)));
    const failed = started.find((r) => r.status === 'rejected');
    const ok = started.flatMap((r, i) => (r.status === 'fulfilled' ? [[transports[i]!.name, r.value] as const] : []));
    if (failed) {
      await Promise.allSettled(ok.map(([, l]) => l.close()));
      throw failed.reason;
    }
    return new Map(ok);
  }

  /**
   * Gives the run of `key` (begun next) listeners of its own for the named transports. A host serves one
   * run at a time, and a call whose path names no run (gRPC's) belongs to the active one; `serve` keeps
   * every peer active at once, so each peer with such an interface gets listeners whose calls can only be its own.
   */
  async reserveTransports(key: string, names: readonly string[]): Promise<void> {
    const own = this.ownListeners.get(key) ?? new Map<string, TransportListeners<RunSlot>>();
    this.ownListeners.set(key, own);
    const wanted = this.transports.filter((t) => names.includes(t.name) && !own.has(t.name));
    for (const [name, l] of await this.startTransports(wanted, () => this.runs.get(key))) own.set(name, l);
  }

  /** Wires a listener's events: requests to onRequest, connections counted and attributed, handshakes (failed ones too) recorded in the active run. */
  private watch(kind: ListenerKind, server: Server): void {
    this.watchTls(kind, server);
    server.on('request', (req, res) => {
      this.onRequest(kind, req, res).catch((err: unknown) => {
        // Never leave a client hanging on a harness fault: answer, and record it as ours.
        this.active?.transcript.record({ kind: 'harness', level: 'error', message: `listener ${kind}: ${(err as Error).stack ?? String(err)}` });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('harness error (not the client’s fault)');
        else res.destroy();
      });
    });
  }

  /** Counts a TLS listener's connections (this host's, or a transport's), attributes them, and records their handshakes. */
  private watchTls(kind: ListenerKind, server: TlsServer): void {
    server.on('connection', (raw: Socket) => {
      this.accepted++;
      this.sockets.add(raw);
      this.acceptedIn.set(raw, this.active);
      raw.once('close', () => this.sockets.delete(raw));
      // Decided now, while the client end is open (a client that refuses the certificate closes it at once).
      if (this.foreign && raw.remotePort && this.foreign(raw.remotePort, raw.localPort!)) {
        this.foreignSockets.add(raw);
        this.foreignConnections++;
      }
    });
    server.on('secureConnection', (socket: TLSSocket) => {
      this.outcomes++;
      if (this.isForeign(socket)) return void this.socketRun.set(socket, undefined);
      const cert = certSubject(socket);
      const run = this.runAtAccept(socket);
      this.socketRun.set(socket, run);
      run?.transcript.record({
        kind: 'tls',
        listener: kind,
        ok: true,
        clientCert: cert.presented,
        ...(cert.subject ? { clientCertSubject: cert.subject } : {}),
      });
    });
    server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: TLSSocket) => {
      this.outcomes++;
      if (this.isForeign(socket)) return;
      this.runAtAccept(socket)?.transcript.record({
        kind: 'tls',
        listener: kind,
        ok: false,
        error: err.code ?? err.message,
        clientCert: false,
      });
    });
  }

  /**
   * Resolves once every connection accepted so far has a handshake outcome on record, or after
   * `maxMs`. A client that refuses a certificate returns at once; the listener learns of the failed
   * handshake a moment later, and on a loaded machine that moment can outlast a fixed pause.
   */
  async handshakesSettled(maxMs: number): Promise<void> {
    const end = Date.now() + maxMs;
    while (this.outcomes < this.accepted && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  }

  /** The origin of a transport's listener of a TLS kind ('tls', 'mtls') for the run of `key` (its own, where it has one), where there is one. */
  transportOrigin(name: string, kind: ListenerKind, key?: string): string | undefined {
    return ((key !== undefined && this.ownListeners.get(key)?.get(name)) || this.transportListeners.get(name))?.origin(kind);
  }

  origin(kind: ListenerKind): string {
    const l = this.listeners.get(kind);
    if (!l) throw new Error(`[harness] no ${kind} listener`);
    return l.origin;
  }

  /** Base URL of a run on a listener: `https://127.0.0.1:<port>/t/<key>`. */
  base(kind: ListenerKind, key: string): string {
    return `${this.origin(kind)}/t/${key}`;
  }

  beginRun(key: string, transcript: Transcript): RunSlot {
    if (this.runs.has(key)) throw new Error(`[harness] run ${key} already active`);
    const slot: RunSlot = { key, transcript, handlers: [], streams: new Set() };
    this.runs.set(key, slot);
    this.active = slot;
    return slot;
  }

  endRun(key: string): void {
    const slot = this.runs.get(key);
    if (!slot) return;
    for (const res of slot.streams) res.destroy();
    for (const l of this.transportListeners.values()) l.endRun(slot);
    for (const l of this.ownListeners.get(key)?.values() ?? []) l.endRun(slot);
    this.runs.delete(key);
    if (this.active === slot) this.active = undefined;
  }

  /**
   * Closes every listener. Every connection still open is destroyed first, whatever state it is in (a
   * TCP connection that never began its handshake, an HTTP/2 session whose client died with calls
   * open): a listener's close waits for its connections, and a client must never hold the run's end.
   */
  async close(): Promise<void> {
    for (const key of [...this.runs.keys()]) this.endRun(key);
    const transports = [...this.transportListeners.values(), ...[...this.ownListeners.values()].flatMap((m) => [...m.values()])].map((l) => l.close());
    this.transportListeners.clear();
    this.ownListeners.clear();
    for (const l of this.listeners.values()) {
      l.server.close();
      l.server.closeAllConnections();
    }
    for (const raw of this.sockets) raw.destroy();
    this.sockets.clear();
    await Promise.all([
      ...transports,
      ...[...this.listeners.values()].map((l) => new Promise<void>((resolve) => (l.server.listening ? l.server.once('close', () => resolve()) : resolve()))),
    ]);
  }

  private async onRequest(kind: ListenerKind, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const listener = this.listeners.get(kind)!;
    const path = redactQuery(req.url ?? '/');
    const m = /^\/t\/([^/]+)\//.exec(path);
    const slot = m ? this.runs.get(m[1]!) : undefined;
    if (!slot) {
      // A path that names no run (`OPTIONS *`, a path of no peer's) on a connection whose handshake is on record in a
      // run that is still active: the client's call all the same, recorded there, as the gRPC listener records it.
      const on = this.socketRun.get(req.socket as TLSSocket);
      if (!m && on && [...this.runs.values()].includes(on)) {
        const ev = recordRequest(on.transcript, kind, listener.origin, req, path);
        req.resume();
        refuse(on.transcript, ev, res, 404, 'no scenario run at this path: the peer serves only the paths of its card', 'unknown scenario run');
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown scenario run');
      return;
    }
    this.noteConnection(kind, req.socket as TLSSocket, slot);
    const ev = recordRequest(slot.transcript, kind, listener.origin, req, path);
    if (this.isForeign(req.socket as TLSSocket))
      // The path names this run, yet the owner lookup tied the connection to no process of its client: the lookup
      // was blind (its handshake is missing from the transcript), and the run cannot be graded on it.
      slot.transcript.record({
        kind: 'harness',
        level: 'error',
        message: `request #${ev.seq} names this run but came on a connection no process of the client under test was found holding (from port ${req.socket.remotePort ?? '?'}): its TLS handshake was not recorded, so the run is not graded`,
      });
    const body = await admit(slot.transcript, ev, req, res);
    if (!body) return;
    const method = req.method ?? 'GET';
    // The peer reads the request as sent (a REST `pageToken` is a cursor it made); only the transcript's copy is redacted.
    const request = toRequest(listener.origin + (req.url ?? '/'), method, req, ev.seq, body);
    const response = await peerResponse(slot, ev, res, request, listener.origin, `${method} ${path}`);
    if (response) await answer(slot.transcript, slot.streams, ev, res, response);
  }

  /**
   * A connection whose handshake is on record in another run (kept alive across runs by the client),
   * or in none (made while no run was active): this run records it once, before the request.
   */
  private noteConnection(kind: ListenerKind, socket: TLSSocket, slot: RunSlot): void {
    const was = this.socketRun.get(socket);
    if (this.socketRun.has(socket) && was !== slot) {
      slot.transcript.record(connectionEvent(kind, socket, !!was));
      this.socketRun.set(socket, slot);
    }
  }
}

/**
 * Reads a request's body and decides whether a peer may see it: too large, past the run's input
 * budget, or of a method a Fetch Request cannot carry, it is answered here (undefined).
 */
async function admit(transcript: Transcript, ev: HttpEvent, req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  let body: Buffer;
  try {
    body = await readBody(req);
  } catch (err) {
    // What still comes of the body is read and dropped for a while (respond.ts), so the client gets this answer.
    refuse(transcript, ev, res, 413, (err as Error).message, 'request body too large');
    return undefined;
  }
  if (body.length > 0) ev.requestDigest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  // Past the run's input budget (a flood of large requests): answered without reaching a peer, which would store it.
  if (!transcript.receive(body.length)) {
    const note = `past the ${RUN_INPUT_BYTES / 1024 / 1024} MiB of requests one scenario run takes: not passed to the peer`;
    refuse(transcript, ev, res, 429, note, 'too much sent in this scenario run');
    return undefined;
  }
  const method = req.method ?? 'GET';
  // Methods a Fetch Request cannot carry are the client's odd choice, not a harness fault.
  if (!['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'].includes(method)) {
    refuse(transcript, ev, res, 405, `method ${method} is not served`, 'method not allowed', { allow: 'GET, POST' });
    return undefined;
  }
  return body;
}

/** The Fetch Request the peers' handlers see: the client's headers, the event's sequence number, the body where a method carries one. */
function toRequest(url: string, method: string, req: IncomingMessage, seq: number, body: Buffer): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !k.startsWith(':')) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  headers.set(SEQ_HEADER, String(seq));
  return new Request(url, {
    method,
    headers,
    ...(body.length > 0 && method !== 'GET' && method !== 'HEAD' ? { body: new Uint8Array(body) } : {}),
  });
}

/** The run's peers' answer to a request; none (answered here) where no handler serves it or one threw, a fault of the harness's. */
async function peerResponse(slot: RunSlot, ev: HttpEvent, res: ServerResponse, request: Request, baseUrl: string, what: string): Promise<Response | undefined> {
  let response: Response | undefined;
  try {
    response = await getResponse(slot.handlers, request, { baseUrl });
  } catch (err) {
    slot.transcript.record({ kind: 'harness', level: 'error', message: `peer handler threw on ${what}: ${(err as Error).stack ?? String(err)}` });
    refuse(slot.transcript, ev, res, 500, undefined, 'harness error (not the client’s fault)');
    return undefined;
  }
  if (!response) refuse(slot.transcript, ev, res, 404, 'no handler for this path', 'not found');
  return response;
}
