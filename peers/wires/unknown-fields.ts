/**
 * Unknown members in a JSON answer (runtime.unknownFields; A2A v1.0.1 §5.7: "Implementations SHOULD
 * ignore unrecognized fields in messages"), and values no version defines (runtime.futureValues): what
 * a peer of a later protocol version might send. Each is the same everywhere (FUTURE_MEMBER,
 * FUTURE_STATE, FUTURE_PART), so the transcript and a reader can find it. Applied after the wire has
 * encoded the answer, so every JSON binding and dialect gets the same.
 */
import { HttpResponse } from 'msw';

/** The member added: no version of A2A defines it. */
export const FUTURE_MEMBER = 'futureExtension';
const FUTURE_VALUE = { since: '9.9', note: 'a member a later version of the protocol defines' };

/**
 * Values whose members are not the protocol's fields, never touched: free-form ones (a Struct, a data
 * part's payload, an extension's params, a signature's protected header) and maps, whose keys are
 * names (security schemes and requirements, OAuth scopes; v0.3's `security` entries).
 */
const FREE_FORM = new Set(['metadata', 'data', 'params', 'header', 'securitySchemes', 'schemes', 'scopes', 'security']);

type Depth = 'top' | 'every';

/** The value with the unknown member added where `depth` says; arrays are walked, free-form values are not. */
export function withUnknownMembers(value: unknown, depth: Depth, top = true): unknown {
  if (Array.isArray(value)) return value.map((v) => withUnknownMembers(v, depth, top));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = FREE_FORM.has(k) || (!top && depth === 'top') ? v : withUnknownMembers(v, depth, false);
  if (top || depth === 'every') out[FUTURE_MEMBER] = FUTURE_VALUE;
  return out;
}

/** What an answer's payload becomes: members added, values replaced. */
export type Reshape = (payload: unknown) => unknown;

export const unknownMembers =
  (depth: Depth): Reshape =>
  (v) =>
    withUnknownMembers(v, depth);

/**
 * Values no version defines (runtime.futureValues), where a later version might send them: `state`,
 * a task's WORKING status named by a state no version has (v0.3's spelling too); `part`, each
 * artifact's parts followed by one whose content is a kind no version has, its media type plain text.
 */
export const FUTURE_STATE = { v1: 'TASK_STATE_DEFERRED', v03: 'deferred' } as const;
export const FUTURE_PART = 'futureContent';

export const futureValues =
  (kind: 'state' | 'part'): Reshape =>
  (v) =>
    withFutureValues(v, kind);

function withFutureValues(value: unknown, kind: 'state' | 'part'): unknown {
  if (Array.isArray(value)) return value.map((v) => withFutureValues(v, kind));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (FREE_FORM.has(k)) out[k] = v;
    else if (kind === 'state' && k === 'state' && (v === 'TASK_STATE_WORKING' || v === 'working'))
      out[k] = v === 'working' ? FUTURE_STATE.v03 : FUTURE_STATE.v1;
    else if (kind === 'part' && k === 'parts' && Array.isArray(v) && 'artifactId' in value) out[k] = [...v, futurePart(v)];
    else out[k] = withFutureValues(v, kind);
  }
  return out;
}

/** A part whose content no version defines: v0.3's parts name their kind, v1.0's carry one content member. */
function futurePart(parts: unknown[]): Record<string, unknown> {
  const content = { [FUTURE_PART]: { since: '9.9', note: 'a kind of part a later version of the protocol defines' } };
  const v03 = parts.some((p) => p !== null && typeof p === 'object' && 'kind' in p);
  return v03 ? { kind: 'future', ...content } : { ...content, mediaType: 'text/plain' };
}

/** A JSON-RPC envelope's result is reshaped; the envelope itself stays as JSON-RPC 2.0 defines it. */
function intoPayload(json: unknown, reshape: Reshape): unknown {
  if (json && typeof json === 'object' && !Array.isArray(json) && (json as Record<string, unknown>).jsonrpc === '2.0') {
    const env = json as Record<string, unknown>;
    return 'result' in env ? { ...env, result: reshape(env.result) } : env;
  }
  return reshape(json);
}

/** A successful JSON answer reshaped, and whether anything changed; any other answer as it was. */
export async function reshapedAnswer(res: Response, reshape: Reshape): Promise<{ res: Response; changed: boolean }> {
  if (res.status < 200 || res.status >= 300 || !/json/i.test(res.headers.get('content-type') ?? '')) return { res, changed: false };
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { res: new HttpResponse(text, { status: res.status, headers: res.headers }), changed: false };
  }
  if (json && typeof json === 'object' && 'error' in json) return { res: new HttpResponse(text, { status: res.status, headers: res.headers }), changed: false };
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  const body = JSON.stringify(intoPayload(json, reshape));
  return { res: new HttpResponse(body, { status: res.status, headers }), changed: body !== JSON.stringify(json) };
}

/** One SSE frame (`data: <json>` and its blank line) with its event reshaped. */
export function reshapedFrame(frame: string | Uint8Array, reshape: Reshape): string | Uint8Array {
  if (typeof frame !== 'string') return frame;
  const m = /^data: (.*)\n\n$/s.exec(frame);
  if (!m || m[1]!.includes('\n')) return frame;
  try {
    const json = JSON.parse(m[1]!) as unknown;
    if (json && typeof json === 'object' && 'error' in json) return frame;
    return `data: ${JSON.stringify(intoPayload(json, reshape))}\n\n`;
  } catch {
    return frame;
  }
}
