/**
 * The event streams of the JSON bindings (JSON-RPC §9.4.2, HTTP+JSON §11.7) as the clients read them:
 * each `data:` event decoded by the binding's own framing, until the stream closes or is cut; and a
 * streaming call answered with something else than a stream.
 */
import { networkCode, type RpcOutcome } from './outcome.js';
import { StrictDecodeError } from './strict-decode.js';

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

/** How a naive client misreads a stream (clients/naive): data lines dispatched one by one, a line cap. */
export interface SseMistakes {
  perLine?: boolean;
  lineCap?: number;
  /** Each read of the body taken as whole lines: decoded on its own and parsed afresh, a line it cut lost. */
  perChunk?: boolean;
  /** No bound on the bytes of one event: a line or an event that never ends is buffered for ever. */
  unbounded?: boolean;
}

/**
 * The most bytes one event may take, its lines and line ends included: past it the stream is given up
 * as broken (a line or an event with no end), and ends as a cut one does. Four times the mebibyte
 * line a peer may legally send (stream-framing/one-mib-line).
 */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * The `data` of each event of a body, as it arrives. The body is read without pause, whatever the
 * caller does meanwhile: a chunk handed to a pending read is ours, while one left queued in the body
 * when the connection errors is dropped with the queue (a ReadableStream's error clears it). So an
 * event whose bytes arrived whole just before a cut is always seen, as a client reading the socket
 * would. Ends with the error that cut the body, or `undefined` where it closed.
 */
async function* bodyEvents(body: ReadableStream<Uint8Array>, mistakes: SseMistakes = {}): AsyncGenerator<string, { error: unknown } | undefined> {
  const { createParser } = await import('eventsource-parser');
  const queue: string[] = [];
  let end: { error: unknown } | undefined | null = null; // null: still open
  let wake: (() => void) | undefined;
  // The naive mistake: each `data:` line of an event dispatched as an event of its own.
  // Bytes read since the last event was dispatched: what one event has taken so far.
  let pending = 0;
  const fresh = () =>
    createParser({
      onEvent: (e) => {
        pending = 0;
        queue.push(...(mistakes.perLine ? e.data.split('\n') : [e.data]));
      },
    });
  let parser = fresh();
  // The naive mistake: a line scanner of a fixed size that stops at a longer line, and the stream taken as ended.
  let open = 0;
  const capped = (text: string) => {
    if (mistakes.lineCap === undefined) return false;
    const nl = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
    open = nl < 0 ? open + text.length : text.length - nl - 1;
    return open > mistakes.lineCap;
  };
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let last = '';
  // Text held until a line end comes: a long line fed in pieces costs the parser its whole length each time.
  let held = '';
  const feed = (text: string) => {
    if (text) last = text;
    if (mistakes.perChunk) return parser.feed(text);
    held += text;
    if (!/[\r\n]/.test(text)) return;
    parser.feed(held);
    held = '';
  };
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        pending += value.length;
        // The naive mistake: a read is taken for whole lines, decoded alone and parsed by a fresh parser.
        if (mistakes.perChunk) parser = fresh();
        const text = mistakes.perChunk ? new TextDecoder().decode(value) : decoder.decode(value, { stream: true });
        if (capped(text)) {
          await reader.cancel().catch(() => undefined);
          break;
        }
        feed(text);
        wake?.();
        // Counted after the read is parsed: an event this read completed is delivered, and only what follows it counts.
        if (pending > MAX_EVENT_BYTES && !mistakes.unbounded) {
          await reader.cancel().catch(() => undefined);
          throw new Error(`an event of more than ${MAX_EVENT_BYTES} bytes with no end: the stream given up as broken`);
        }
      }
      feed(decoder.decode());
      if (held) parser.feed(held);
      // A CR at the very end is a line end (no LF can follow it any more); the parser waits for the LF that
      // might have come, so it is told so: a stream of lone-CR line ends keeps its last event.
      if (last.endsWith('\r')) parser.feed('\n');
      end = undefined;
    } catch (error) {
      end = { error };
    }
    wake?.();
  })();
  try {
    for (;;) {
      while (queue.length) yield queue.shift()!;
      if (end !== null) return end;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
  } finally {
    // The caller stopped early: the rest of the body is not read.
    if (end === null) await reader.cancel().catch(() => undefined);
    await pump;
  }
}

/** The events of an SSE answer, each decoded; returns how the stream ended (undefined: closed). */
export async function* sseEvents(
  res: Response,
  signal: AbortSignal,
  decode: (data: unknown) => { result?: Record<string, unknown>; error?: { code?: number; message?: string } },
  shape: (r: Record<string, unknown>) => Record<string, unknown>,
  mistakes: SseMistakes = {},
): AsyncGenerator<Record<string, unknown>, RpcOutcome | undefined> {
  const events = bodyEvents(res.body!, mistakes);
  // Whether the body ended by itself (closed or cut); otherwise it is closed on the way out, as
  // `for await` would: the caller returned early, or an event ended the call.
  let ended = false;
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) {
        ended = true;
        if (!next.value) return undefined;
        // The connection closed in the middle of the stream. The events so far were yielded; the
        // caller learns that the stream was cut, not closed, and can follow the task another way.
        if (signal.aborted) throw next.value.error;
        return { ok: false, kind: 'cut', status: res.status, ...networkCode(next.value.error) };
      }
      let msg: ReturnType<typeof decode>;
      try {
        msg = decode(JSON.parse(next.value));
      } catch (err) {
        return { ok: false, kind: 'http', status: res.status, text: err instanceof StrictDecodeError ? err.message : 'an event that is not JSON' };
      }
      if (msg.error) return { ok: false, kind: 'rpc', code: Number(msg.error.code), message: String(msg.error.message ?? '') };
      if (msg.result) yield shape(msg.result);
    }
  } finally {
    if (!ended) await events.return(undefined).catch(() => undefined);
  }
}
