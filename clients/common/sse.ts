/**
 * The event streams of the JSON bindings (JSON-RPC §9.4.2, HTTP+JSON §11.7) as the clients read them:
 * each `data:` event decoded by the binding's own framing, until the stream closes or is cut; and a
 * streaming call answered with something else than a stream.
 */
import { networkCode, type RpcOutcome } from './outcome.js';

/** A streaming call answered with a body that is no event stream: the error it carries, or what it is. */
export async function notAStream(res: Response, signal: AbortSignal): Promise<Exclude<RpcOutcome, { ok: true }>> {
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (signal.aborted) throw err;
    return { ok: false, kind: 'cut', status: res.status, ...networkCode(err) };
  }
  let body: { error?: { code?: number; message?: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { ok: false, kind: 'http', status: res.status, text: 'neither an event stream nor JSON' };
  }
  if (body.error) return { ok: false, kind: 'rpc', code: Number(body.error.code), message: String(body.error.message ?? '') };
  return { ok: false, kind: 'http', status: res.status, text: 'expected text/event-stream' };
}

/** The events of an SSE answer, each decoded; returns how the stream ended (undefined: closed). */
export async function* sseEvents(
  res: Response,
  signal: AbortSignal,
  decode: (data: unknown) => { result?: Record<string, unknown>; error?: { code?: number; message?: string } },
  shape: (r: Record<string, unknown>) => Record<string, unknown>,
): AsyncGenerator<Record<string, unknown>, RpcOutcome | undefined> {
  const { EventSourceParserStream } = await import('eventsource-parser/stream');
  const events = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = (events as unknown as AsyncIterable<{ data: string }>)[Symbol.asyncIterator]();
  // Whether the body ended by itself (closed or cut); otherwise it is closed on the way out, as
  // `for await` would: the caller returned early, or an event ended the call.
  let ended = false;
  try {
    for (;;) {
      let next: IteratorResult<{ data: string }>;
      try {
        next = await reader.next();
      } catch (err) {
        // The connection closed in the middle of the stream. The events so far were yielded; the
        // caller learns that the stream was cut, not closed, and can follow the task another way.
        ended = true;
        if (signal.aborted) throw err;
        return { ok: false, kind: 'cut', status: res.status, ...networkCode(err) };
      }
      if (next.done) {
        ended = true;
        return undefined;
      }
      let msg: ReturnType<typeof decode>;
      try {
        msg = decode(JSON.parse(next.value.data));
      } catch {
        return { ok: false, kind: 'http', status: res.status, text: 'an event that is not JSON' };
      }
      if (msg.error) return { ok: false, kind: 'rpc', code: Number(msg.error.code), message: String(msg.error.message ?? '') };
      if (msg.result) yield shape(msg.result);
    }
  } finally {
    if (!ended) await reader.return?.().catch(() => undefined);
  }
}
