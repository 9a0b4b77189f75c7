/**
 * The clients' A2A v0.3 JSON-RPC codec, written from the v0.3.0 specification and its JSON Schema:
 * the client thinks in the spec's operations (SendMessage, GetTask, …, v1.0 shapes) and this file
 * spells a call the v0.3 way and reads a v0.3 answer back. A client sees only the wire: this file
 * imports nothing of the harness or the peers.
 */

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const METHOD: Record<string, string> = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
};

const STATE: Record<string, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
};

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
  if (typeof p.text === 'string' && (mt === '' || /^text\/plain$/i.test(mt.trim()))) return { kind: 'text', text: p.text };
  if (p.data !== undefined && (mt === '' || /^application\/json$/i.test(mt.trim()))) return { kind: 'data', data: p.data };
  // A text part in another media type (or with parameters), or raw bytes: a file part keeps the type (TextPart has none).
  if (typeof p.text === 'string' && /^application\/json$/i.test(mt.trim())) {
    try {
      return { kind: 'data', data: JSON.parse(p.text) as unknown };
    } catch {
      // not JSON after all: a file part
    }
  }
  if (typeof p.url === 'string') return { kind: 'file', file: { uri: p.url, ...(mt ? { mimeType: mt } : {}) } };
  const bytes = typeof p.raw === 'string' ? p.raw : Buffer.from(String(p.text ?? '')).toString('base64');
  return { kind: 'file', file: { bytes, ...(mt ? { mimeType: mt } : {}) } };
}

function messageOut(m: unknown): unknown {
  if (!isObj(m)) return m;
  const { role, parts, ...rest } = m;
  return { kind: 'message', ...rest, role: role === 'ROLE_AGENT' ? 'agent' : 'user', parts: Array.isArray(parts) ? parts.map(partOut) : [] };
}

function pushOut(c: Json): Json {
  const auth = isObj(c.authentication) ? c.authentication : undefined;
  return {
    url: c.url,
    ...(typeof c.token === 'string' ? { token: c.token } : {}),
    ...(auth ? { authentication: { schemes: [auth.scheme], ...(typeof auth.credentials === 'string' ? { credentials: auth.credentials } : {}) } } : {}),
  };
}

/** A call in the spec's terms, spelled as v0.3; undefined where v0.3 has no such method (ListTasks). */
export function encodeCall(method: string, params: unknown): { method: string; params: unknown } | undefined {
  const name = METHOD[method];
  if (!name) return undefined;
  const p = isObj(params) ? params : {};
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const c = isObj(p.configuration) ? p.configuration : {};
      return {
        method: name,
        params: {
          message: messageOut(p.message),
          configuration: {
            ...(Array.isArray(c.acceptedOutputModes) ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
            // v1.0's returnImmediately (default false: wait) is v0.3's blocking (absent: do not wait).
            blocking: c.returnImmediately !== true,
            ...(isObj(c.taskPushNotificationConfig) ? { pushNotificationConfig: pushOut(c.taskPushNotificationConfig) } : {}),
          },
        },
      };
    }
    case 'CreateTaskPushNotificationConfig':
      return { method: name, params: { taskId: p.taskId, pushNotificationConfig: pushOut(p) } };
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { method: name, params: { id: p.taskId, pushNotificationConfigId: p.id } };
    case 'ListTaskPushNotificationConfigs':
      return { method: name, params: { id: p.taskId } };
    case 'GetExtendedAgentCard':
      return { method: name, params: undefined };
    default:
      return { method: name, params };
  }
}

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
    const mediaType = typeof p.file.mimeType === 'string' ? p.file.mimeType : '';
    return typeof p.file.uri === 'string' ? { url: p.file.uri, mediaType } : { raw: p.file.bytes, mediaType };
  }
  return {};
}

function statusIn(s: unknown): Json {
  return isObj(s) ? { ...s, state: STATE[String(s.state)] ?? 'TASK_STATE_UNSPECIFIED' } : {};
}

function taskIn(t: unknown): Json {
  if (!isObj(t)) return {};
  const { kind: _kind, status, artifacts, ...rest } = t;
  return {
    ...rest,
    status: statusIn(status),
    ...(Array.isArray(artifacts)
      ? { artifacts: artifacts.map((a) => (isObj(a) ? { ...a, parts: Array.isArray(a.parts) ? a.parts.map(partIn) : [] } : a)) }
      : {}),
  };
}

function messageIn(m: unknown): Json {
  if (!isObj(m)) return {};
  const { kind: _kind, role, parts, ...rest } = m;
  return { ...rest, role: role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER', parts: Array.isArray(parts) ? parts.map(partIn) : [] };
}

/** A unary v0.3 answer, read back into the spec's (v1.0) shape. */
export function decodeResult(method: string, result: unknown): Json {
  const r = isObj(result) ? result : {};
  switch (method) {
    case 'SendMessage':
      return r.kind === 'message' ? { message: messageIn(r) } : { task: taskIn(r) };
    case 'GetTask':
    case 'CancelTask':
      return taskIn(r);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig': {
      const c = isObj(r.pushNotificationConfig) ? r.pushNotificationConfig : {};
      return { ...c, taskId: r.taskId };
    }
    case 'ListTaskPushNotificationConfigs':
      return { configs: Array.isArray(result) ? result : [] };
    default:
      return r;
  }
}

/** One streamed v0.3 event, read back into a v1.0 StreamResponse. */
export function decodeStreamResult(result: unknown): Json {
  const r = isObj(result) ? result : {};
  if (r.kind === 'task') return { task: taskIn(r) };
  if (r.kind === 'message') return { message: messageIn(r) };
  if (r.kind === 'status-update') return { statusUpdate: { taskId: r.taskId, contextId: r.contextId, status: statusIn(r.status) } };
  if (r.kind === 'artifact-update') {
    const a = isObj(r.artifact) ? r.artifact : {};
    return { artifactUpdate: { taskId: r.taskId, contextId: r.contextId, artifact: { ...a, parts: Array.isArray(a.parts) ? a.parts.map(partIn) : [] } } };
  }
  return r;
}
