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
  | { t: 'struct' }
  | { t: 'int' }
  | { t: 'enum'; of: string }
  | { t: 'timestamp' }
  | { t: 'bytes' }
  | { t: 'value' };

export interface FieldSpec {
  type: FieldType;
  required?: boolean;
  /**
   * A REQUIRED string or list that may be empty, because the field's own comment says so
   * (ListTasksResponse's `next_page_token`: "or empty if there are no more results"; its `tasks`:
   * "tasks matching the specified criteria", of which there may be none).
   */
  emptyAllowed?: boolean;
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

const int = (required = false): FieldSpec => ({ type: { t: 'int' }, required });
const struct = (): FieldSpec => ({ type: { t: 'struct' } });

/** Proto enum name → its values, as ProtoJSON writes them (the value names). */
export const V1_ENUMS: Record<string, readonly string[]> = {
  TaskState: [
    'TASK_STATE_UNSPECIFIED',
    'TASK_STATE_SUBMITTED',
    'TASK_STATE_WORKING',
    'TASK_STATE_COMPLETED',
    'TASK_STATE_FAILED',
    'TASK_STATE_CANCELED',
    'TASK_STATE_INPUT_REQUIRED',
    'TASK_STATE_REJECTED',
    'TASK_STATE_AUTH_REQUIRED',
  ],
  Role: ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'],
};

/** Proto message name → its JSON fields: the Agent Card and the messages an agent answers with. */
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
    oneof: ['apiKeySecurityScheme', 'httpAuthSecurityScheme', 'oauth2SecurityScheme', 'openIdConnectSecurityScheme', 'mtlsSecurityScheme'],
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
  // What an agent answers with (the payload test validates every body the peers send against these).
  Task: {
    fields: { id: s(true), contextId: s(), status: m('TaskStatus', true), artifacts: ms('Artifact'), history: ms('Message'), metadata: struct() },
  },
  TaskStatus: { fields: { state: { type: { t: 'enum', of: 'TaskState' }, required: true }, message: m('Message'), timestamp: { type: { t: 'timestamp' } } } },
  Part: {
    fields: {
      text: s(),
      raw: { type: { t: 'bytes' } },
      url: s(),
      data: { type: { t: 'value' } },
      metadata: struct(),
      filename: s(),
      mediaType: s(),
    },
    oneof: ['text', 'raw', 'url', 'data'],
  },
  Message: {
    fields: {
      messageId: s(true),
      contextId: s(),
      taskId: s(),
      role: { type: { t: 'enum', of: 'Role' }, required: true },
      parts: ms('Part', true),
      metadata: struct(),
      extensions: ss(),
      referenceTaskIds: ss(),
    },
  },
  Artifact: {
    fields: { artifactId: s(true), name: s(), description: s(), parts: ms('Part', true), metadata: struct(), extensions: ss() },
  },
  TaskStatusUpdateEvent: { fields: { taskId: s(true), contextId: s(true), status: m('TaskStatus', true), metadata: struct() } },
  TaskArtifactUpdateEvent: {
    fields: { taskId: s(true), contextId: s(true), artifact: m('Artifact', true), append: b(), lastChunk: b(), metadata: struct() },
  },
  AuthenticationInfo: { fields: { scheme: s(true), credentials: s() } },
  TaskPushNotificationConfig: {
    fields: { tenant: s(), id: s(), taskId: s(), url: s(true), token: s(), authentication: m('AuthenticationInfo') },
  },
  ListTasksResponse: {
    // "Array of tasks matching the specified criteria": none may match, so the REQUIRED list may be empty here, §5.7's "at least one element" notwithstanding.
    fields: {
      tasks: { ...ms('Task', true), emptyAllowed: true },
      nextPageToken: { ...s(true), emptyAllowed: true },
      pageSize: int(true),
      totalSize: int(true),
    },
  },
  SendMessageResponse: { fields: { task: m('Task'), message: m('Message') }, oneof: ['task', 'message'] },
  StreamResponse: {
    fields: { task: m('Task'), message: m('Message'), statusUpdate: m('TaskStatusUpdateEvent'), artifactUpdate: m('TaskArtifactUpdateEvent') },
    oneof: ['task', 'message', 'statusUpdate', 'artifactUpdate'],
  },
  ListTaskPushNotificationConfigsResponse: { fields: { configs: ms('TaskPushNotificationConfig'), nextPageToken: s() } },
};

export interface ValidationIssue {
  /** JSON pointer to the offending value. */
  pointer: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

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
      else if (fs.required && !fs.emptyAllowed && v === '') out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
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
        for (const [i, x] of v.entries()) validateMessage(of, x, `${p}/${i}`, out);
        if (fs.required && !fs.emptyAllowed && v.length === 0) out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
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
    case 'value':
      return; // google.protobuf.Value: any JSON value
    case 'int':
      // ProtoJSON writes int32 as a number (a string of digits is accepted on input).
      if (!(typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 2 ** 31) && !(typeof v === 'string' && /^-?\d+$/.test(v)))
        out.push({ pointer: p, message: `${where} must be an integer` });
      return;
    case 'enum': {
      const values = V1_ENUMS[fs.type.of] ?? [];
      if (typeof v !== 'string' || !values.includes(v))
        out.push({ pointer: p, message: `${where} must be one of ${fs.type.of}'s names (${values.join(', ')})` });
      return;
    }
    case 'timestamp':
      // google.protobuf.Timestamp in ProtoJSON: RFC 3339 with a Z or an offset.
      if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/.test(v) || Number.isNaN(Date.parse(v)))
        out.push({ pointer: p, message: `${where} must be an RFC 3339 timestamp` });
      return;
    case 'bytes':
      // bytes in ProtoJSON: standard or URL-safe base64, padded or not.
      if (typeof v !== 'string' || !isBase64(v)) out.push({ pointer: p, message: `${where} must be base64 (ProtoJSON bytes)` });
      return;
  }
}

/** Standard or URL-safe base64, with or without padding (ProtoJSON's reading of `bytes`). */
export function isBase64(v: string): boolean {
  if (/^[A-Za-z0-9+/]*={0,2}$/.test(v) || /^[A-Za-z0-9_-]*={0,2}$/.test(v)) {
    const bare = v.replace(/=+$/, '');
    return bare.length % 4 !== 1 && (v.length === bare.length || v.length % 4 === 0);
  }
  return false;
}

/** Validates a value as the ProtoJSON of an A2A v1.0 message (`Task`, `StreamResponse`, …). An empty list: valid. */
export function validateV1(message: string, value: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  validateMessage(message, value, '', out);
  return out;
}

/** Validates an A2A v1.0 Agent Card. An empty list means the card is structurally valid. */
export function validateCardV1(card: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  validateMessage('AgentCard', card, '', out);
  return out;
}
