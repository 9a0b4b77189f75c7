/**
 * The built-in clients' own reading of an A2A v1.0 Agent Card, written from the proto
 * (`lf.a2a.v1.AgentCard`, ProtoJSON camelCase) and the spec text, not from the harness: the oracle
 * reads cards through core's CardView, and a misreading shared by both would grade itself. A
 * differential test compares this client's decisions with the oracle's rules.
 */

export interface ClientCard {
  /** The card's interfaces in its order; `tenant` where the interface sets one (§8.3.2 rule 4). */
  interfaces: Array<{ url: string; binding: string; version: string; tenant?: string }>;
  streaming: boolean;
  push: boolean;
  /** `capabilities.extendedAgentCard`: GetExtendedAgentCard serves the agent's own card (spec §3.1.11). */
  extendedCard: boolean;
  extensions: Array<{ uri: string; required: boolean; params: Record<string, unknown> }>;
  inputModes: string[];
  outputModes: string[];
  skills: Array<{ id: string; inputModes?: string[]; outputModes?: string[] }>;
  /** Scheme name → the member set in its `SecurityScheme` oneof (`mtlsSecurityScheme`, …). */
  schemes: Map<string, string>;
  /** `securityRequirements`: alternatives (any one suffices) of scheme names (all needed). */
  requirements: string[][];
}

import { cardDialect, V03_SCHEME_KIND } from '../../harness/core/protocol/card-view.js';

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asStrings = (v: unknown): string[] => asList(v).filter((x): x is string => typeof x === 'string');

/**
 * Reads what the client needs, from a v1.0 card or a v0.3 one (a main `url` at `preferredTransport`,
 * default JSONRPC, plus `additionalInterfaces`, all at the card's `protocolVersion`). Missing
 * optional capabilities read as false (spec §3.3.4: "false or not present").
 */
export function readClientCard(json: unknown): ClientCard {
  const card = asObject(json);
  const caps = asObject(card.capabilities);
  const v03 = cardDialect(card) === 'a2a-v0.3';
  const schemes = new Map<string, string>();
  for (const [name, scheme] of Object.entries(asObject(card.securitySchemes))) {
    if (v03) {
      schemes.set(name, V03_SCHEME_KIND[String(asObject(scheme).type)] ?? '');
      continue;
    }
    const members = Object.keys(asObject(scheme));
    schemes.set(name, members.length === 1 ? members[0]! : '');
  }
  const version = typeof card.protocolVersion === 'string' ? card.protocolVersion : '';
  const interfaces = v03
    ? [
        { url: String(card.url), binding: typeof card.preferredTransport === 'string' ? card.preferredTransport : 'JSONRPC', version },
        ...asList(card.additionalInterfaces).map((i) => ({ url: String(asObject(i).url ?? ''), binding: String(asObject(i).transport ?? ''), version })),
      ]
    : asList(card.supportedInterfaces).map((i) => {
        const o = asObject(i);
        return {
          url: typeof o.url === 'string' ? o.url : '',
          binding: typeof o.protocolBinding === 'string' ? o.protocolBinding : '',
          version: typeof o.protocolVersion === 'string' ? o.protocolVersion : '',
          ...(typeof o.tenant === 'string' && o.tenant !== '' ? { tenant: o.tenant } : {}),
        };
      });
  return {
    interfaces,
    streaming: caps.streaming === true,
    push: caps.pushNotifications === true,
    extendedCard: v03 ? card.supportsAuthenticatedExtendedCard === true : caps.extendedAgentCard === true,
    extensions: asList(caps.extensions).map((e) => {
      const o = asObject(e);
      return { uri: typeof o.uri === 'string' ? o.uri : '', required: o.required === true, params: asObject(o.params) };
    }),
    inputModes: asStrings(card.defaultInputModes),
    outputModes: asStrings(card.defaultOutputModes),
    skills: asList(card.skills).map((s) => {
      const o = asObject(s);
      return {
        id: typeof o.id === 'string' ? o.id : '',
        ...(Array.isArray(o.inputModes) ? { inputModes: asStrings(o.inputModes) } : {}),
        ...(Array.isArray(o.outputModes) ? { outputModes: asStrings(o.outputModes) } : {}),
      };
    }),
    schemes,
    requirements: v03
      ? asList(card.security).map((r) => Object.keys(asObject(r)))
      : asList(card.securityRequirements).map((r) => Object.keys(asObject(asObject(r).schemes))),
  };
}

/** A skill's modes override the card's defaults (proto `AgentSkill.input_modes`: "overriding the agent's defaults"). */
export function modesFor(card: ClientCard, skillId: string | undefined, which: 'input' | 'output'): string[] {
  const skill = skillId ? card.skills.find((s) => s.id === skillId) : undefined;
  const own = which === 'input' ? skill?.inputModes : skill?.outputModes;
  return own ?? (which === 'input' ? card.inputModes : card.outputModes);
}
