/**
 * What one A2A call came to, whatever the binding it went over: a result, or how it failed (an HTTP
 * status, an A2A error by §5.4's JSON-RPC code, a network failure, an answer cut mid-body).
 */
export type RpcOutcome =
  | { ok: true; result: Record<string, unknown> }
  /** `retryAfterMs`: the wait a 503 or 429 named (Retry-After, RFC 9110 §10.2.3; gRPC: its metadata). */
  | { ok: false; kind: 'http'; status: number; text: string; challenge?: string; retryAfterMs?: number }
  | { ok: false; kind: 'rpc'; code: number; message: string }
  | { ok: false; kind: 'network'; code: string; message: string }
  /**
   * The answer began (its status and headers came) and the connection closed before its body was
   * whole: the request reached the agent, and what the agent did with it is unknown.
   */
  | { ok: false; kind: 'cut'; status: number; code: string; message: string };

/**
 * A fetch that failed: where the connection closed under a request already sent, before any answer
 * (undici's "other side closed"), the agent may have taken it, and it is a cut answer with no status
 * (0); anything else (no connection, a handshake refused) is a network failure.
 */
export function fetchFailure(err: unknown): Extract<RpcOutcome, { kind: 'network' | 'cut' }> {
  const c = networkCode(err);
  return c.code === 'UND_ERR_SOCKET' ? { ok: false, kind: 'cut', status: 0, ...c } : { ok: false, kind: 'network', ...c };
}

/** Error code of a failed fetch: undici puts the socket/TLS error in `cause`. */
export function networkCode(err: unknown): { code: string; message: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  return { code: e.cause?.code ?? e.code ?? e.name ?? 'ERROR', message: e.cause?.message ?? e.message ?? String(err) };
}

/** A Retry-After value (delta-seconds, or an HTTP-date) as milliseconds from now, or undefined where it is neither. */
export function retryAfterMs(value: string | null | undefined): number | undefined {
  const v = (value ?? '').trim();
  if (/^\d{1,6}$/.test(v)) return Number(v) * 1000;
  const at = v ? Date.parse(v) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The operations that only read: sending one again changes nothing on the agent (A2A §3.3.1, "Get operations are naturally idempotent"). */
const IDEMPOTENT_READS = new Set(['GetTask', 'ListTasks', 'GetExtendedAgentCard', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs']);

/** A read whose answer was cut on the way, read again a few times, a little later each time (an idempotent Get); any other outcome as it is. */
export async function readAgain(method: string, first: RpcOutcome, again: () => Promise<RpcOutcome>, signal: AbortSignal): Promise<RpcOutcome> {
  let out = first;
  for (let tries = 1; tries <= 5 && !out.ok && out.kind === 'cut' && IDEMPOTENT_READS.has(method) && !signal.aborted; tries++) {
    await pause(100 * tries, signal);
    if (signal.aborted) break;
    out = await again();
  }
  return out;
}
