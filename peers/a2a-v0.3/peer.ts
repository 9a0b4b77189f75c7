/**
 * An A2A v0.3 JSON-RPC peer: the same scripted runtime as the v1.0 peer, spoken in v0.3.
 *
 * - The card is a v0.3 card (`url`, `preferredTransport`, `protocolVersion`, `type`-tagged security
 *   schemes), served at `/.well-known/agent-card.json` (v0.3.0 §5.3) and at the legacy
 *   `/.well-known/agent.json` that v0.3-era servers kept serving.
 * - Each call is decoded (./codec.ts) into its dialect-neutral operation and handed to the v1.0
 *   method table, whose answer is encoded back: v0.3 method names, `kind`-tagged objects, kebab-case
 *   states, `status-update` / `artifact-update` events with `final`. The transcript keeps the neutral
 *   operation as `rpc.method` and the wire's as `rpc.wireMethod`; the ledger keeps canonical states.
 * - No `A2A-Version` is needed or checked: v0.3 has none.
 */
import { getResponse, http, HttpResponse, type RequestHandler } from 'msw';
import { fillCard, type PeerDescription } from '../../harness/core/scenario.js';
import type { PeerInstance, PeerRunContext } from '../context.js';
import { authParts, TOKEN_PATH } from '../a2a-v1/auth.js';
import { cardHandler } from '../a2a-v1/card.js';
import { RpcError } from '../a2a-v1/errors.js';
import { eventOf, isObj } from '../a2a-v1/event.js';
import type { PeerParts } from '../a2a-v1/peer.js';
import { markViaV03, recordWireCall, rpcHandler } from '../a2a-v1/rpc.js';
import { DROP_HEADER } from '../../harness/core/transcript.js';
import { cardIn, requestIn, resultOut, streamResultOut } from './codec.js';

/** The legacy card path v0.3-era servers also served (renamed to agent-card.json in v0.3.0). */
export const LEGACY_CARD_PATH = '/.well-known/agent.json';

/** Rewrites each `data:` frame of a v1.0 event stream into its v0.3 spelling. */
function sseOut(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const dec = new TextDecoder();
  const enc = new TextEncoder();
  let buf = '';
  const rewrite = (frame: string) =>
    frame
      .split('\n')
      .map((line) => {
        if (!line.startsWith('data: ')) return line;
        try {
          const msg = JSON.parse(line.slice(6)) as Record<string, unknown>;
          if (msg.result !== undefined) msg.result = streamResultOut(msg.result);
          return `data: ${JSON.stringify(msg)}`;
        } catch {
          return line;
        }
      })
      .join('\n');
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buf += dec.decode(chunk, { stream: true });
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          controller.enqueue(enc.encode(`${rewrite(buf.slice(0, i))}\n\n`));
          buf = buf.slice(i + 2);
        }
      },
      flush(controller) {
        if (buf) controller.enqueue(enc.encode(rewrite(buf)));
      },
    }),
  );
}

export function a2aV03Peer(desc: PeerDescription, ctx: PeerRunContext, parts: PeerParts = {}): PeerInstance {
  const rt = desc.runtime;
  const rpcUrl = `${ctx.base(rt.rpcListener)}/rpc`;
  const vars = { rpcUrl, tokenUrl: `${ctx.base(rt.rpcListener)}${TOKEN_PATH}` };
  const filled = fillCard(desc.card, vars);
  const card = parts.finishCard ? parts.finishCard(filled, ctx) : filled;
  const base = ctx.base(rt.cardListener);
  const cardUrl = `${base}/.well-known/agent-card.json`;
  // The neutral runtime works from the card read as v1.0, at an interface it speaks internally.
  const neutral = { ...cardIn(card), supportedInterfaces: [{ url: rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] };
  const extended = rt.extendedCard ? fillCard(rt.extendedCard, vars) : undefined;
  // Every call reaches the core through the v0.3 endpoint, so every push goes out in v0.3's shape (the Task).
  const core = rpcHandler({ rpcUrl, runtime: rt, card: neutral, ctx, ...(extended ? { extendedCard: extended } : {}) });
  // The runtime's own auth (a token endpoint beside the RPC, a gate in front of it), as on a v1.0 peer.
  const auth = rt.auth ? authParts(rt.auth, ctx, vars.tokenUrl) : undefined;
  const handlers: RequestHandler[] = [
    cardHandler(ctx, cardUrl, card),
    cardHandler(ctx, `${base}${LEGACY_CARD_PATH}`, card),
    ...(auth?.parts.origins?.(ctx, card) ?? []),
    ...(parts.origins?.(ctx, card) ?? []),
    ...(auth?.parts.gates?.(ctx, rpcUrl, 'a2a-v0.3') ?? []),
    ...(parts.gates?.(ctx, rpcUrl, 'a2a-v0.3') ?? []),
    v03Endpoint(ctx, rpcUrl, rpcUrl, core),
  ];
  return { card, cardUrl, handlers, ...(auth ? { credentials: [auth.credentials] } : {}) };
}

/**
 * A v0.3 JSON-RPC endpoint at `url` in front of a neutral (v1.0) method table answering at
 * `coreUrl`: a v0.3 peer's only endpoint, or a v1.0 peer's second interface at protocol version 0.3.
 */
export function v03Endpoint(ctx: PeerRunContext, url: string, coreUrl: string, core: RequestHandler): RequestHandler {
  return http.post(url, async ({ request }) => {
    const ev = eventOf(ctx, request);
    if (!ev) return new HttpResponse('too many requests in this scenario run', { status: 429 });
    const raw = await request.text();
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      ev.rpcError = { code: -32700, message: 'Invalid JSON payload' };
      return HttpResponse.json({ jsonrpc: '2.0', id: null, error: new RpcError('parse').toJson() });
    }
    const id = isObj(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : null;
    // An id that is not a string, a number or null is an invalid request (v0.3.0 §6.11.1; JSON-RPC 2.0 §4), answered with a null id.
    const badId = isObj(body) && body.id !== undefined && body.id !== null && id === null;
    if (!isObj(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || badId) {
      ev.rpcError = { code: -32600, message: 'Invalid Request' };
      if (badId && isObj(body)) ev.note = `JSON-RPC id is not a string, number or null: ${Array.isArray(body.id) ? 'array' : typeof body.id}`;
      return HttpResponse.json({ jsonrpc: '2.0', id, error: new RpcError('invalidRequest').toJson() });
    }
    const wireMethod = body.method.slice(0, 200);
    const call = requestIn(body.method, body.params);
    if (!call) {
      recordWireCall(ev, body, raw, 'a2a-v0.3');
      const err = new RpcError('methodNotFound', body.method).toJson();
      ev.rpcError = { code: err.code, message: err.message };
      return HttpResponse.json({ jsonrpc: '2.0', id, error: err });
    }
    // The neutral operation, as the v1.0 method table takes it (same sequence number: the same event).
    const headers = new Headers(request.headers);
    headers.set('a2a-version', '1.0');
    headers.set('content-type', 'application/json');
    markViaV03(headers); // push configs set through this interface are delivered as v0.3 Tasks
    // v0.3 opts into extensions with X-A2A-Extensions (v0.3.0 docs/topics/extensions.md); v1.0 with A2A-Extensions.
    const ext = request.headers.get('x-a2a-extensions');
    if (ext !== null && !headers.has('a2a-extensions')) headers.set('a2a-extensions', ext);
    const query = new URL(request.url).search;
    const inner = new Request(`${coreUrl}${query}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: call.op, params: call.params }),
    });
    const res = await getResponse([core], inner);
    if (ev.rpc) ev.rpc.wireMethod = wireMethod;
    if (!res) return new HttpResponse('harness error: the neutral method table did not answer', { status: 500 });
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('text/event-stream') && res.body) return new HttpResponse(sseOut(res.body), { status: res.status, headers: res.headers });
    if (!type.startsWith('application/json')) return res;
    const out = (await res.json()) as Record<string, unknown>;
    // The extended card is the runtime's own, written in v0.3 already; everything else is encoded.
    if (out.result !== undefined && call.op !== 'GetExtendedAgentCard') out.result = resultOut(call.op, out.result);
    // A scripted drop (runtime.drop) cuts the v0.3 answer as it would the v1.0 one.
    const drop = res.headers.get(DROP_HEADER);
    return HttpResponse.json(out, { status: res.status, ...(drop !== null ? { headers: { [DROP_HEADER]: drop } } : {}) });
  });
}
