/**
 * The built-in clients' own canonical form of a signed Agent Card (A2A v1.0.1 §8.4.1), written from
 * the proto apart from the harness's (harness/core/card-canonical.ts): a client that verified with
 * the peer's own canonicaliser would hide a mistake both share. The reading is the same, and says
 * so: REQUIRED and `optional` fields stay whatever they hold, a set message stays, every other field
 * holding its proto3 default (`""`, `false`, `0`, `[]`, `{}` of a map) is dropped, `signatures` is
 * dropped at the top, unknown fields stay. RFC 8785 is the `canonicalize` package.
 */
import canonicalize from 'canonicalize';

/**
 * Per message (ProtoJSON names): `keep` for REQUIRED or `optional` fields, a message name for a
 * message-typed field (singular, repeated or map values: a set message has presence), `drop` for
 * fields whose default is dropped. Fields a message does not list are unknown and kept.
 */
type Kind = 'keep' | 'drop' | { message: string };
const m = (message: string): Kind => ({ message });

const PROTO: Record<string, Record<string, Kind>> = {
  AgentCard: {
    name: 'keep',
    description: 'keep',
    supportedInterfaces: 'keep',
    provider: m('AgentProvider'),
    version: 'keep',
    documentationUrl: 'keep',
    capabilities: 'keep',
    securitySchemes: m('SecurityScheme'),
    securityRequirements: m('SecurityRequirement'),
    defaultInputModes: 'keep',
    defaultOutputModes: 'keep',
    skills: 'keep',
    iconUrl: 'keep',
  },
  AgentInterface: { url: 'keep', protocolBinding: 'keep', tenant: 'drop', protocolVersion: 'keep' },
  AgentProvider: { url: 'keep', organization: 'keep' },
  AgentCapabilities: { streaming: 'keep', pushNotifications: 'keep', extensions: m('AgentExtension'), extendedAgentCard: 'keep' },
  AgentExtension: { uri: 'drop', description: 'drop', required: 'drop', params: 'keep' },
  AgentSkill: {
    id: 'keep',
    name: 'keep',
    description: 'keep',
    tags: 'keep',
    examples: 'drop',
    inputModes: 'drop',
    outputModes: 'drop',
    securityRequirements: m('SecurityRequirement'),
  },
  SecurityRequirement: { schemes: m('StringList') },
  StringList: { list: 'drop' },
  SecurityScheme: {
    apiKeySecurityScheme: m('ApiKey'),
    httpAuthSecurityScheme: m('HttpAuth'),
    oauth2SecurityScheme: m('OAuth2'),
    openIdConnectSecurityScheme: m('Oidc'),
    mtlsSecurityScheme: m('Mtls'),
  },
  ApiKey: { description: 'drop', location: 'keep', name: 'keep' },
  HttpAuth: { description: 'drop', scheme: 'keep', bearerFormat: 'drop' },
  OAuth2: { description: 'drop', flows: m('OAuthFlows'), oauth2MetadataUrl: 'drop' },
  OAuthFlows: {
    authorizationCode: m('AuthorizationCodeFlow'),
    clientCredentials: m('ClientCredentialsFlow'),
    implicit: m('ImplicitFlow'),
    password: m('PasswordFlow'),
    deviceCode: m('DeviceCodeFlow'),
  },
  AuthorizationCodeFlow: { authorizationUrl: 'keep', tokenUrl: 'keep', refreshUrl: 'drop', scopes: 'keep', pkceRequired: 'drop' },
  ClientCredentialsFlow: { tokenUrl: 'keep', refreshUrl: 'drop', scopes: 'keep' },
  ImplicitFlow: { authorizationUrl: 'drop', refreshUrl: 'drop', scopes: 'drop' },
  PasswordFlow: { tokenUrl: 'drop', refreshUrl: 'drop', scopes: 'drop' },
  DeviceCodeFlow: { deviceAuthorizationUrl: 'keep', tokenUrl: 'keep', refreshUrl: 'drop', scopes: 'keep' },
  Oidc: { description: 'drop', openIdConnectUrl: 'keep' },
  Mtls: { description: 'drop' },
};

/** The message type of the elements where a field holds a list or map of messages. */
const ELEMENTS: Record<string, string> = { supportedInterfaces: 'AgentInterface', skills: 'AgentSkill', capabilities: 'AgentCapabilities' };

const isEmpty = (v: unknown) =>
  v === '' ||
  v === false ||
  v === 0 ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

function clean(value: unknown, message: string): unknown {
  const table = PROTO[message];
  if (!table || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    const kind = table[k];
    if (kind === undefined) out[k] = v;
    else if (kind === 'drop') {
      if (!isEmpty(v)) out[k] = v;
    } else if (kind === 'keep') {
      const of = ELEMENTS[k];
      out[k] = of ? (Array.isArray(v) ? v.map((x) => clean(x, of)) : clean(v, of)) : v;
    } else {
      // A message field: a single message is kept when set; a list or a map of them loses its default (empty).
      if (Array.isArray(v)) {
        if (v.length) out[k] = v.map((x) => clean(x, kind.message));
      } else if (message === 'AgentCard' && k === 'provider') out[k] = clean(v, kind.message);
      else if (typeof v === 'object') {
        const entries = Object.entries(v as Record<string, unknown>);
        // securitySchemes and SecurityRequirement.schemes are maps; a SecurityScheme member is a message.
        const isMap = (message === 'AgentCard' && k === 'securitySchemes') || (message === 'SecurityRequirement' && k === 'schemes');
        if (isMap) {
          if (entries.length) out[k] = Object.fromEntries(entries.map(([n, x]) => [n, clean(x, kind.message)]));
        } else out[k] = clean(v, kind.message);
      } else out[k] = v;
    }
  }
  return out;
}

/** The JWS payload bytes of a card signature, as this client reads §8.4.1. */
export function canonicalCardPayload(card: Record<string, unknown>): string {
  const { signatures: _signatures, ...rest } = card;
  const text = canonicalize(clean(rest, 'AgentCard'));
  if (text === undefined) throw new Error('the card has no canonical form');
  return text;
}
