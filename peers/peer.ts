/**
 * A peer, composed from parts into one ordered msw handler list:
 *
 * 1. the card at the well-known path of its dialect (and any other path the dialect's agents serve it
 *    at), after `finishCard`: the step where a card is signed;
 * 2. other origins the peer serves from (a JWKS, a CDN copy of the card, the runtime's token endpoint…),
 *    each on its listener;
 * 3. for each interface the peer serves: the gates in front of it (the runtime's auth gate answers 401
 *    with a challenge, or passes), then its endpoint, a wire in front of the one runtime (./endpoint.ts).
 *
 * The interfaces: the card's main one (`{{rpcUrl}}`) in the peer's own dialect, and the interfaces
 * of other wires the card offers at their placeholders (./wires/index.ts). Every interface serves
 * the same runtime: one set of tasks, whatever wire a call came on. Behaviour comes from the runtime
 * description; wires only speak a protocol.
 */
import type { RequestHandler } from 'msw';
import { fillCard } from '../harness/core/scenario/card.js';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import type { PeerInstance, PeerParts, PeerRunContext } from './runtime/context.js';
import { endpoint, incidentsOf, recorderFor } from './endpoint.js';
import { authParts, TOKEN_PATH } from './runtime/auth.js';
import { cardHandler } from './runtime/card.js';
import { isObj } from './runtime/event.js';
import { createRuntime } from './runtime/operations.js';
import { dialectOf, secondInterfaces } from './wires/index.js';
import type { Wire } from './wires/wire.js';

/** Whether the card lists an interface at `url` at the wire's Major.Minor (a patch number allowed). */
function offers(card: Record<string, unknown>, url: string, wire: Wire): boolean {
  const pv = wire.protocolVersion;
  return (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []).some((i) => {
    const v = isObj(i) && i.url === url ? String(i.protocolVersion ?? '') : '';
    return v === pv || (v.startsWith(`${pv}.`) && /^\d+$/.test(v.slice(pv.length + 1)));
  });
}

export function composePeer(desc: PeerDescription, ctx: PeerRunContext, parts: PeerParts = {}): PeerInstance {
  const rt = desc.runtime;
  const own = dialectOf(desc.dialect);
  const rpcBase = ctx.base(rt.rpcListener);
  const rpcUrl = `${rpcBase}/rpc`;
  // Other wires' interfaces a card may offer; a v0.3 card has no place for them (its main wire is the one they would add).
  const others = secondInterfaces().filter((e) => e.wire !== own.wire);
  // `{{negotiationUrl}}` of old scenario files points at nothing any more (ruleset 2).
  const vars: Record<string, string> = {
    rpcUrl,
    ...Object.fromEntries(
      others.flatMap((e) => {
        const url = e.transport ? ctx.transportOrigin?.(e.transport.name, rt.rpcListener) : `${rpcBase}${e.path}`;
        return url === undefined ? [] : [[e.placeholder, url]];
      }),
    ),
    negotiationUrl: `${rpcBase}/negotiate`,
    // The token endpoint beside the RPC, or on an identity provider's origin of its own.
    tokenUrl: `${rt.auth?.tokenListener ? ctx.base(rt.auth.tokenListener) : rpcBase}${TOKEN_PATH}`,
  };
  const filled = fillCard(desc.card, vars);
  const card = parts.finishCard ? parts.finishCard(filled, ctx) : filled;
  const cardBase = ctx.base(rt.cardListener);
  const cardUrl = `${cardBase}${own.cardPaths[0]}`;
  // The card's origin briefly down (runtime.cardUnavailable): its first GETs, on any of its paths, refused for now.
  let cardFetches = 0;
  const down = rt.cardUnavailable;
  const cardDown = down ? () => (++cardFetches <= down.calls ? down : undefined) : undefined;
  // The runtime's own auth (a token endpoint beside the RPC, a gate in front of each interface), before any other gate.
  const auth = rt.auth ? authParts(rt.auth, ctx, vars.tokenUrl!) : undefined;
  const runtime = createRuntime({ runtime: rt, card: own.readCard(card), ctx, ...(rt.extendedCard ? { extendedCard: fillCard(rt.extendedCard, vars) } : {}) });
  const incidents = incidentsOf(runtime);
  // The main interface speaks the peer's dialect, or the one runtime.speaks names whatever the card declares for it.
  const main = rt.speaks ? dialectOf(rt.speaks).wire : own.wire;
  const interfaces = [
    { url: rpcUrl, wire: main },
    ...others
      .flatMap((e) => (vars[e.placeholder] === undefined ? [] : [{ url: vars[e.placeholder]!, wire: e.wire }]))
      .filter((i) => offers(card, i.url, i.wire)),
  ];
  const handlers: RequestHandler[] = [
    ...own.cardPaths.map((path) => cardHandler(ctx, `${cardBase}${path}`, card, cardDown)),
    ...(auth?.parts.origins?.(ctx, card) ?? []),
    ...(parts.origins?.(ctx, card) ?? []),
    ...interfaces.flatMap(({ url, wire }) => [
      ...(auth?.parts.gates?.(ctx, url, recorderFor(wire, url), wire.routes) ?? []),
      ...(parts.gates?.(ctx, url, recorderFor(wire, url), wire.routes) ?? []),
      endpoint(ctx, url, wire, runtime, incidents),
    ]),
  ];
  const jwks = parts.jwks?.(ctx);
  return { card, cardUrl, handlers, ...(jwks ? { jwks } : {}), ...(auth ? { credentials: [auth.credentials] } : {}) };
}
