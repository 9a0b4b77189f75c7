/**
 * A2A v1.0 Agent Card validator, written from the normative proto (`lf.a2a.v1`, spec §1.4).
 *
 * - REQUIRED fields (`field_behavior = REQUIRED`) must be present; a REQUIRED string must be
 *   non-empty and a REQUIRED list must have at least one element (spec §5.7).
 * - Types follow ProtoJSON: strings, booleans, lists, objects, maps.
 * - Oneofs (`SecurityScheme.scheme`, `OAuthFlows.flow`) hold exactly one member.
 * - Unknown fields are refused, as a ProtoJSON parser does by default, so a v0.3-style
 *   `{ "type": "mutualTLS" }` security scheme or a stray top-level field is an error.
 *
 * The table below is cross-checked against the proto file by a test.
 */

export type FieldType =
  | { t: 'string' }
  | { t: 'bool' }
  | { t: 'strings' }
  | { t: 'message'; of: string }
  | { t: 'messages'; of: string }
  | { t: 'messageMap'; of: string }
  | { t: 'stringMap' }
  | { t: 'struct' };

export interface FieldSpec {
  type: FieldType;
  required?: boolean;
  /** Declared with proto3's `optional` keyword: explicit presence, so a default value set on purpose counts (§5.7, §8.4.1). */
  optional?: boolean;
}

export interface MessageSpec {
  fields: Record<string, FieldSpec>;
  /** Names of the fields that form a oneof: exactly one must be set. */
  oneof?: string[];
}

const s = (required = false): FieldSpec => ({ type: { t: 'string' }, required });
const b = (): FieldSpec => ({ type: { t: 'bool' } });
/** A field declared `optional` in the proto. */
const opt = (f: FieldSpec): FieldSpec => ({ ...f, optional: true });
const ss = (required = false): FieldSpec => ({ type: { t: 'strings' }, required });
const m = (of: string, required = false): FieldSpec => ({ type: { t: 'message', of }, required });
const ms = (of: string, required = false): FieldSpec => ({ type: { t: 'messages', of }, required });

/** Proto message name → its JSON fields. */
export const V1_MESSAGES: Record<string, MessageSpec> = {
  AgentCard: {
    fields: {
      name: s(true),
      description: s(true),
      supportedInterfaces: ms('AgentInterface', true),
      provider: m('AgentProvider'),
      version: s(true),
      documentationUrl: opt(s()),
      capabilities: m('AgentCapabilities', true),
      securitySchemes: { type: { t: 'messageMap', of: 'SecurityScheme' } },
      securityRequirements: ms('SecurityRequirement'),
      defaultInputModes: ss(true),
      defaultOutputModes: ss(true),
      skills: ms('AgentSkill', true),
      signatures: ms('AgentCardSignature'),
      iconUrl: opt(s()),
    },
  },
  AgentInterface: {
    fields: { url: s(true), protocolBinding: s(true), tenant: s(), protocolVersion: s(true) },
  },
  AgentProvider: { fields: { url: s(true), organization: s(true) } },
  AgentCapabilities: {
    fields: {
      streaming: opt(b()),
      pushNotifications: opt(b()),
      extensions: ms('AgentExtension'),
      extendedAgentCard: opt(b()),
    },
  },
  AgentExtension: {
    fields: { uri: s(), description: s(), required: b(), params: { type: { t: 'struct' } } },
  },
  AgentSkill: {
    fields: {
      id: s(true),
      name: s(true),
      description: s(true),
      tags: ss(true),
      examples: ss(),
      inputModes: ss(),
      outputModes: ss(),
      securityRequirements: ms('SecurityRequirement'),
    },
  },
  AgentCardSignature: {
    fields: { protected: s(true), signature: s(true), header: { type: { t: 'struct' } } },
  },
  SecurityRequirement: { fields: { schemes: { type: { t: 'messageMap', of: 'StringList' } } } },
  StringList: { fields: { list: ss() } },
  SecurityScheme: {
    fields: {
      apiKeySecurityScheme: m('APIKeySecurityScheme'),
      httpAuthSecurityScheme: m('HTTPAuthSecurityScheme'),
      oauth2SecurityScheme: m('OAuth2SecurityScheme'),
      openIdConnectSecurityScheme: m('OpenIdConnectSecurityScheme'),
      mtlsSecurityScheme: m('MutualTlsSecurityScheme'),
    },
    oneof: [
      'apiKeySecurityScheme',
      'httpAuthSecurityScheme',
      'oauth2SecurityScheme',
      'openIdConnectSecurityScheme',
      'mtlsSecurityScheme',
    ],
  },
  APIKeySecurityScheme: { fields: { description: s(), location: s(true), name: s(true) } },
  HTTPAuthSecurityScheme: { fields: { description: s(), scheme: s(true), bearerFormat: s() } },
  OAuth2SecurityScheme: {
    fields: { description: s(), flows: m('OAuthFlows', true), oauth2MetadataUrl: s() },
  },
  OpenIdConnectSecurityScheme: { fields: { description: s(), openIdConnectUrl: s(true) } },
  MutualTlsSecurityScheme: { fields: { description: s() } },
  OAuthFlows: {
    fields: {
      authorizationCode: m('AuthorizationCodeOAuthFlow'),
      clientCredentials: m('ClientCredentialsOAuthFlow'),
      implicit: m('ImplicitOAuthFlow'),
      password: m('PasswordOAuthFlow'),
      deviceCode: m('DeviceCodeOAuthFlow'),
    },
    oneof: ['authorizationCode', 'clientCredentials', 'implicit', 'password', 'deviceCode'],
  },
  AuthorizationCodeOAuthFlow: {
    fields: {
      authorizationUrl: s(true),
      tokenUrl: s(true),
      refreshUrl: s(),
      scopes: { type: { t: 'stringMap' }, required: true },
      pkceRequired: b(),
    },
  },
  ClientCredentialsOAuthFlow: {
    fields: { tokenUrl: s(true), refreshUrl: s(), scopes: { type: { t: 'stringMap' }, required: true } },
  },
  ImplicitOAuthFlow: {
    fields: { authorizationUrl: s(), refreshUrl: s(), scopes: { type: { t: 'stringMap' } } },
  },
  PasswordOAuthFlow: {
    fields: { tokenUrl: s(), refreshUrl: s(), scopes: { type: { t: 'stringMap' } } },
  },
  DeviceCodeOAuthFlow: {
    fields: {
      deviceAuthorizationUrl: s(true),
      tokenUrl: s(true),
      refreshUrl: s(),
      scopes: { type: { t: 'stringMap' }, required: true },
    },
  },
};

export interface ValidationIssue {
  /** JSON pointer to the offending value. */
  pointer: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

function validateMessage(name: string, value: unknown, ptr: string, out: ValidationIssue[]): void {
  const spec = V1_MESSAGES[name];
  if (!spec) throw new Error(`[harness] validator has no spec for message ${name}`);
  if (!isObj(value)) {
    out.push({ pointer: ptr || '/', message: `${name} must be an object` });
    return;
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(spec.fields, key)) out.push({ pointer: `${ptr}/${esc(key)}`, message: `unknown field "${key}" in ${name}` });
  }
  for (const [field, fs] of Object.entries(spec.fields)) {
    const p = `${ptr}/${esc(field)}`;
    const v = value[field];
    if (v === undefined || v === null) {
      if (fs.required) out.push({ pointer: p, message: `${name}.${field} is REQUIRED` });
      continue;
    }
    validateField(name, field, fs, v, p, out);
  }
  if (spec.oneof) {
    const set = spec.oneof.filter((k) => value[k] !== undefined && value[k] !== null);
    if (set.length !== 1)
      out.push({
        pointer: ptr || '/',
        message: `${name} must set exactly one of ${spec.oneof.join(', ')} (found ${set.length})`,
      });
  }
}

function validateField(msg: string, field: string, fs: FieldSpec, v: unknown, p: string, out: ValidationIssue[]) {
  const where = `${msg}.${field}`;
  switch (fs.type.t) {
    case 'string':
      if (typeof v !== 'string') out.push({ pointer: p, message: `${where} must be a string` });
      else if (fs.required && v === '') out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
      return;
    case 'bool':
      if (typeof v !== 'boolean') out.push({ pointer: p, message: `${where} must be a boolean` });
      return;
    case 'strings':
      if (!Array.isArray(v)) out.push({ pointer: p, message: `${where} must be a list of strings` });
      else {
        v.forEach((x, i) => {
          if (typeof x !== 'string') out.push({ pointer: `${p}/${i}`, message: `${where}[${i}] must be a string` });
        });
        if (fs.required && v.length === 0) out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
      }
      return;
    case 'message':
      validateMessage(fs.type.of, v, p, out);
      return;
    case 'messages':
      if (!Array.isArray(v)) out.push({ pointer: p, message: `${where} must be a list` });
      else {
        const of = fs.type.of;
        v.forEach((x, i) => validateMessage(of, x, `${p}/${i}`, out));
        if (fs.required && v.length === 0) out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
      }
      return;
    case 'messageMap':
      if (!isObj(v)) out.push({ pointer: p, message: `${where} must be an object (map)` });
      else {
        const of = fs.type.of;
        for (const [k, x] of Object.entries(v)) validateMessage(of, x, `${p}/${esc(k)}`, out);
      }
      return;
    case 'stringMap':
      if (!isObj(v)) out.push({ pointer: p, message: `${where} must be an object (map of strings)` });
      else
        for (const [k, x] of Object.entries(v))
          if (typeof x !== 'string') out.push({ pointer: `${p}/${esc(k)}`, message: `${where}["${k}"] must be a string` });
      return;
    case 'struct':
      if (!isObj(v)) out.push({ pointer: p, message: `${where} must be an object` });
      return;
  }
}

/** Validates an A2A v1.0 Agent Card. An empty list means the card is structurally valid. */
export function validateCardV1(card: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  validateMessage('AgentCard', card, '', out);
  return out;
}
