/**
 * The A2A v1.0 data model as the proto (`lf.a2a.v1`, spec §1.4) declares it, written here as data:
 * each message's fields in the proto's order with their ProtoJSON types, REQUIRED and `optional`
 * marks, oneofs and field numbers, the enums, and the service's methods. Names, types and numbers
 * are interface facts; test/card-validator.test.ts cross-checks every one against the proto.
 * The card validator, the canonical form and the wires read it; it imports nothing.
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
  /** The fields in the proto's order: a field's number is its place (fieldNumber), unless `numbers` says otherwise. */
  fields: Record<string, FieldSpec>;
  /** Names of the fields that form a oneof: exactly one must be set. */
  oneof?: string[];
  /** Field numbers, where they do not follow the fields' order. */
  numbers?: Record<string, number>;
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
  // What a client sends: the request messages of the service's methods (§3.1, and gRPC's wire in §10).
  SendMessageConfiguration: {
    fields: { acceptedOutputModes: ss(), taskPushNotificationConfig: m('TaskPushNotificationConfig'), historyLength: opt(int()), returnImmediately: b() },
  },
  SendMessageRequest: { fields: { tenant: s(), message: m('Message', true), configuration: m('SendMessageConfiguration'), metadata: struct() } },
  GetTaskRequest: { fields: { tenant: s(), id: s(true), historyLength: opt(int()) } },
  ListTasksRequest: {
    fields: {
      tenant: s(),
      contextId: s(),
      status: { type: { t: 'enum', of: 'TaskState' } },
      pageSize: opt(int()),
      pageToken: s(),
      historyLength: opt(int()),
      statusTimestampAfter: { type: { t: 'timestamp' } },
      includeArtifacts: opt(b()),
    },
  },
  CancelTaskRequest: { fields: { tenant: s(), id: s(true), metadata: struct() } },
  GetTaskPushNotificationConfigRequest: { fields: { tenant: s(), taskId: s(true), id: s(true) } },
  DeleteTaskPushNotificationConfigRequest: { fields: { tenant: s(), taskId: s(true), id: s(true) } },
  SubscribeToTaskRequest: { fields: { tenant: s(), id: s(true) } },
  // The one message whose numbers do not follow its fields' order: `tenant` came last, as 4.
  ListTaskPushNotificationConfigsRequest: {
    fields: { tenant: s(), taskId: s(true), pageSize: int(), pageToken: s() },
    numbers: { tenant: 4, taskId: 1, pageSize: 2, pageToken: 3 },
  },
  GetExtendedAgentCardRequest: { fields: { tenant: s() } },
};

/** A field's number on the protobuf wire (gRPC, §10): its place in the message, unless the message says otherwise. */
export function fieldNumber(message: string, field: string): number {
  const spec = V1_MESSAGES[message];
  if (!spec) throw new Error(`[harness] no message ${message} in the v1 table`);
  const n = spec.numbers?.[field] ?? Object.keys(spec.fields).indexOf(field) + 1;
  if (n < 1) throw new Error(`[harness] no field ${field} in ${message}`);
  return n;
}

/**
 * The A2A service's methods (§3.1; gRPC service `lf.a2a.v1.A2AService`, §10.3), each with its
 * request and response messages and whether it answers with a stream. `Empty` is
 * google.protobuf.Empty (an answer with no fields).
 */
export const V1_METHODS = [
  { name: 'SendMessage', request: 'SendMessageRequest', response: 'SendMessageResponse', stream: false },
  { name: 'SendStreamingMessage', request: 'SendMessageRequest', response: 'StreamResponse', stream: true },
  { name: 'GetTask', request: 'GetTaskRequest', response: 'Task', stream: false },
  { name: 'ListTasks', request: 'ListTasksRequest', response: 'ListTasksResponse', stream: false },
  { name: 'CancelTask', request: 'CancelTaskRequest', response: 'Task', stream: false },
  { name: 'SubscribeToTask', request: 'SubscribeToTaskRequest', response: 'StreamResponse', stream: true },
  { name: 'CreateTaskPushNotificationConfig', request: 'TaskPushNotificationConfig', response: 'TaskPushNotificationConfig', stream: false },
  { name: 'GetTaskPushNotificationConfig', request: 'GetTaskPushNotificationConfigRequest', response: 'TaskPushNotificationConfig', stream: false },
  {
    name: 'ListTaskPushNotificationConfigs',
    request: 'ListTaskPushNotificationConfigsRequest',
    response: 'ListTaskPushNotificationConfigsResponse',
    stream: false,
  },
  { name: 'GetExtendedAgentCard', request: 'GetExtendedAgentCardRequest', response: 'AgentCard', stream: false },
  { name: 'DeleteTaskPushNotificationConfig', request: 'DeleteTaskPushNotificationConfigRequest', response: 'Empty', stream: false },
] as const;
