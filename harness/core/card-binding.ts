/**
 * A scenario told over another protocol binding (A2A v1.0 §5: JSON-RPC, gRPC, HTTP+JSON), as
 * card-v03.ts tells one in another dialect: the same peer, runtime and story, its card's JSON-RPC
 * interface replaced by one of the other binding at the same place in `supportedInterfaces` (so every
 * card pointer still points where it did). Ids `<id>.grpc` and `<id>.rest`. Chosen per run by the
 * bindings the client declares (`run --binding`); the catalogue holds the JSON-RPC telling.
 */
import { GRPC_LISTENER_KINDS } from './scenario/runtime.js';
import type { Scenario } from './scenario/scenario.js';
import { BINDINGS, type Binding } from './protocol/types.js';

/** Each binding's id suffix, its card placeholder, and its name in prose. */
export const BINDING_TELLING: Readonly<Record<Exclude<Binding, 'JSONRPC'>, { suffix: string; placeholder: string; name: string }>> = {
  GRPC: { suffix: 'grpc', placeholder: '{{grpcUrl}}', name: 'gRPC' },
  'HTTP+JSON': { suffix: 'rest', placeholder: '{{restUrl}}', name: 'HTTP+JSON' },
};

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The binding a scenario is told over: its telling's, else its card's first interface's (a v0.3 card: its preferred transport). */
export function scenarioBinding(s: Pick<Scenario, 'binding' | 'peer'>): string {
  if (s.binding) return s.binding;
  const card = s.peer.card;
  if (s.peer.dialect === 'a2a-v0.3') return typeof card.preferredTransport === 'string' ? card.preferredTransport : 'JSONRPC';
  const first = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces[0] : undefined;
  return isObj(first) && typeof first.protocolBinding === 'string' ? first.protocolBinding : 'JSONRPC';
}

/** Why a scenario cannot be told over `binding`, or undefined. */
export function untellable(s: Scenario, binding: Exclude<Binding, 'JSONRPC'>): string | undefined {
  if (s.binding) return `already told over ${s.binding}`;
  if (s.peer.dialect === 'a2a-v0.3') return 'a v0.3 scenario: the peers speak v0.3 over JSON-RPC only';
  if (s.peer.runtime.speaks) return 'its JSON-RPC interface speaks another dialect than the card declares (runtime.speaks): a scenario about that interface';
  const ifaces = Array.isArray(s.peer.card.supportedInterfaces) ? s.peer.card.supportedInterfaces : [];
  if (ifaces.length !== 1 || !isObj(ifaces[0]) || ifaces[0].url !== '{{rpcUrl}}' || ifaces[0].protocolBinding !== 'JSONRPC')
    return 'a card with other interfaces than the one JSON-RPC interface: a scenario about the choice between interfaces';
  // The gRPC listeners are the RPC listeners' kinds (peers/wires/grpc-v1/host.ts GRPC_KINDS): a card origin's kind has none.
  if (binding === 'GRPC' && !(GRPC_LISTENER_KINDS as readonly string[]).includes(s.peer.runtime.rpcListener))
    return `its interface sits on the ${s.peer.runtime.rpcListener} listener, which has no gRPC counterpart`;
  return undefined;
}

/** The card with its JSON-RPC interface at `{{rpcUrl}}` replaced by the binding's. */
function cardOver(card: Json, binding: Exclude<Binding, 'JSONRPC'>): Json {
  const ifaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  return {
    ...card,
    supportedInterfaces: ifaces.map((i) =>
      isObj(i) && i.url === '{{rpcUrl}}' && i.protocolBinding === 'JSONRPC' ? { ...i, url: BINDING_TELLING[binding].placeholder, protocolBinding: binding } : i,
    ),
  };
}

/** The scenario a telling over a binding was made from: `<id>.grpc` and `<id>.rest` are `<id>`'s. */
export function toldFrom(id: string): string {
  for (const t of Object.values(BINDING_TELLING)) if (id.endsWith(`.${t.suffix}`)) return id.slice(0, -t.suffix.length - 1);
  return id;
}

/** The binding a told scenario's id names (`<id>.grpc`: GRPC), or JSON-RPC for any other id. */
export function bindingOfId(id: string): Binding {
  for (const [b, t] of Object.entries(BINDING_TELLING)) if (id.endsWith(`.${t.suffix}`)) return b as Binding;
  return 'JSONRPC';
}

/** The same scenario told over `binding`: `<id>.<suffix>`, for a client that declares that binding. */
export function scenarioOverBinding(s: Scenario, binding: Exclude<Binding, 'JSONRPC'>): Scenario {
  const t = BINDING_TELLING[binding];
  const extended = s.peer.runtime.extendedCard;
  return {
    ...s,
    id: `${s.id}.${t.suffix}`,
    title: `${s.title} (over ${t.name})`,
    spec: `${s.spec}; told over the ${t.name} binding`,
    binding,
    peer: {
      ...s.peer,
      card: cardOver(s.peer.card, binding),
      ...(extended ? { runtime: { ...s.peer.runtime, extendedCard: cardOver(extended, binding) } } : {}),
    },
  };
}

/**
 * The scenarios as told over each of `bindings`: a scenario that can be told over a binding other
 * than JSON-RPC is, once per such binding (and kept as it is where `bindings` holds JSON-RPC); one
 * that cannot (a v0.3 card, a card of several interfaces, a told one) is kept as it is.
 */
export function tellOver<T extends { scenario: Scenario }>(entries: readonly T[], bindings: readonly Binding[]): T[] {
  const others = bindings.filter((b): b is Exclude<Binding, 'JSONRPC'> => b !== 'JSONRPC');
  if (others.length === 0) return [...entries];
  const out = entries.flatMap((e) => {
    const told = others.filter((b) => !untellable(e.scenario, b)).map((b) => ({ ...e, scenario: scenarioOverBinding(e.scenario, b) }));
    if (told.length === 0) return [e];
    return bindings.includes('JSONRPC') ? [e, ...told] : told;
  });
  // Entries told already (a catalogue told before its run tells it again) are kept once.
  const seen = new Set<string>();
  return out.filter((e) => !seen.has(e.scenario.id) && seen.add(e.scenario.id));
}

/** The standard bindings a scenario's card offers, in its order. */
function offeredBindings(s: Pick<Scenario, 'binding' | 'peer'>): string[] {
  const card = s.peer.card;
  const named =
    s.peer.dialect === 'a2a-v0.3'
      ? [
          typeof card.preferredTransport === 'string' ? card.preferredTransport : 'JSONRPC',
          ...(Array.isArray(card.additionalInterfaces) ? card.additionalInterfaces : []).map((i) => (isObj(i) ? String(i.transport ?? '') : '')),
        ]
      : (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []).map((i) => (isObj(i) ? String(i.protocolBinding ?? '') : ''));
  return [...new Set(named.filter((b) => (BINDINGS as readonly string[]).includes(b)))];
}

/**
 * Why a client that declares `declared` bindings (none: JSON-RPC) does not run a scenario, or
 * undefined: a telling over a binding it does not declare, or a card whose standard bindings are all
 * ones it does not declare. A card that offers none of the standard bindings (only a custom one) is
 * run: declining it is the client's part.
 */
export function bindingProblem(declared: readonly Binding[] | undefined, s: Pick<Scenario, 'binding' | 'peer'>): string | undefined {
  const spoken: readonly string[] = declared ?? ['JSONRPC'];
  const assumed = declared ? '' : ' (none declared in hello: JSONRPC assumed)';
  if (s.binding) return spoken.includes(s.binding) ? undefined : `the scenario is told over ${s.binding}; the client declares ${spoken.join(', ')}${assumed}`;
  const offered = offeredBindings(s);
  if (offered.length > 0 && !offered.some((b) => spoken.includes(b)))
    return `the card offers ${offered.join(', ')}; the client declares ${spoken.join(', ')}${assumed} (run it over another binding with --binding)`;
  return undefined;
}
