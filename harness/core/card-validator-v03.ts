/**
 * A2A v0.3 Agent Card validator, written from the v0.3.0 JSON Schema's definitions (`AgentCard` and
 * what it references): required fields present and typed, security schemes tagged by `type` with
 * their own required fields, `security` a list of scheme → scopes maps. Like the schema, it allows
 * fields it does not know. A test checks the built-in v0.3 cards against the official schema too.
 */
import { validateCardV1, type ValidationIssue } from './card-validator.js';
import { cardDialect } from './protocol/card-view.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

type Kind = 'string' | 'boolean' | 'strings' | 'object' | 'array';

function check(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
  }
}

/** Field name → [kind, required], per definition. */
const SHAPES: Record<string, Record<string, [Kind, boolean]>> = {
  AgentCard: {
    name: ['string', true],
    description: ['string', true],
    url: ['string', true],
    version: ['string', true],
    protocolVersion: ['string', true],
    capabilities: ['object', true],
    defaultInputModes: ['strings', true],
    defaultOutputModes: ['strings', true],
    skills: ['array', true],
    preferredTransport: ['string', false],
    additionalInterfaces: ['array', false],
    provider: ['object', false],
    iconUrl: ['string', false],
    documentationUrl: ['string', false],
    securitySchemes: ['object', false],
    security: ['array', false],
    supportsAuthenticatedExtendedCard: ['boolean', false],
    signatures: ['array', false],
  },
  AgentCapabilities: {
    streaming: ['boolean', false],
    pushNotifications: ['boolean', false],
    stateTransitionHistory: ['boolean', false],
    extensions: ['array', false],
  },
  AgentExtension: { uri: ['string', true], description: ['string', false], required: ['boolean', false], params: ['object', false] },
  AgentSkill: {
    id: ['string', true],
    name: ['string', true],
    description: ['string', true],
    tags: ['strings', true],
    examples: ['strings', false],
    inputModes: ['strings', false],
    outputModes: ['strings', false],
    security: ['array', false],
  },
  AgentInterface: { url: ['string', true], transport: ['string', true] },
  AgentProvider: { organization: ['string', true], url: ['string', true] },
  AgentCardSignature: { protected: ['string', true], signature: ['string', true], header: ['object', false] },
};

/** A security scheme's `type` → its other required fields (v0.3.0 Schema: APIKeySecurityScheme, HTTPAuthSecurityScheme, …). */
const SCHEME_FIELDS: Record<string, Record<string, Kind>> = {
  apiKey: { in: 'string', name: 'string' },
  http: { scheme: 'string' },
  oauth2: { flows: 'object' },
  openIdConnect: { openIdConnectUrl: 'string' },
  mutualTLS: {},
};

function shape(def: string, v: unknown, ptr: string, out: ValidationIssue[]): void {
  if (!isObj(v)) {
    out.push({ pointer: ptr || '/', message: `${def} must be an object` });
    return;
  }
  for (const [field, [kind, required]] of Object.entries(SHAPES[def]!)) {
    const x = v[field];
    if (x === undefined) {
      if (required) out.push({ pointer: `${ptr}/${field}`, message: `${def}.${field} is required` });
    } else if (!check(x, kind))
      out.push({
        pointer: `${ptr}/${field}`,
        message: `${def}.${field} must be ${kind === 'strings' ? 'a list of strings' : `a${kind === 'array' || kind === 'object' ? 'n' : ''} ${kind}`}`,
      });
  }
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Validates an A2A v0.3 Agent Card. An empty list means the card is structurally valid. */
export function validateCardV03(card: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  shape('AgentCard', card, '', out);
  if (!isObj(card)) return out;
  if (isObj(card.capabilities)) {
    shape('AgentCapabilities', card.capabilities, '/capabilities', out);
    for (const [i, e] of list(card.capabilities.extensions).entries()) shape('AgentExtension', e, `/capabilities/extensions/${i}`, out);
  }
  for (const [i, s] of list(card.skills).entries()) {
    shape('AgentSkill', s, `/skills/${i}`, out);
    if (isObj(s)) for (const [j, r] of list(s.security).entries()) requirement(r, `/skills/${i}/security/${j}`, out);
  }
  for (const [i, x] of list(card.additionalInterfaces).entries()) shape('AgentInterface', x, `/additionalInterfaces/${i}`, out);
  if (card.provider !== undefined) shape('AgentProvider', card.provider, '/provider', out);
  for (const [i, x] of list(card.signatures).entries()) shape('AgentCardSignature', x, `/signatures/${i}`, out);
  if (isObj(card.securitySchemes)) {
    for (const [name, s] of Object.entries(card.securitySchemes)) {
      const p = `/securitySchemes/${esc(name)}`;
      if (!isObj(s)) {
        out.push({ pointer: p, message: 'a security scheme must be an object' });
        continue;
      }
      const fields = SCHEME_FIELDS[String(s.type)];
      if (!fields) {
        out.push({ pointer: `${p}/type`, message: `security scheme type must be one of ${Object.keys(SCHEME_FIELDS).join(', ')}` });
        continue;
      }
      for (const [f, kind] of Object.entries(fields))
        if (!check(s[f], kind)) out.push({ pointer: `${p}/${f}`, message: `a ${String(s.type)} scheme needs ${f} (${kind})` });
    }
  }
  for (const [i, r] of list(card.security).entries()) requirement(r, `/security/${i}`, out);
  return out;
}

/** A security requirement: scheme name → the scopes it needs. */
function requirement(r: unknown, p: string, out: ValidationIssue[]): void {
  if (!isObj(r)) {
    out.push({ pointer: p, message: 'a security requirement must be an object of scheme → scopes' });
    return;
  }
  for (const [k, v] of Object.entries(r))
    if (!check(v, 'strings')) out.push({ pointer: `${p}/${esc(k)}`, message: 'the scopes of a security requirement must be a list of strings' });
}

/** Validates a card in the dialect it is written in (`cardDialect`): v1.0 against the proto, v0.3 against its schema's shapes. */
export function validateCard(card: unknown): ValidationIssue[] {
  return cardDialect(card) === 'a2a-v0.3' ? validateCardV03(card) : validateCardV1(card);
}
