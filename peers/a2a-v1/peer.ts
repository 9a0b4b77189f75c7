/**
 * An A2A v1.0 JSON-RPC peer, composed from parts into one ordered msw handler list:
 *
 * 1. the card (`/.well-known/agent-card.json`, after `finishCard`: the step where a card is signed);
 * 2. other origins the peer serves from (a JWKS, a CDN copy of the card…), each on its listener;
 * 3. gates in front of the RPC endpoint (the runtime's auth gate answers 401 with a challenge, or
 *    passes; its token endpoint is an origin part);
 * 4. the JSON-RPC method table, with SSE for the streaming methods.
 *
 * Behaviour comes from the runtime description; these parts only speak the protocol.
 */
import type { RequestHandler } from 'msw';
import { fillCard, type PeerDescription } from '../../harness/core/scenario.js';
import type { PeerInstance, PeerRunContext } from '../context.js';
import type { Dialect } from '../../harness/core/vocabulary/types.js';
import { authParts, TOKEN_PATH } from './auth.js';
import { cardHandler } from './card.js';
import { isObj } from './event.js';
import { v03Endpoint } from '../a2a-v0.3/peer.js';
import { rpcHandler } from './rpc.js';

export interface PeerParts {
  /** Runs on the card once its placeholders are filled: sign it, or change it as the peer's story needs. */
  finishCard?(card: Record<string, unknown>, ctx: PeerRunContext): Record<string, unknown>;
  /** Handlers on other origins of the same peer (another listener, another vendor's certificate). */
  origins?(ctx: PeerRunContext, card: Record<string, unknown>): RequestHandler[];
  /** Handlers in front of an RPC endpoint in `dialect` (default a2a-v1): answer to stop a request, return nothing to let it pass. */
  gates?(ctx: PeerRunContext, rpcUrl: string, dialect?: Dialect): RequestHandler[];
  /** The JWKS documents the parts publish, by URL (for the harness's own check of the signature). */
  jwks?(ctx: PeerRunContext): Array<{ url: string; keys: Array<Record<string, unknown>> }>;
}

export function a2aV1Peer(desc: PeerDescription, ctx: PeerRunContext, parts: PeerParts = {}): PeerInstance {
  const rt = desc.runtime;
  const rpcUrl = `${ctx.base(rt.rpcListener)}/rpc`;
  // `{{negotiationUrl}}` of old scenario files points at nothing any more (ruleset 2).
  // `{{rpcUrl03}}`: a second interface of the same runtime at protocol version 0.3 (a card that offers both dialects).
  const rpcUrl03 = `${ctx.base(rt.rpcListener)}/rpc03`;
  const vars = { rpcUrl, rpcUrl03, negotiationUrl: `${ctx.base(rt.rpcListener)}/negotiate`, tokenUrl: `${ctx.base(rt.rpcListener)}${TOKEN_PATH}` };
  const filled = fillCard(desc.card, vars);
  const card = parts.finishCard ? parts.finishCard(filled, ctx) : filled;
  const cardUrl = `${ctx.base(rt.cardListener)}/.well-known/agent-card.json`;
  // The runtime's own auth (a token endpoint beside the RPC, a gate in front of it), before any other gate.
  const auth = rt.auth ? authParts(rt.auth, ctx, vars.tokenUrl) : undefined;
  const core = rpcHandler({ rpcUrl, runtime: rt, card, ctx, ...(rt.extendedCard ? { extendedCard: fillCard(rt.extendedCard, vars) } : {}) });
  const offers03 = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []).some(
    (i) => isObj(i) && i.url === rpcUrl03 && /^0\.3(\.\d+)?$/.test(String(i.protocolVersion ?? '')),
  );
  const handlers: RequestHandler[] = [
    cardHandler(ctx, cardUrl, card),
    ...(auth?.parts.origins?.(ctx, card) ?? []),
    ...(parts.origins?.(ctx, card) ?? []),
    ...(auth?.parts.gates?.(ctx, rpcUrl) ?? []),
    ...(parts.gates?.(ctx, rpcUrl) ?? []),
    core,
    // The same runtime behind its 0.3 interface, with the same gates in front of it.
    ...(offers03
      ? [
          ...(auth?.parts.gates?.(ctx, rpcUrl03, 'a2a-v0.3') ?? []),
          ...(parts.gates?.(ctx, rpcUrl03, 'a2a-v0.3') ?? []),
          v03Endpoint(ctx, rpcUrl03, rpcUrl, core),
        ]
      : []),
  ];
  const jwks = parts.jwks?.(ctx);
  return { card, cardUrl, handlers, ...(jwks ? { jwks } : {}), ...(auth ? { credentials: [auth.credentials] } : {}) };
}
