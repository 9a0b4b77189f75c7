/**
 * An event stream's frames as PeerRuntime.sseFraming asks: the same events, framed in ways the SSE
 * standard allows (WHATWG HTML §9.2.6, "Interpreting an event stream"). A frame is the wire's
 * `data: <json>\n\n`; anything else (a gRPC message) passes as it is.
 */
import type { SseFraming } from '../../harness/core/scenario/runtime.js';
import { HOSTILE_STREAM_BYTES } from '../../harness/core/transcript.js';

const END = { lf: '\n', crlf: '\r\n', cr: '\r' } as const;

/** The metadata note a split event carries: text whose UTF-8 has two-, three- and four-byte sequences for the splits to fall in. */
export const SPLIT_NOTE = { 'contoso/locale': 'Zürich — 東京 ✓ 🛰️' };

/** The event's innermost object (the Task, the update, the Message) with the split note in its metadata (a Struct, free-form). */
function withNote(json: string): string {
  const v = JSON.parse(json) as Record<string, unknown>;
  const env = v.jsonrpc === '2.0' && v.result && typeof v.result === 'object' ? (v.result as Record<string, unknown>) : v;
  const keys = Object.keys(env);
  const inner = keys.length === 1 && env[keys[0]!] && typeof env[keys[0]!] === 'object' ? (env[keys[0]!] as Record<string, unknown>) : env;
  inner.metadata = { ...(inner.metadata && typeof inner.metadata === 'object' ? inner.metadata : {}), ...SPLIT_NOTE };
  return JSON.stringify(v);
}

/** Bytes of each piece a split event is written in, and the least time between two. */
const PIECE = 7;
const GAP_MS = 1;

/** The stream's bytes in pieces of a few bytes, written apart in time (sseFraming.split): lines and UTF-8 sequences split across writes. */
export function splitWrites(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, c) {
        for (let i = 0; i < chunk.length; i += PIECE) {
          c.enqueue(chunk.subarray(i, i + PIECE));
          await new Promise((r) => setTimeout(r, GAP_MS));
        }
      },
    }),
  );
}

/** A framer for one stream: it numbers the events it frames (`id:`). */
export function sseFramer(f: SseFraming | undefined): (frame: string | Uint8Array) => string | Uint8Array {
  if (!f) return (frame) => frame;
  let n = 0;
  return (frame) => {
    if (typeof frame !== 'string') return frame;
    const m = /^data: (.*)\n\n$/s.exec(frame);
    if (!m) return frame;
    const json = f.split && !f.lineBytes ? withNote(m[1]!) : m[1]!;
    const eol = END[f.lineEnd ?? 'lf'];
    let lines: string[];
    // Pretty-printed JSON has no line end inside a string (JSON escapes them): each of its lines is a `data:` line.
    if (f.multiline) lines = JSON.stringify(JSON.parse(json), null, 1).split('\n');
    // JSON whitespace after the opening brace: the same value, on one longer line.
    else if (f.lineBytes && Buffer.byteLength(json) < f.lineBytes) lines = [`${json[0]}${' '.repeat(f.lineBytes - Buffer.byteLength(json))}${json.slice(1)}`];
    else lines = [json];
    n++;
    const head = f.fields ? [': keep-alive', 'event: message', `id: ${n}`, 'retry: 3000'] : [];
    return [...head, ...lines.map((l) => `data: ${l}`)].join(eol) + eol + eol;
  };
}

const HOSTILE_CHUNK = 64 * 1024;

/**
 * An event stream that turns hostile after its first event (runtime.hostileStream): the first event
 * as the runtime wrote it (the Task, so the client knows its task), then a line with no end
 * (`no-line-end`) or `data:` lines that never end in a blank line (`endless-event`), 64 KiB every few
 * milliseconds up to HOSTILE_STREAM_BYTES, then nothing: the stream held open until the client closes it.
 * The task goes on behind it.
 */
export function hostileAfterFirst(events: ReadableStream<Uint8Array>, kind: 'no-line-end' | 'endless-event'): ReadableStream<Uint8Array> {
  const source = events.getReader();
  const enc = new TextEncoder();
  const line = 'x'.repeat(1023);
  const piece =
    kind === 'no-line-end' ? enc.encode('x'.repeat(HOSTILE_CHUNK)) : enc.encode(`data: ${line}\n`.repeat(Math.floor(HOSTILE_CHUNK / (line.length + 7))));
  let sent = 0;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      if (first) {
        first = false;
        const got = await source.read();
        if (!got.done) c.enqueue(got.value);
        // The runtime's further events are never written: the stream is stuck in its endless line.
        await source.cancel().catch(() => undefined);
        c.enqueue(enc.encode(kind === 'no-line-end' ? 'data: ' : ''));
        return;
      }
      // Written out: nothing more, and the stream held open until the client (or the run's end) closes it.
      if (sent >= HOSTILE_STREAM_BYTES) return new Promise<void>(() => {});
      await new Promise((r) => setTimeout(r, 4));
      c.enqueue(piece);
      sent += piece.length;
    },
    cancel() {
      void source.cancel().catch(() => undefined);
    },
  });
}
