/**
 * The A2A v0.3 JSON-RPC dialect as a codec over the dialect-neutral operations (the spec's own
 * operation names, §3.1 of v1.0: SendMessage, GetTask, …), which the runtime implements (peers/runtime/).
 *
 * What differs on the wire (v0.3.0 specification and JSON Schema; docs/rules.md, "Two dialects"):
 * - method names: `message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`,
 *   `tasks/pushNotificationConfig/set|get|list|delete`, `agent/getAuthenticatedExtendedCard`;
 * - `kind`-tagged objects: parts (`text`, `data`, `file`), `message`, `task`, `status-update`,
 *   `artifact-update`; roles `user` / `agent`; states in kebab case (`input-required`);
 * - `configuration.blocking` (true: wait) where v1.0 has `returnImmediately` (the other polarity);
 * - push configs nested as `{taskId, pushNotificationConfig: {url, token, authentication: {schemes, credentials}}}`;
 * - no `A2A-Version` header (v1.0 §3.6.2 reads an empty one as 0.3).
 *
 * Pure translation: no I/O. Unknown methods have no neutral operation (the peer answers -32601).
 */

import { V03_SCHEME_KIND } from '../../../harness/core/protocol/card-view.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** v0.3 method → the neutral operation. */
export const V03_METHODS: Readonly<Record<string, string>> = {
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard',
};

/** Canonical (v1.0 ProtoJSON) task state → its v0.3 spelling. */
export const V03_STATES: Readonly<Record<string, string>> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_REJECTED: 'rejected',
};

const FINAL = new Set(['completed', 'canceled', 'failed', 'rejected', 'input-required', 'auth-required']);

// --- requests: v0.3 → neutral ------------------------------------------------------------------

/** A v0.3 part in neutral terms: `metadata` kept, a file's `name` as `filename`. */
function partIn(p: unknown): Json {
  const out = partInBare(p);
  if (!isObj(p) || out.kind !== undefined) return out;
  const name = isObj(p.file) && typeof p.file.name === 'string' ? p.file.name : undefined;
  return { ...out, ...(name !== undefined ? { filename: name } : {}), ...(isObj(p.metadata) ? { metadata: p.metadata } : {}) };
}

function partInBare(p: unknown): Json {
  if (!isObj(p)) return {};
  if (p.kind === 'text') return { text: p.text, mediaType: 'text/plain' };
  if (p.kind === 'data') return { data: p.data, mediaType: 'application/json' };
  if (p.kind === 'file' && isObj(p.file)) {
    const f = p.file;
    const mediaType = typeof f.mimeType === 'string' ? f.mimeType : '';
    if (typeof f.bytes === 'string') return { raw: f.bytes, mediaType };
    if (typeof f.uri === 'string') return { url: f.uri, mediaType };
  }
  return { kind: p.kind }; // nothing the neutral model knows: refused as invalid params
}

function messageIn(m: unknown): unknown {
  if (!isObj(m)) return m;
  const role = m.role === 'user' ? 'ROLE_USER' : m.role === 'agent' ? 'ROLE_AGENT' : m.role;
  const { kind: _kind, role: _role, parts, ...rest } = m;
  return { ...rest, role, parts: Array.isArray(parts) ? parts.map(partIn) : parts };
}

function pushIn(p: unknown): Json | undefined {
  if (!isObj(p)) return undefined;
  const auth = isObj(p.authentication) ? p.authentication : undefined;
  const scheme = auth && Array.isArray(auth.schemes) && typeof auth.schemes[0] === 'string' ? auth.schemes[0] : undefined;
  return {
    ...(typeof p.id === 'string' ? { id: p.id } : {}),
    url: p.url,
    ...(typeof p.token === 'string' ? { token: p.token } : {}),
    ...(scheme ? { authentication: { scheme, ...(typeof auth!.credentials === 'string' ? { credentials: auth!.credentials } : {}) } } : {}),
  };
}

/** A v0.3 call as the neutral operation and its params, or undefined for a method v0.3 does not have. */
export function requestIn(method: string, params: unknown): { op: string; params: Json } | undefined {
  const op = Object.hasOwn(V03_METHODS, method) ? V03_METHODS[method]! : undefined;
  if (!op) return undefined;
  const p = isObj(params) ? params : {};
  switch (op) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const c = isObj(p.configuration) ? p.configuration : {};
      const push = pushIn(c.pushNotificationConfig);
      const configuration = {
        ...(Array.isArray(c.acceptedOutputModes) ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
        // v0.3: "If true, the client will wait for the task to complete"; absent is not blocking.
        returnImmediately: c.blocking !== true,
        ...(typeof c.historyLength === 'number' ? { historyLength: c.historyLength } : {}),
        ...(push ? { taskPushNotificationConfig: push } : {}),
      };
      return { op, params: { message: messageIn(p.message), configuration, ...(isObj(p.metadata) ? { metadata: p.metadata } : {}) } };
    }
    case 'CreateTaskPushNotificationConfig':
      return { op, params: { taskId: p.taskId, ...(pushIn(p.pushNotificationConfig) ?? {}) } };
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { op, params: { taskId: p.id, id: p.pushNotificationConfigId } };
    case 'ListTaskPushNotificationConfigs':
      return { op, params: { taskId: p.id } };
    default:
      return { op, params: p };
  }
}

// --- results: neutral → v0.3 -------------------------------------------------------------------

/** A neutral part as v0.3 spells it: `metadata` kept, `filename` as the file's `name`. */
function partOut(p: unknown): Json {
  const out = partOutBare(p);
  if (!isObj(p)) return out;
  if (isObj(out.file) && typeof p.filename === 'string') out.file = { ...out.file, name: p.filename };
  return isObj(p.metadata) ? { ...out, metadata: p.metadata } : out;
}

function partOutBare(p: unknown): Json {
  if (!isObj(p)) return { kind: 'text', text: '' };
  const mt = typeof p.mediaType === 'string' ? p.mediaType : '';
  // A TextPart and a DataPart carry no media type: only a bare text/plain or application/json fits one; a
  // type with parameters (a charset, a profile) keeps them in a FilePart's mimeType.
  if (typeof p.text === 'string' && (mt === '' || /^text\/plain$/i.test(mt.trim()))) return { kind: 'text', text: p.text };
  if (p.data !== undefined && (mt === '' || /^application\/json$/i.test(mt.trim()))) return { kind: 'data', data: p.data };
  // Anything else keeps its media type: a file part (v0.3 TextPart and DataPart carry none).
  if (typeof p.url === 'string') return { kind: 'file', file: { uri: p.url, ...(mt ? { mimeType: mt } : {}) } };
  const bytes = typeof p.raw === 'string' ? p.raw : Buffer.from(typeof p.text === 'string' ? p.text : JSON.stringify(p.data ?? null)).toString('base64');
  return { kind: 'file', file: { bytes, ...(mt ? { mimeType: mt } : {}) } };
}

function messageOut(m: unknown): Json {
  if (!isObj(m)) return {};
  const { role, parts, ...rest } = m;
  return {
    kind: 'message',
    ...rest,
    role: role === 'ROLE_AGENT' ? 'agent' : role === 'ROLE_USER' ? 'user' : role,
    parts: Array.isArray(parts) ? parts.map(partOut) : [],
  };
}

function statusOut(s: unknown): Json {
  if (!isObj(s)) return { state: 'unknown' };
  return { ...s, state: V03_STATES[String(s.state)] ?? 'unknown', ...(s.message !== undefined ? { message: messageOut(s.message) } : {}) };
}

function artifactOut(a: unknown): Json {
  if (!isObj(a)) return {};
  return { ...a, parts: Array.isArray(a.parts) ? a.parts.map(partOut) : [] };
}

export function taskOut(t: unknown): Json {
  if (!isObj(t)) return {};
  const { status, artifacts, history, ...rest } = t;
  return {
    kind: 'task',
    ...rest,
    status: statusOut(status),
    ...(Array.isArray(artifacts) ? { artifacts: artifacts.map(artifactOut) } : {}),
    ...(Array.isArray(history) ? { history: history.map(messageOut) } : {}),
  };
}

function pushConfigOut(c: unknown): Json {
  if (!isObj(c)) return {};
  const auth = isObj(c.authentication) ? c.authentication : undefined;
  return {
    taskId: c.taskId,
    pushNotificationConfig: {
      ...(typeof c.id === 'string' ? { id: c.id } : {}),
      url: c.url,
      ...(typeof c.token === 'string' ? { token: c.token } : {}),
      ...(auth ? { authentication: { schemes: [auth.scheme], ...(typeof auth.credentials === 'string' ? { credentials: auth.credentials } : {}) } } : {}),
    },
  };
}

/** A unary result of a neutral operation, spelled as v0.3 answers it. */
export function resultOut(op: string, result: unknown): unknown {
  const r = isObj(result) ? result : {};
  switch (op) {
    case 'SendMessage':
      return r.task !== undefined ? taskOut(r.task) : messageOut(r.message);
    case 'GetTask':
    case 'CancelTask':
      return taskOut(r);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return pushConfigOut(r);
    case 'ListTaskPushNotificationConfigs':
      return Array.isArray(r.configs) ? r.configs.map(pushConfigOut) : [];
    case 'DeleteTaskPushNotificationConfig':
      return null;
    default:
      return result;
  }
}

/** One streamed result (a v1.0 StreamResponse) as a v0.3 event: a Task, a Message, or a kind-tagged update with `final`. */
export function streamResultOut(result: unknown): unknown {
  const r = isObj(result) ? result : {};
  if (r.task !== undefined) return taskOut(r.task);
  if (r.message !== undefined) return messageOut(r.message);
  if (isObj(r.statusUpdate)) {
    const u = r.statusUpdate;
    const status = statusOut(u.status);
    return { kind: 'status-update', taskId: u.taskId, contextId: u.contextId, status, final: FINAL.has(String(status.state)) };
  }
  if (isObj(r.artifactUpdate)) {
    const u = r.artifactUpdate;
    return {
      kind: 'artifact-update',
      taskId: u.taskId,
      contextId: u.contextId,
      artifact: artifactOut(u.artifact),
      ...(u.append !== undefined ? { append: u.append } : {}),
      ...(u.lastChunk !== undefined ? { lastChunk: u.lastChunk } : {}),
    };
  }
  return result;
}

/**
 * A push notification's body as v0.3 sends it: the Task (v0.3.0 §9.5), where v1.0 sends a
 * StreamResponse (`{statusUpdate: …}`).
 */
export function pushBodyOut(payload: unknown): unknown {
  const p = isObj(payload) ? payload : {};
  if (isObj(p.statusUpdate)) return { kind: 'task', id: p.statusUpdate.taskId, contextId: p.statusUpdate.contextId, status: statusOut(p.statusUpdate.status) };
  if (p.task !== undefined) return taskOut(p.task);
  return payload;
}

// --- cards -------------------------------------------------------------------------------------

/**
 * The v1.0 card the neutral runtime works from, read off a v0.3 card: the main `url` with its
 * `preferredTransport` (default JSONRPC) at the card's `protocolVersion` (Major.Minor), security
 * schemes unwrapped from their `type` tag, `security` as `securityRequirements`.
 */
export function cardIn(card: Json): Json {
  const major = /^(\d+)\.(\d+)/.exec(String(card.protocolVersion ?? '0.3'));
  const version = major ? `${major[1]}.${major[2]}` : '0.3';
  const schemes: Json = {};
  for (const [name, s] of Object.entries(isObj(card.securitySchemes) ? card.securitySchemes : {})) {
    if (!isObj(s)) continue;
    const { type, in: location, ...rest } = s;
    const kind = V03_SCHEME_KIND[String(type)];
    if (kind) schemes[name] = { [kind]: { ...rest, ...(location !== undefined ? { location } : {}) } };
  }
  const caps = isObj(card.capabilities) ? card.capabilities : {};
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    supportedInterfaces: [{ url: card.url, protocolBinding: String(card.preferredTransport ?? 'JSONRPC'), protocolVersion: version }],
    capabilities: { ...caps, ...(card.supportsAuthenticatedExtendedCard === true ? { extendedAgentCard: true } : {}) },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills,
    ...(Object.keys(schemes).length ? { securitySchemes: schemes } : {}),
    ...(Array.isArray(card.security)
      ? {
          securityRequirements: card.security.map((r) => ({
            schemes: Object.fromEntries(Object.entries(isObj(r) ? r : {}).map(([k, v]) => [k, { list: Array.isArray(v) ? v : [] }])),
          })),
        }
      : {}),
  };
}
