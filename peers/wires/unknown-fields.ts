/**
 * Unknown members in a JSON answer (runtime.unknownFields; A2A v1.0.1 §5.7: "Implementations SHOULD
 * ignore unrecognized fields in messages"): what a peer of a later protocol version might send. The
 * member is the same everywhere (FUTURE_MEMBER), so the transcript and a reader can find each one.
 * Applied after the wire has encoded the answer, so every JSON binding and dialect gets the same.
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

/** A JSON-RPC envelope's result gets the members; the envelope itself stays as JSON-RPC 2.0 defines it. */
function intoPayload(json: unknown, depth: Depth): unknown {
  if (json && typeof json === 'object' && !Array.isArray(json) && (json as Record<string, unknown>).jsonrpc === '2.0') {
    const env = json as Record<string, unknown>;
    return 'result' in env ? { ...env, result: withUnknownMembers(env.result, depth) } : env;
  }
  return withUnknownMembers(json, depth);
}

/** A successful JSON answer with the members added; any other answer as it was. */
export async function answerWithUnknownMembers(res: Response, depth: Depth): Promise<Response> {
  if (res.status < 200 || res.status >= 300 || !/json/i.test(res.headers.get('content-type') ?? '')) return res;
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new HttpResponse(text, { status: res.status, headers: res.headers });
  }
  if (json && typeof json === 'object' && 'error' in json) return new HttpResponse(text, { status: res.status, headers: res.headers });
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new HttpResponse(JSON.stringify(intoPayload(json, depth)), { status: res.status, headers });
}

/** One SSE frame (`data: <json>` and its blank line) with the members added to its event. */
export function frameWithUnknownMembers(frame: string | Uint8Array, depth: Depth): string | Uint8Array {
  if (typeof frame !== 'string') return frame;
  const m = /^data: (.*)\n\n$/s.exec(frame);
  if (!m || m[1]!.includes('\n')) return frame;
  try {
    const json = JSON.parse(m[1]!) as unknown;
    if (json && typeof json === 'object' && 'error' in json) return frame;
    return `data: ${JSON.stringify(intoPayload(json, depth))}\n\n`;
  } catch {
    return frame;
  }
}
