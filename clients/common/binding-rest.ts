/**
 * The reference client's HTTP+JSON binding (A2A v1.0 §11), written from the spec text and the
 * proto's `google.api.http` options: each operation as a verb and a path below the interface URL
 * (§11.3), the tenant of the chosen interface as the path's first segment (the proto's `/{tenant}/…`
 * bindings; §8.3.2 rule 4), GET parameters in the query (§11.5), and an error answer read back from
 * its google.rpc.Status (§11.6) into the A2A error it names. The peers' wire (peers/wires/) is
 * written apart from this: a misreading shared by both would pass itself.
 */
import { type A2AErrorCode, codeOfReason } from './binding-errors.js';

type Params = Record<string, unknown>;

/** One operation as an HTTP request: verb, path (with its query) below the interface URL, and a JSON body or none. */
export interface RestRequest {
  verb: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: Params;
  /** The answer is an event stream (§11.7). */
  stream: boolean;
}

const seg = (v: unknown) => encodeURIComponent(String(v ?? ''));

/** The query of a GET: scalars only, in camelCase as the JSON names them (§11.5); nested objects cannot go there. */
function query(params: Params, keys: readonly string[]): string {
  const q = new URLSearchParams();
  for (const k of keys) {
    const v = params[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Params less the fields the path carries. */
function rest(params: Params, ...drop: string[]): Params {
  const out: Params = {};
  for (const [k, v] of Object.entries(params)) if (!drop.includes(k)) out[k] = v;
  return out;
}

/** The request of an operation, or undefined for one the binding has no route for. */
export function restRequest(op: string, params: Params): RestRequest | undefined {
  const tenant = typeof params.tenant === 'string' && params.tenant !== '' ? `/${seg(params.tenant)}` : '';
  const p = rest(params, 'tenant');
  const at = (path: string) => `${tenant}${path}`;
  switch (op) {
    case 'SendMessage':
      return { verb: 'POST', path: at('/message:send'), body: p, stream: false };
    case 'SendStreamingMessage':
      return { verb: 'POST', path: at('/message:stream'), body: p, stream: true };
    case 'GetTask':
      return { verb: 'GET', path: at(`/tasks/${seg(p.id)}${query(p, ['historyLength'])}`), stream: false };
    case 'ListTasks':
      return {
        verb: 'GET',
        path: at(`/tasks${query(p, ['contextId', 'status', 'pageSize', 'pageToken', 'historyLength', 'statusTimestampAfter', 'includeArtifacts'])}`),
        stream: false,
      };
    case 'CancelTask':
      return { verb: 'POST', path: at(`/tasks/${seg(p.id)}:cancel`), body: rest(p, 'id'), stream: false };
    case 'SubscribeToTask':
      // §11.3.2 says POST (the proto's option says GET): POST, as the text and the JS SDK have it.
      return { verb: 'POST', path: at(`/tasks/${seg(p.id)}:subscribe`), stream: true };
    case 'CreateTaskPushNotificationConfig':
      return { verb: 'POST', path: at(`/tasks/${seg(p.taskId)}/pushNotificationConfigs`), body: p, stream: false };
    case 'GetTaskPushNotificationConfig':
      return { verb: 'GET', path: at(`/tasks/${seg(p.taskId)}/pushNotificationConfigs/${seg(p.id)}`), stream: false };
    case 'ListTaskPushNotificationConfigs':
      return { verb: 'GET', path: at(`/tasks/${seg(p.taskId)}/pushNotificationConfigs${query(p, ['pageSize', 'pageToken'])}`), stream: false };
    case 'DeleteTaskPushNotificationConfig':
      return { verb: 'DELETE', path: at(`/tasks/${seg(p.taskId)}/pushNotificationConfigs/${seg(p.id)}`), stream: false };
    case 'GetExtendedAgentCard':
      return { verb: 'GET', path: at('/extendedAgentCard'), stream: false };
    default:
      return undefined;
  }
}

/**
 * The A2A error an error answer names: the google.rpc.ErrorInfo of its `error.details` in the
 * a2a-protocol.org domain (§11.6: "implementations MUST include a google.rpc.ErrorInfo"), or none
 * (a body that is not a google.rpc.Status, or names no A2A error: the HTTP status is the answer).
 */
export function restError(text: string): { code: A2AErrorCode; message: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (body as { error?: { message?: unknown; details?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object' || !Array.isArray(error.details)) return undefined;
  for (const d of error.details as Array<Record<string, unknown>>) {
    if (!d || typeof d !== 'object' || d['@type'] !== 'type.googleapis.com/google.rpc.ErrorInfo' || d.domain !== 'a2a-protocol.org') continue;
    const code = codeOfReason(String(d.reason ?? ''));
    if (code !== undefined) return { code, message: typeof error.message === 'string' ? error.message : String(d.reason) };
  }
  return undefined;
}
