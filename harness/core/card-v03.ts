/**
 * A v1.0 card written the v0.3 way, and a scenario expanded to both dialects (issue 11): the same
 * story told by a v0.3 peer, so a family's rules run on both. Pure data; no I/O.
 *
 * What moves (v1.0 proto → v0.3.0 JSON Schema):
 * - `supportedInterfaces[0]` → `url` + `preferredTransport`; the rest → `additionalInterfaces`
 *   (`{url, transport}`); `protocolVersion` "0.3.0";
 * - wrapped security schemes → `type`-tagged ones (`mtlsSecurityScheme` → `{type: "mutualTLS"}`,
 *   `apiKeySecurityScheme.location` → `in`); `securityRequirements` → `security` (scheme → scopes);
 * - `capabilities.extendedAgentCard` → `supportsAuthenticatedExtendedCard`.
 * What v0.3 cannot say: a signed card (no canonical form) is not expanded (`expandable` says why).
 */
import type { CardSignal } from './scenario/card.js';
import type { Scenario } from './scenario/scenario.js';
import { V03_SCHEME_KIND } from './protocol/card-view.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The v1.0 oneof member of a security scheme → its v0.3 `type` tag. */
const KIND_TYPE: Record<string, string> = Object.fromEntries(Object.entries(V03_SCHEME_KIND).map(([type, kind]) => [kind, type]));

const requirementsOut = (list: unknown): Json[] =>
  (Array.isArray(list) ? list : []).map((r) =>
    Object.fromEntries(Object.entries(isObj(r) && isObj(r.schemes) ? r.schemes : {}).map(([k, v]) => [k, isObj(v) && Array.isArray(v.list) ? v.list : []])),
  );

/** A v1.0 card template as a v0.3 card template (placeholders kept). */
export function cardToV03(card: Json): Json {
  const interfaces = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []).filter(isObj);
  const [main, ...rest] = interfaces;
  const caps = isObj(card.capabilities) ? card.capabilities : {};
  const { extendedAgentCard, ...capabilities } = caps;
  const schemes: Json = {};
  for (const [name, s] of Object.entries(isObj(card.securitySchemes) ? card.securitySchemes : {})) {
    if (!isObj(s)) continue;
    const [kind, body] = Object.entries(s)[0] ?? [];
    if (!kind || !KIND_TYPE[kind]) continue;
    const { location, ...fields } = isObj(body) ? body : {};
    schemes[name] = { type: KIND_TYPE[kind], ...fields, ...(location !== undefined ? { in: location } : {}) };
  }
  const skills = (Array.isArray(card.skills) ? card.skills : []).map((k) => {
    if (!isObj(k)) return k;
    const { securityRequirements, ...skill } = k;
    return { ...skill, ...(securityRequirements !== undefined ? { security: requirementsOut(securityRequirements) } : {}) };
  });
  return {
    name: card.name,
    description: card.description,
    url: main?.url ?? '',
    preferredTransport: main?.protocolBinding ?? 'JSONRPC',
    protocolVersion: '0.3.0',
    ...(rest.length ? { additionalInterfaces: rest.map((i) => ({ url: i.url, transport: i.protocolBinding })) } : {}),
    ...(card.provider !== undefined ? { provider: card.provider } : {}),
    version: card.version,
    ...(card.documentationUrl !== undefined ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl !== undefined ? { iconUrl: card.iconUrl } : {}),
    capabilities,
    ...(extendedAgentCard === true ? { supportsAuthenticatedExtendedCard: true } : {}),
    ...(Object.keys(schemes).length ? { securitySchemes: schemes } : {}),
    ...(card.securityRequirements !== undefined ? { security: requirementsOut(card.securityRequirements) } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills,
  };
}

/** Where a v1.0 JSON pointer points in the v0.3 card. */
export function pointerToV03(pointer: string): string {
  if (pointer === '/supportedInterfaces' || pointer === '/supportedInterfaces/0/protocolVersion') return '/protocolVersion';
  if (pointer.startsWith('/supportedInterfaces/0/url')) return '/url';
  if (pointer.startsWith('/securityRequirements')) return pointer.replace('/securityRequirements', '/security');
  if (pointer === '/capabilities/extendedAgentCard') return '/supportsAuthenticatedExtendedCard';
  return pointer;
}

/** Why a scenario cannot be told by a v0.3 peer, or undefined. */
export function expandable(s: Scenario): string | undefined {
  if (s.peer.dialect === 'a2a-v0.3') return 'already a v0.3 scenario';
  if (s.peer.signing) return 'a signed card: v0.3.0 specifies no canonical form to sign';
  if (s.profileConstraints.dialects) return 'a scenario about the choice between dialects';
  return undefined;
}

/** The same scenario told by a v0.3 peer, to a client that speaks v0.3: `<id>.v03`. */
export function scenarioToV03(s: Scenario): Scenario {
  const signals: CardSignal[] = s.peer.signals.map((x) => ({ ...x, pointer: pointerToV03(x.pointer) }));
  // docs/duties.md §12: the handshake duties come from A2A v1.0 delegation; told in v0.3, their rules are this harness's extension of them.
  const extendsSeed = s.rule.startsWith('HS-');
  return {
    ...s,
    id: `${s.id}.v03`,
    title: `${s.title} (A2A v0.3)`,
    spec: `${s.spec}; told by an A2A v0.3 peer${extendsSeed ? ' (the handshake duties of docs/duties.md come from A2A v1.0 delegation: this telling extends them to v0.3, at level convention)' : ''}`,
    ...(extendsSeed
      ? {
          levelCap: {
            level: 'convention' as const,
            why: 'the handshake duties of docs/duties.md (§8 to §11) come from A2A v1.0 delegation; told by a v0.3 peer, this scenario extends them to v0.3, which only this harness says (level convention)',
          },
        }
      : {}),
    peer: {
      ...s.peer,
      dialect: 'a2a-v0.3',
      card: cardToV03(s.peer.card),
      signals,
      ...(s.peer.runtime.extendedCard ? { runtime: { ...s.peer.runtime, extendedCard: cardToV03(s.peer.runtime.extendedCard) } } : {}),
    },
    profileConstraints: { ...s.profileConstraints, dialects: ['a2a-v0.3'] },
  };
}

/** A family declared for both dialects: each scenario, then its v0.3 telling where one exists. */
export function bothDialects(scenarios: Scenario[]): Scenario[] {
  return [...scenarios, ...scenarios.filter((s) => !expandable(s)).map(scenarioToV03)];
}
