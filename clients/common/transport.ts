/**
 * The clients' A2A v1.0 JSON-RPC transport: global `fetch` with an undici `Agent` as dispatcher,
 * so the same code runs over real sockets and under msw's in-process interception.
 * A client sees only the wire: this file imports nothing from the harness but core's types.
 */
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import { Agent } from 'undici';
import type { ClientTls } from '../../harness/core/vocabulary/types.js';
import type { Dialect } from '../../harness/core/vocabulary/types.js';
import { challengeSchemes, type TokenSource } from './auth.js';
import { decodeResult, decodeStreamResult, encodeCall } from './dialect-v03.js';

export type RpcOutcome =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; kind: 'http'; status: number; text: string; challenge?: string }
  | { ok: false; kind: 'rpc'; code: number; message: string }
  | { ok: false; kind: 'network'; code: string; message: string }
  /**
   * The answer began (its status and headers came) and the connection closed before its body was
   * whole: the request reached the agent, and what the agent did with it is unknown.
   */
  | { ok: false; kind: 'cut'; status: number; code: string; message: string };

export interface TransportOptions {
  tls: ClientTls;
  signal: AbortSignal;
  /** Skip certificate verification (a mistake, for the naive client only). */
  insecure?: boolean;
  /** Send the A2A-Version header (spec §3.6.1). */
  versionHeader?: boolean;
  /** Repeat a call answered 401 with the same credentials, up to 3 times (a mistake, for the naive client only). */
  repeatsChallengedCall?: boolean;
}

/** Error code of a failed fetch: undici puts the socket/TLS error in `cause`. */
export function networkCode(err: unknown): { code: string; message: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  return { code: e.cause?.code ?? e.code ?? e.name ?? 'ERROR', message: e.cause?.message ?? e.message ?? String(err) };
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
  private constructor(
    private readonly agent: Agent,
    private readonly opts: TransportOptions,
  ) {}

  static async open(opts: TransportOptions): Promise<A2ATransport> {
    const [ca, cert, key] = await Promise.all([
      readFile(opts.tls.caFile, 'utf8'),
      readFile(opts.tls.clientCertFile, 'utf8'),
      readFile(opts.tls.clientKeyFile, 'utf8'),
    ]);
    const agent = new Agent({
      connect: { secureContext: secureContextOf(ca, cert, key), rejectUnauthorized: !opts.insecure },
      keepAliveTimeout: 1000,
    });
    return new A2ATransport(agent, opts);
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
  private async json(url: string, init: RequestInit): Promise<{ ok: true; json: unknown } | Exclude<RpcOutcome, { ok: true }>> {
    let res: Response;
    try {
      res = await this.fetch(url, init);
    } catch (err) {
      if (this.opts.signal.aborted) throw err;
      return { ok: false, kind: 'network', ...networkCode(err) };
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
    if (!res.ok)
      return {
        ok: false,
        kind: 'http',
        status: res.status,
        text,
        ...(res.headers.get('www-authenticate') ? { challenge: res.headers.get('www-authenticate')! } : {}),
      };
    try {
      return { ok: true, json: JSON.parse(text) };
    } catch {
      return { ok: false, kind: 'http', status: res.status, text: 'response is not JSON' };
    }
  }

  /**
   * GETs a JWKS. A redirect is an error, never followed: a trusted JWKS URL that redirects elsewhere
   * would make the other origin's keys trusted.
   */
  getJwks(url: string): Promise<{ ok: true; json: unknown } | Exclude<RpcOutcome, { ok: true }>> {
    return this.json(url, { headers: this.headers({ Accept: 'application/jwk-set+json, application/json' }), redirect: 'error' });
  }

  /** GETs a JSON document (the Agent Card). */
  getJson(url: string): Promise<{ ok: true; json: unknown } | Exclude<RpcOutcome, { ok: true }>> {
    return this.json(url, { headers: this.headers({ Accept: 'application/json' }) });
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

  /** One JSON-RPC call. `id` may be pinned to resend a request byte for byte; `headers` add service parameters. */
  async rpc(url: string, method: string, params: unknown, o: { id?: number; headers?: Record<string, string> } = {}): Promise<RpcOutcome> {
    const id = o.id ?? this.nextId++;
    const v03 = this.dialect === 'a2a-v0.3' ? encodeCall(method, params) : undefined;
    if (this.dialect === 'a2a-v0.3' && !v03) return { ok: false, kind: 'rpc', code: -32601, message: `${method} has no A2A v0.3 method` };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: v03 ? v03.method : method, params: v03 ? v03.params : params });
    const send = async () => {
      let auth: Record<string, string>;
      try {
        auth = await this.authorization();
      } catch (err) {
        if (this.opts.signal.aborted) throw err;
        return { ok: false as const, kind: 'network' as const, ...networkCode(err) };
      }
      return this.json(url, {
        method: 'POST',
        headers: this.headers({ 'Content-Type': 'application/json', Accept: 'application/json', ...(o.headers ?? {}), ...auth }),
        body,
      });
    };
    const out = await this.meetChallenge(await send(), send);
    if (!out.ok) return out;
    const result = this.rpcResult(out.json);
    return result.ok && v03 ? { ok: true, result: decodeResult(method, (out.json as { result?: unknown }).result) } : result;
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

  /** A JSON-RPC call answered with SSE: yields each event's `result` until the stream closes. */
  async *rpcStream(
    url: string,
    method: string,
    params: unknown,
    extraHeaders: Record<string, string> = {},
  ): AsyncGenerator<Record<string, unknown>, RpcOutcome | undefined> {
    const v03 = this.dialect === 'a2a-v0.3' ? encodeCall(method, params) : undefined;
    if (this.dialect === 'a2a-v0.3' && !v03) return { ok: false, kind: 'rpc', code: -32601, message: `${method} has no A2A v0.3 method` };
    const body = JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method: v03 ? v03.method : method, params: v03 ? v03.params : params });
    type Opened = { ok: true; res: Response } | Exclude<RpcOutcome, { ok: true }>;
    const open = async (): Promise<Opened> => {
      try {
        const res = await this.fetch(url, {
          method: 'POST',
          headers: this.headers({ 'Content-Type': 'application/json', Accept: 'text/event-stream', ...extraHeaders, ...(await this.authorization()) }),
          body,
        });
        if (res.ok) return { ok: true, res };
        return {
          ok: false,
          kind: 'http',
          status: res.status,
          text: await res.text(),
          ...(res.headers.get('www-authenticate') ? { challenge: res.headers.get('www-authenticate')! } : {}),
        };
      } catch (err) {
        if (this.opts.signal.aborted) throw err;
        return { ok: false, kind: 'network', ...networkCode(err) };
      }
    };
    const opened = await this.meetChallenge(await open(), open);
    if (!opened.ok) return opened;
    const res = opened.res;
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        if (this.opts.signal.aborted) throw err;
        return { ok: false, kind: 'cut', status: res.status, ...networkCode(err) };
      }
      let body: { error?: { code?: number; message?: string } };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return { ok: false, kind: 'http', status: res.status, text: 'neither an event stream nor JSON' };
      }
      if (body.error) return { ok: false, kind: 'rpc', code: Number(body.error.code), message: String(body.error.message ?? '') };
      return { ok: false, kind: 'http', status: res.status, text: 'expected text/event-stream' };
    }
    const { EventSourceParserStream } = await import('eventsource-parser/stream');
    const events = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    const reader = (events as unknown as AsyncIterable<{ data: string }>)[Symbol.asyncIterator]();
    // Whether the body ended by itself (closed or cut); otherwise it is closed on the way out, as
    // `for await` would: the caller returned early, or an event ended the call.
    let ended = false;
    try {
      for (;;) {
        let next: IteratorResult<{ data: string }>;
        try {
          next = await reader.next();
        } catch (err) {
          // The connection closed in the middle of the stream. The events so far were yielded; the
          // caller learns that the stream was cut, not closed, and can follow the task another way.
          ended = true;
          if (this.opts.signal.aborted) throw err;
          return { ok: false, kind: 'cut', status: res.status, ...networkCode(err) };
        }
        if (next.done) {
          ended = true;
          return undefined;
        }
        let msg: { result?: Record<string, unknown>; error?: { code?: number; message?: string } };
        try {
          msg = JSON.parse(next.value.data) as typeof msg;
        } catch {
          return { ok: false, kind: 'http', status: res.status, text: 'an event that is not JSON' };
        }
        if (msg.error) return { ok: false, kind: 'rpc', code: Number(msg.error.code), message: String(msg.error.message ?? '') };
        if (msg.result) yield v03 ? decodeStreamResult(msg.result) : msg.result;
      }
    } finally {
      if (!ended) await reader.return?.().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

export const newMessageId = () => randomUUID();
