/**
 * How the transcript keeps a call, whatever wire it came on: its neutral operation (and the wire's
 * own method name beside it, where they differ), the binding's request id, its params (bounded,
 * credentials redacted) and a digest of the params.
 */
import { createHash } from 'node:crypto';
import { depthOver, MAX_BODY_CHARS, MAX_BODY_DEPTH, ownHead, redactJson } from '../../harness/core/body.js';
import { type HttpEvent, keepOn } from '../../harness/core/transcript.js';

type Params = Record<string, unknown>;

/** A call as a wire read it, for the transcript. */
export interface CallRecord {
  /** The neutral operation (spec §3.1), or the wire's method where it names none. */
  method: string;
  /** The binding's request id (JSON-RPC's `id`), null where it has none. */
  id: unknown;
  params: Params;
  /** The method as the wire spelled it, where the dialect spells it otherwise than `method`. */
  wireMethod?: string;
}

/**
 * Params as the transcript keeps them: whole when small and shallow, else a digest (a flood must not
 * cost memory or stack); a credential under its key (a push config's `token`, its `credentials`)
 * redacted, as response bodies are (core/body.ts). The params digest is taken before, from the whole params.
 */
function recordable(params: Params, raw: string, ev: HttpEvent): unknown {
  if (raw.length > MAX_BODY_CHARS) return { '@truncated': true, bytes: raw.length };
  if (depthOver(params, MAX_BODY_DEPTH)) return { '@truncated': true, bytes: raw.length, reason: `nested deeper than ${MAX_BODY_DEPTH}` };
  if (!keepOn(ev, raw.length)) return { '@truncated': true, bytes: raw.length, reason: "past the run's budget of payloads kept whole" };
  return redactJson(params);
}

/**
 * The request id as the transcript keeps it. JSON-RPC 2.0 §4: "An identifier established by the
 * Client that MUST contain a String, Number, or NULL value if included". Anything else (an object
 * nested thousands deep, say) is kept as a short description, never as-is.
 */
export function recordableId(id: unknown): unknown {
  if (id === null || typeof id === 'number') return id;
  if (typeof id === 'string') return id.length <= 256 ? id : { '@truncated': true, chars: id.length };
  return { '@invalid': Array.isArray(id) ? 'array' : typeof id };
}

/** A digest of the params without any `messageId`: two requests with it equal sent the same params. */
function paramsDigest(params: Params): string | undefined {
  try {
    return createHash('sha256')
      .update(JSON.stringify(params, (k, v: unknown) => (k === 'messageId' ? undefined : v)))
      .digest('hex')
      .slice(0, 16);
  } catch {
    return undefined; // nested past what JSON.stringify can walk: the recorded params stand in
  }
}

/** Records a call on its event: method, id and params (bounded), the wire's method, and the digest of its params. `raw`: the request body. */
export function recordCall(ev: HttpEvent, call: CallRecord, raw: string): void {
  const { method, params } = call;
  ev.rpc = { method: method.length <= 200 ? method : `${ownHead(method, 200)}…`, id: recordableId(call.id ?? null), params: recordable(params, raw, ev) };
  if (call.wireMethod !== undefined) ev.rpc.wireMethod = call.wireMethod;
  ev.paramsDigest = paramsDigest(params);
}
