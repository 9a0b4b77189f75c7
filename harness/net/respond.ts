/**
 * The wire side of PeerHost's answers (docs/architecture.md): a request's body read within its bound, a
 * request turned away before any peer sees it, and a peer's answer written out (whole, as an event
 * stream, or cut short by a scripted dropped connection) with what was sent kept on its event.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import { DROP_HEADER, keepOn, RESET_MARK, type HttpEvent, type Transcript } from '../core/transcript.js';
import { addStreamEvent, bodyRecord, keptChars, shedRecord, type BodyRecord } from '../core/body.js';

const MAX_BODY = 2 * 1024 * 1024;

/**
 * A body past the bound is refused, not cut: the harness stops keeping it, reads and drops what still
 * comes for a while (so the refusal reaches a client that is still sending, rather than a reset), and
 * only then closes the request.
 */
const LINGER_MS = 2000;
const LINGER_BYTES = 16 * 1024 * 1024;

/** A request's body, up to MAX_BODY bytes (an HTTP/1.1 request, or an HTTP/2 stream); rejects past it (see LINGER_MS). */
export function readBody(req: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (over) {
        if (size > MAX_BODY + LINGER_BYTES) req.destroy();
        return;
      }
      if (size > MAX_BODY) {
        over = true;
        chunks.length = 0;
        reject(new Error(`body over ${MAX_BODY} bytes`));
        setTimeout(() => req.destroy(), LINGER_MS).unref();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Answers a request with a plain-text `status` of the harness's own, its status (and `note`) on the request's event first. */
export function refuse(
  transcript: Transcript,
  ev: HttpEvent,
  res: ServerResponse,
  status: number,
  note: string | undefined,
  text: string,
  headers: Record<string, string> = {},
): void {
  ev.status = status;
  if (note !== undefined) ev.note = note;
  transcript.onAnswer?.(ev);
  res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);
}

/**
 * Writes a peer's answer to the client: its headers (less the drop mark), then its body whole, as an
 * event stream, or cut where a scripted dropped connection says. `streams`: the run's open streams.
 */
export async function answer(transcript: Transcript, streams: Set<ServerResponse>, ev: HttpEvent, res: ServerResponse, response: Response): Promise<void> {
  if (response.headers.get(DROP_HEADER) === RESET_MARK) {
    // A connection lost before the answer (runtime.reset): the call was taken, and not a byte of its answer leaves.
    await response.body?.cancel().catch(() => {});
    transcript.onAnswer?.(ev);
    res.destroy();
    return;
  }
  ev.status ??= response.status;
  const { out, dropAt } = responseHeaders(ev, response);
  const contentType = out['content-type'];
  // A whole body is read before it is sent, so the transcript keeps it; an event stream is kept event by event as it goes.
  const streamed = !!response.body && /^text\/event-stream/i.test(contentType ?? '');
  let whole: Buffer | undefined;
  if (response.body && !streamed) whole = Buffer.from(await response.arrayBuffer());
  // What a dropped answer really sent is what the transcript keeps.
  if (dropAt !== undefined && whole !== undefined) whole = whole.subarray(0, dropAt);
  if (whole !== undefined || !response.body) keepWhole(ev, whole, contentType);
  res.writeHead(response.status, out);
  transcript.onAnswer?.(ev);
  if (dropAt !== undefined) return cut(res, response, whole, dropAt);
  if (!response.body) {
    res.end();
    return;
  }
  if (whole !== undefined) {
    res.end(whole);
    return;
  }
  return stream(transcript, streams, ev, res, response.body, contentType);
}

/** The headers to send (every one the peer set but the drop mark), where it says to drop, and the few the event keeps. */
export function responseHeaders(ev: HttpEvent, response: Response): { out: Record<string, string>; dropAt: number | undefined } {
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    out[k] = v;
  });
  // A scripted dropped connection (runtime.drop): the peer's mark, never sent on.
  const dropAt = out[DROP_HEADER] === undefined ? undefined : Number(out[DROP_HEADER]);
  delete out[DROP_HEADER];
  const kept = {
    ...(out['www-authenticate'] ? { wwwAuthenticate: out['www-authenticate'].slice(0, 500) } : {}),
    ...(out['retry-after'] ? { retryAfter: out['retry-after'].slice(0, 100) } : {}),
    ...(out.etag ? { etag: out.etag.slice(0, 100) } : {}),
    ...(out['a2a-extensions'] ? { a2aExtensions: out['a2a-extensions'].slice(0, 2000) } : {}),
  };
  if (Object.keys(kept).length) ev.response = kept;
  return { out, dropAt };
}

/** Keeps a whole (or empty) response body on its event, as far as the run's budget lets it. */
export function keepWhole(ev: HttpEvent, whole: Buffer | undefined, contentType: string | undefined): void {
  const bytes = whole?.length ?? 0;
  const digest = bytes ? createHash('sha256').update(whole!).digest('hex').slice(0, 16) : undefined;
  // The card is shown beside the scenario byte for byte (its digest is on the event): not kept twice.
  ev.responseBody = ev.bodyDigest
    ? { ...(contentType ? { contentType } : {}), bytes, ...(digest ? { digest } : {}), omitted: 'the Agent Card: shown with the scenario, byte for byte' }
    : keepOn(ev, keptChars(bytes))
      ? bodyRecord(whole?.toString('utf8') ?? '', bytes, contentType, digest)
      : shedRecord(bytes, contentType, digest);
}

/** Waits for a write's callback, at most `ms`: what was written leaves before the connection is closed under it. */
export async function flushed(written: Promise<void>, ms = 1000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([written, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** Records how a streaming answer ended, once, while the run records. */
export function endOf(transcript: Transcript, ev: HttpEvent, by: 'peer' | 'client'): void {
  if (!ev.streamEnd && !transcript.isSealed) ev.streamEnd = { by, t: Math.round(transcript.elapsed()) };
}

/** Resolves when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The most characters of one line or event the listener's record of a stream holds: a legal event is at most 2 MiB (docs/scenario.schema.json, lineBytes). */
const HELD_MAX = 4 * 1024 * 1024;

/** Passes an event stream on chunk by chunk, keeping its events on the event as they go, until it ends or the client goes. */
async function stream(
  transcript: Transcript,
  streams: Set<ServerResponse>,
  ev: HttpEvent,
  res: ServerResponse,
  body: ReadableStream<Uint8Array>,
  contentType: string | undefined,
): Promise<void> {
  streams.add(res);
  const reader = body.getReader();
  res.on('close', () => {
    streams.delete(res);
    if (res.writableEnded) return;
    // The client closed the connection before the stream's end (the harness closes what is left only after the seal).
    endOf(transcript, ev, 'client');
    void reader.cancel().catch(() => {});
  });
  const rec: BodyRecord = { ...(contentType ? { contentType } : {}), bytes: 0, events: [] };
  ev.responseBody = rec;
  const budget = { chars: 0, room: (chars: number) => keepOn(ev, chars) };
  // Events are added while the run records: a sealed transcript is graded and never changes.
  // Characters since the last event: what one event has taken so far.
  let pending = 0;
  const parser = createParser({
    onEvent: (e) => {
      pending = 0;
      if (!transcript.isSealed) addStreamEvent(rec, e.data, budget);
    },
  });
  const dec = new TextDecoder();
  let last = '';
  // Text held until a line end comes: a line fed in pieces costs the parser its whole length again each
  // time. Past HELD_MAX in one line or one event (a hostile stream's, runtime.hostileStream) the record
  // stops reading, says so, and lets go of what it held.
  let held = '';
  let gaveUp = false;
  const feed = (text: string) => {
    if (gaveUp) return;
    held += text;
    pending += text.length;
    if (held.length > HELD_MAX || pending > HELD_MAX) {
      gaveUp = true;
      held = '';
      if (!transcript.isSealed) rec.truncated = `an event of more than ${HELD_MAX} characters with no end: the events before it kept`;
      return;
    }
    if (!/[\r\n]/.test(text)) return;
    parser.feed(held);
    held = '';
  };
  // The last chunk's write: a body that fails mid-event (a scripted reset) has its last bytes on their way before the socket goes.
  let written: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        // Gone before the close handler was on it, or since: the client's close.
        endOf(transcript, ev, 'client');
        await reader.cancel();
        break;
      }
      const text = dec.decode(value, { stream: true });
      if (text) last = text;
      feed(text);
      if (!transcript.isSealed) ev.streamBytes = (ev.streamBytes ?? 0) + value.length;
      // The client's pace, not the peer's: what it has not taken is not written (streamBytes counts what it could read).
      let more = true;
      written = new Promise<void>((resolve) => {
        more = res.write(value, () => resolve());
      });
      if (!more) await drained(res);
    }
    // A CR at the very end is a line end (no LF can follow it any more): the last event of a stream of lone-CR line ends is kept.
    feed(last.endsWith('\r') ? '\n' : '');
    if (held && !gaveUp) parser.feed(held);
    if (!res.destroyed) endOf(transcript, ev, 'peer');
    res.end();
  } catch {
    // The peer's body failed (a scripted reset mid-event, runtime.streamEnds.midEvent, or a fault of the harness's):
    // its end, not the client's close. What was written leaves first; then the connection is closed under the body.
    endOf(transcript, ev, 'peer');
    await flushed(written);
    res.destroy();
  }
}

/**
 * Sends the headers and the first `bytes` bytes of a body, then destroys the socket once they are
 * on their way: a connection lost mid-response, as a proxy or a crashed worker leaves it.
 */
async function cut(res: ServerResponse, response: Response, whole: Buffer | undefined, bytes: number): Promise<void> {
  let head: Buffer;
  if (whole !== undefined || !response.body) head = (whole ?? Buffer.alloc(0)).subarray(0, bytes);
  else {
    // An event stream: read until enough has come (or it ended), then stop reading it.
    const chunks: Buffer[] = [];
    let have = 0;
    const reader = response.body.getReader();
    while (have < bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      have += value.length;
    }
    await reader.cancel().catch(() => {});
    head = Buffer.concat(chunks).subarray(0, bytes);
  }
  res.flushHeaders();
  if (head.length === 0) res.destroy();
  else res.write(head, () => res.destroy());
}
