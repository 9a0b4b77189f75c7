/**
 * The clients' A2A transport: global `fetch` with an undici `Agent` as dispatcher, so the same code
 * runs over real sockets and under msw's in-process interception. One call per A2A operation, on the
 * interface the plan chose: JSON-RPC (v1.0 §9, or v0.3), HTTP+JSON (§11, ./binding-rest.ts) or gRPC
 * (§10, ./binding-grpc.ts), with that interface's tenant in every request (§8.3.2 rule 4). An A2A
 * error comes back as one outcome whatever the binding: kind 'rpc' with §5.4's JSON-RPC code.
 * A client sees only the wire: this file imports nothing from the harness but core's protocol folder (harness/core/protocol/).
 */
import { readPem } from './pem-files.js';
import { randomUUID } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import { Agent } from 'undici';
import type { Binding, ClientTls, Dialect } from '../../harness/core/protocol/types.js';
import { challengeSchemes, type TokenSource } from './auth.js';
import { fromGrpc, GrpcChannel } from './binding-grpc.js';
import { restError, restRequest } from './binding-rest.js';
import { decodeResult, decodeStreamResult, encodeCall } from './dialect-v03.js';
import { fetchFailure, networkCode, pause, readAgain, retryAfterMs, type RpcOutcome } from './outcome.js';
import { notAStream, sseEvents, type SseMistakes } from './sse.js';
import { strictDecode, strictly } from './strict-decode.js';

export { networkCode, pause, type RpcOutcome } from './outcome.js';

export interface TransportOptions {
  tls: ClientTls;
  signal: AbortSignal;
  /** Skip certificate verification (a mistake, for the naive client only). */
  insecure?: boolean;
  /** Send the A2A-Version header (spec §3.6.1). */
  versionHeader?: boolean;
  /** Repeat a call answered 401 with the same credentials, up to 3 times (a mistake, for the naive client only). */
  repeatsChallengedCall?: boolean;
  /**
   * Whether a wait the agent asked for (a 503 or 429 with Retry-After, RFC 9110 §10.2.3; gRPC's
   * UNAVAILABLE with `retry-after`) still fits the run: then the call, on every method and binding,
   * is sent once more, on the same interface, after that wait. Absent: the refusal is the answer.
   */
  waitFits?: (ms: number) => boolean;
  /** How it misreads an event stream (a mistake, for the naive client only). */
  sse?: SseMistakes;
  /** Refuses a v1.0 answer holding a member its message does not define (a mistake, for the naive client only; ./strict-decode.ts). */
  strictDecode?: boolean;
  /** Sends the token it holds on every request, the card's and the JWKS's fetch included (a mistake, for the naive client only). */
  tokenEverywhere?: boolean;
}

/**
 * One TLS context per trust store and client certificate, shared by every connection and every run
 * that uses them: without it, each connection parses the CA, certificate and key again (on a busy
 * property run, about a sixth of the whole process's CPU). Kept small: a run has one PKI.
 */
const contexts = new Map<string, SecureContext>();

function secureContextOf(ca: string, cert: string, key: string): SecureContext {
  const k = `${ca}\0${cert}\0${key}`;
  let ctx = contexts.get(k);
  if (!ctx) {
    ctx = createSecureContext({ ca, cert, key });
    if (contexts.size >= 4) contexts.delete(contexts.keys().next().value!);
    contexts.set(k, ctx);
  }
  return ctx;
}

export class A2ATransport {
  private nextId = 1;
  /** Where A2A requests get their Bearer token (A2A §7.3: credentials "for every A2A request"), once the card names a scheme. */
  auth: TokenSource | undefined;
  /** The dialect of the interface in use: v1.0 sends `A2A-Version: 1.0`; v0.3 sends none (§3.6.1) and spells calls its way. */
  dialect: Dialect = 'a2a-v1';
  /** The binding of the interface in use, and the tenant it sets (every request carries it, §8.3.2 rule 4). */
  binding: Binding = 'JSONRPC';
  tenant: string | undefined;
  /** gRPC channels, one per interface origin, closed with the transport. */
  private readonly channels = new Map<string, GrpcChannel>();
  private constructor(
    private readonly agent: Agent,
    private readonly opts: TransportOptions,
    private readonly pem: { ca: string; cert: string; key: string },
  ) {}

  /** Speaks on the interface a plan chose from now on. */
  use(plan: { dialect: Dialect; binding: Binding; tenant?: string }): void {
    this.dialect = plan.dialect;
    this.binding = plan.binding;
    this.tenant = plan.tenant;
  }

  static async open(opts: TransportOptions): Promise<A2ATransport> {
    const [ca, cert, key] = await Promise.all([readPem(opts.tls.caFile), readPem(opts.tls.clientCertFile), readPem(opts.tls.clientKeyFile)]);
    const agent = new Agent({
      connect: { secureContext: secureContextOf(ca, cert, key), rejectUnauthorized: !opts.insecure },
      keepAliveTimeout: 1000,
    });
    return new A2ATransport(agent, opts, { ca, cert, key });
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const version: Record<string, string> = this.opts.versionHeader === false || this.dialect !== 'a2a-v1' ? {} : { 'A2A-Version': '1.0' };
    if (this.dialect !== 'a2a-v0.3' || extra['A2A-Extensions'] === undefined) return { ...version, ...extra };
    // v0.3 names the extensions header X-A2A-Extensions.
    const { 'A2A-Extensions': ext, ...rest } = extra;
    return { ...version, ...rest, 'X-A2A-Extensions': ext };
  }

  private fetch(url: string, init: RequestInit): Promise<Response> {
    return fetch(url, { ...init, signal: this.opts.signal, dispatcher: this.agent } as RequestInit);
  }

  /** The same TLS and abort signal for requests made elsewhere (the token endpoint, by oauth4webapi). */
  readonly fetchImpl = (url: string, init: RequestInit): Promise<Response> => this.fetch(url, init);

  /** The Authorization header of an A2A request: a token where the card requires one or one is held. */
  private async authorization(): Promise<Record<string, string>> {
    if (!this.auth || (!this.auth.held && !this.auth.plan.required)) return {};
    return { Authorization: `Bearer ${await this.auth.token()}` };
  }

  /**
   * A call answered 401: sent again once with a new token where the challenge names Bearer and the
   * card's scheme can get one (RFC 9110 §15.5.2: "The user agent MAY repeat the request with a new or
   * replaced Authorization header field"; RFC 6750 §3.1); otherwise the 401 is the answer.
   */
  private async meetChallenge<T extends { ok: boolean }>(out: T, send: () => Promise<T>): Promise<T> {
    const unauthorized = (o: T) => {
      const h = o as unknown as { ok: false; kind?: string; status?: number; challenge?: string };
      return !h.ok && h.kind === 'http' && h.status === 401 ? h : undefined;
    };
    const first = unauthorized(out);
    if (!first) return out;
    if (this.opts.repeatsChallengedCall) {
      // The naive client's reflex: the same call, the same credentials, again.
      for (let i = 0; i < 3 && unauthorized(out) && !this.opts.signal.aborted; i++) out = await send();
      return out;
    }
    if (!this.auth || !challengeSchemes(first.challenge ?? '').includes('bearer')) return out;
    try {
      await this.auth.renew();
    } catch (err) {
      return {
        ok: false,
        kind: 'http',
        status: 401,
        text: `the token endpoint gave no token: ${networkCode(err).message}`,
        challenge: first.challenge,
      } as unknown as T;
    }
    return send();
  }

  /** Sends a request and reads a 2xx JSON answer; network, HTTP and JSON failures as outcomes. */
  private async json(url: string, init: RequestInit, emptyOk = false): Promise<{ ok: true; json: unknown } | Exclude<RpcOutcome, { ok: true }>> {
    let res: Response;
    try {
      res = await this.fetch(url, init);
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      return fetchFailure(err);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      // undici's "terminated": the socket closed in the middle of the body. Not thrown on: the caller
      // decides what a half-received answer means for its call.
      if (this.opts.signal.aborted) throw err;
      return { ok: false, kind: 'cut', status: res.status, ...networkCode(err) };
    }
    if (!res.ok) {
      const wait = res.status === 503 || res.status === 429 ? retryAfterMs(res.headers.get('retry-after')) : undefined;
      return {
        ok: false,
        kind: 'http',
        status: res.status,
        text,
        ...(res.headers.get('www-authenticate') ? { challenge: res.headers.get('www-authenticate')! } : {}),
        ...(wait !== undefined ? { retryAfterMs: wait } : {}),
      };
    }
    if (emptyOk && text.trim() === '') return { ok: true, json: {} };
    try {
      return { ok: true, json: JSON.parse(text) };
    } catch {
      return { ok: false, kind: 'http', status: res.status, text: 'response is not JSON' };
    }
  }

  /**
   * GETs a JWKS, after the wait a 503 or 429 names where it fits. A redirect is an error, never
   * followed: a trusted JWKS URL that redirects elsewhere would make the other origin's keys trusted.
   */
  async getJwks(url: string): Promise<{ ok: true; json: unknown } | Exclude<RpcOutcome, { ok: true }>> {
    const token = this.opts.tokenEverywhere ? await this.authorization() : {};
    const get = () => this.json(url, { headers: this.headers({ Accept: 'application/jwk-set+json, application/json', ...token }), redirect: 'error' });
    return this.honourWait(await get(), get);
  }

  /** GETs a JSON document (the Agent Card); one refused for now (503/429 with Retry-After) again after the wait. */
  async getJson(url: string): Promise<{ ok: true; json: unknown } | Exclude<RpcOutcome, { ok: true }>> {
    const token = this.opts.tokenEverywhere ? await this.authorization() : {};
    const once = () => this.json(url, { headers: this.headers({ Accept: 'application/json', ...token }) });
    return this.honourWait(await once(), once);
  }

  /** POSTs anything as JSON and returns the parsed body of a 2xx answer. */
  async postJson(url: string, body: unknown): Promise<RpcOutcome> {
    const out = await this.json(url, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json', Accept: 'application/json' }),
      body: JSON.stringify(body),
    });
    return out.ok ? { ok: true, result: out.json as Record<string, unknown> } : out;
  }

  /** The params of a request on the interface in use: its tenant set (v1.0 request messages carry `tenant`, §8.3.2 rule 4). */
  private withTenant(params: unknown): Record<string, unknown> {
    const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
    return this.tenant !== undefined && this.dialect === 'a2a-v1' ? { ...p, tenant: this.tenant } : p;
  }

  /**
   * The refusal `out`, or, where it named a wait (Retry-After) that fits the run, the answer to `again` sent after
   * it (and again, while each answer asks for a wait that fits): "not now, in a second" is taken at its word.
   */
  private async honourWait<T extends { ok: boolean }>(out: T, again: () => Promise<T>): Promise<T> {
    // Each answer that asks for a wait is waited out while the run has room for it (waitFits), a few times at most.
    for (let tries = 0; tries < 5; tries++) {
      const o = out as unknown as { ok: boolean; kind?: string; retryAfterMs?: number };
      const wait = !o.ok && o.kind === 'http' ? o.retryAfterMs : undefined;
      if (wait === undefined || !this.opts.waitFits?.(wait) || this.opts.signal.aborted) return out;
      await pause(wait + 50, this.opts.signal);
      if (this.opts.signal.aborted) return out;
      out = await again();
    }
    return out;
  }

  /** One A2A operation on the interface in use. `id` may be pinned to resend a JSON-RPC request byte for byte; `headers` add service parameters. */
  async rpc(url: string, method: string, params: unknown, o: { id?: number; headers?: Record<string, string> } = {}): Promise<RpcOutcome> {
    const id = o.id ?? (this.binding === 'JSONRPC' ? this.nextId++ : undefined);
    const once = () => this.rpcOnce(url, method, params, { ...o, ...(id !== undefined ? { id } : {}) });
    const out = await readAgain(method, await this.honourWait(await once(), once), async () => this.honourWait(await once(), once), this.opts.signal);
    return this.opts.strictDecode && this.dialect === 'a2a-v1' ? strictly(method, out) : out;
  }

  private async rpcOnce(url: string, method: string, params: unknown, o: { id?: number; headers?: Record<string, string> }): Promise<RpcOutcome> {
    if (this.binding === 'HTTP+JSON') return this.restCall(url, method, this.withTenant(params), o.headers ?? {});
    if (this.binding === 'GRPC') return this.grpcCall(url, method, this.withTenant(params), o.headers ?? {});
    const id = o.id ?? this.nextId++;
    const v03 = this.dialect === 'a2a-v0.3' ? encodeCall(method, params) : undefined;
    if (this.dialect === 'a2a-v0.3' && !v03) return { ok: false, kind: 'rpc', code: -32601, message: `${method} has no A2A v0.3 method` };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: v03 ? v03.method : method, params: v03 ? v03.params : this.withTenant(params) });
    const send = async () => {
      const auth = await this.authOrFailure();
      if ('failure' in auth) return auth.failure;
      return this.json(url, {
        method: 'POST',
        headers: this.headers({ 'Content-Type': 'application/json', Accept: 'application/json', ...(o.headers ?? {}), ...auth.headers }),
        body,
      });
    };
    const out = await this.meetChallenge(await send(), send);
    if (!out.ok) return out;
    const result = this.rpcResult(out.json);
    return result.ok && v03 ? { ok: true, result: decodeResult(method, (out.json as { result?: unknown }).result) } : result;
  }

  /** The Authorization header of a request, or the failure of getting a token (an outcome, unless the run was aborted). */
  private async authOrFailure(): Promise<{ headers: Record<string, string> } | { failure: Exclude<RpcOutcome, { ok: true }> }> {
    try {
      return { headers: await this.authorization() };
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      return { failure: { ok: false, kind: 'network', ...networkCode(err) } };
    }
  }

  /** One operation over HTTP+JSON (§11): its route, a 2xx JSON answer, or the A2A error its google.rpc.Status names (§11.6). */
  private async restCall(url: string, method: string, params: Record<string, unknown>, extra: Record<string, string>): Promise<RpcOutcome> {
    const r = restRequest(method, params);
    if (!r) return { ok: false, kind: 'rpc', code: -32601, message: `${method} has no HTTP+JSON route` };
    const send = async () => {
      const auth = await this.authOrFailure();
      if ('failure' in auth) return auth.failure;
      return this.json(
        `${url.replace(/\/+$/, '')}${r.path}`,
        {
          method: r.verb,
          headers: this.headers({
            ...(r.body ? { 'Content-Type': 'application/a2a+json' } : {}),
            Accept: 'application/a2a+json, application/json',
            ...extra,
            ...auth.headers,
          }),
          ...(r.body ? { body: JSON.stringify(r.body) } : {}),
        },
        true,
      );
    };
    const out = await this.meetChallenge(await send(), send);
    if (out.ok) return { ok: true, result: (out.json && typeof out.json === 'object' ? out.json : {}) as Record<string, unknown> };
    const a2a = out.kind === 'http' ? restError(out.text) : undefined;
    return a2a ? { ok: false, kind: 'rpc', ...a2a } : out;
  }

  private channel(url: string): GrpcChannel {
    const origin = new URL(url).origin;
    let ch = this.channels.get(origin);
    if (!ch) {
      ch = new GrpcChannel(url, this.pem, this.opts.insecure === true);
      this.channels.set(origin, ch);
    }
    return ch;
  }

  /** The service parameters of a gRPC call as metadata (§10.2): the version, extensions, credentials. */
  private async grpcMetadata(extra: Record<string, string>): Promise<Record<string, string> | { failure: Exclude<RpcOutcome, { ok: true }> }> {
    const auth = await this.authOrFailure();
    if ('failure' in auth) return auth;
    return { ...this.headers(extra), ...auth.headers };
  }

  /** One unary operation over gRPC (§10). */
  private async grpcCall(url: string, method: string, params: Record<string, unknown>, extra: Record<string, string>): Promise<RpcOutcome> {
    const send = async (): Promise<RpcOutcome> => {
      const md = await this.grpcMetadata(extra);
      if ('failure' in md) return md.failure as RpcOutcome;
      return fromGrpc(await this.channel(url).unary(method, params, md as Record<string, string>, this.opts.signal));
    };
    return this.meetChallenge(await send(), send);
  }

  private rpcResult(json: unknown): RpcOutcome {
    const body = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
    if (body.error && typeof body.error === 'object') {
      const e = body.error as { code?: number; message?: string };
      return { ok: false, kind: 'rpc', code: Number(e.code), message: String(e.message ?? '') };
    }
    const result = body.result;
    return { ok: true, result: (result && typeof result === 'object' ? result : {}) as Record<string, unknown> };
  }

  /** A streaming operation (SSE for JSON-RPC and HTTP+JSON, a server stream for gRPC): yields each StreamResponse until the stream closes. */
  async *rpcStream(
    url: string,
    method: string,
    params: unknown,
    extraHeaders: Record<string, string> = {},
  ): AsyncGenerator<Record<string, unknown>, RpcOutcome | undefined> {
    if (this.binding === 'GRPC') return yield* this.grpcStream(url, method, this.withTenant(params), extraHeaders);
    const rest = this.binding === 'HTTP+JSON' ? restRequest(method, this.withTenant(params)) : undefined;
    if (this.binding === 'HTTP+JSON' && !rest) return { ok: false, kind: 'rpc', code: -32601, message: `${method} has no HTTP+JSON route` };
    const v03 = this.dialect === 'a2a-v0.3' ? encodeCall(method, params) : undefined;
    if (this.dialect === 'a2a-v0.3' && !v03) return { ok: false, kind: 'rpc', code: -32601, message: `${method} has no A2A v0.3 method` };
    const target = rest ? `${url.replace(/\/+$/, '')}${rest.path}` : url;
    const body = rest
      ? rest.body && JSON.stringify(rest.body)
      : JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: v03 ? v03.method : method, params: v03 ? v03.params : this.withTenant(params) });
    const contentType = rest ? 'application/a2a+json' : 'application/json';
    type Opened = { ok: true; res: Response } | Exclude<RpcOutcome, { ok: true }>;
    const open = async (): Promise<Opened> => {
      try {
        const res = await this.fetch(target, {
          method: rest ? rest.verb : 'POST',
          headers: this.headers({ 'Content-Type': contentType, Accept: 'text/event-stream', ...extraHeaders, ...(await this.authorization()) }),
          ...(body !== undefined ? { body } : {}),
        });
        if (res.ok) return { ok: true, res };
        const text = await res.text();
        const a2a = rest ? restError(text) : undefined;
        if (a2a) return { ok: false, kind: 'rpc', ...a2a };
        const wait = res.status === 503 || res.status === 429 ? retryAfterMs(res.headers.get('retry-after')) : undefined;
        return {
          ok: false,
          kind: 'http',
          status: res.status,
          text,
          ...(res.headers.get('www-authenticate') ? { challenge: res.headers.get('www-authenticate')! } : {}),
          ...(wait !== undefined ? { retryAfterMs: wait } : {}),
        };
      } catch (err) {
        if (this.opts.signal.aborted) throw err;
        return fetchFailure(err);
      }
    };
    const opened = await this.honourWait(await this.meetChallenge(await open(), open), open);
    if (!opened.ok) return opened;
    const res = opened.res;
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) return notAStream(res, this.opts.signal);
    // JSON-RPC frames each event as a response object (§9.4.2); HTTP+JSON sends the StreamResponse as it is (§11.7).
    const decode = (data: unknown): { result?: Record<string, unknown>; error?: { code?: number; message?: string } } => {
      const msg = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
      const out: ReturnType<typeof decode> = rest
        ? msg.error && typeof msg.error === 'object'
          ? { error: restError(JSON.stringify(msg)) ?? { message: 'an error event' } }
          : { result: msg }
        : (msg as { result?: Record<string, unknown> });
      if (out.result && this.opts.strictDecode && this.dialect === 'a2a-v1') strictDecode(method, out.result);
      return out;
    };
    return yield* sseEvents(res, this.opts.signal, decode, v03 ? decodeStreamResult : (r) => r, this.opts.sse);
  }

  /**
   * A server-streaming operation over gRPC (§10.7). A challenge before any event is met as on the other
   * bindings, and a wait the agent asked for before any event honoured: the stream opened again, once.
   */
  private async *grpcStream(
    url: string,
    method: string,
    params: Record<string, unknown>,
    extra: Record<string, string>,
    again = true,
  ): AsyncGenerator<Record<string, unknown>, RpcOutcome | undefined> {
    const md = await this.grpcMetadata(extra);
    if ('failure' in md) return md.failure as RpcOutcome;
    const it = this.channel(url).stream(method, params, md as Record<string, string>, this.opts.signal);
    let first = true;
    let ended = false;
    try {
      for (;;) {
        const next = await it.next();
        if (!next.done) {
          first = false;
          yield next.value;
          continue;
        }
        ended = true;
        if (!next.value) return undefined;
        const out = fromGrpc(next.value);
        if (!first || !again) return out;
        const reopen = { ok: true, result: {} } as const;
        const met = await this.honourWait(await this.meetChallenge<RpcOutcome>(out, async () => reopen), async () => reopen);
        return met === reopen ? yield* this.grpcStream(url, method, params, extra, false) : out;
      }
    } finally {
      // The caller left early (it returned this generator): the call is canceled through the channel's, never left open.
      if (!ended) await it.return(undefined).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    for (const ch of this.channels.values()) ch.close();
    this.channels.clear();
    await this.agent.destroy();
  }
}

export const newMessageId = () => randomUUID();
