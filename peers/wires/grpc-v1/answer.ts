/**
 * The wire side of the gRPC listener's answers (./host.ts): a peer's Response written as a gRPC
 * call's end over an HTTP/2 stream, with what was sent kept on its event.
 *
 * - A gRPC Response (`application/grpc`; peers/wires/grpc-v1/) carries its trailers among its headers
 *   (`grpc-status`, `grpc-message`, `grpc-status-details-bin`): with a body they go out as real
 *   trailers after it, without one as a trailers-only answer. Its messages are kept decoded to
 *   ProtoJSON (the method's response type): a unary answer's one message as the event's
 *   `responseBody` (content type `application/grpc+proto`, the JSON), a stream's messages as its
 *   events, as they go, the way an SSE stream's are.
 * - Any other Response (a gate's 401 with its challenge, a scripted 503 with Retry-After, a 413, a
 *   harness 500) becomes a trailers-only error by gRPC's HTTP-to-gRPC mapping, its text as
 *   `grpc-message` and its `www-authenticate` and `retry-after` as metadata; the event keeps the
 *   peer's status (`status`) and its body, and `grpc` says what the trailers carried.
 * - A scripted dropped connection (DROP_HEADER) sends the headers and that many bytes of the body,
 *   then resets the stream (RST_STREAM INTERNAL_ERROR): no trailers, no `grpc` on the event; one
 *   lost before its answer (RESET_MARK, runtime.reset) resets it before any header.
 */
import { createHash } from 'node:crypto';
import { constants, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { addStreamEvent, bodyRecord, keptChars, shedRecord, type BodyRecord } from '../../../harness/core/body.js';
import { DROP_HEADER, keepOn, RESET_MARK, type HttpEvent, type Transcript } from '../../../harness/core/transcript.js';
import {
  decodeGrpcMessage,
  encodeGrpcMessage,
  FrameReader,
  GRPC_STATUS,
  GRPC_TRAILERS,
  grpcStatusOfHttp,
  isGrpcContentType,
} from '../../../harness/core/protocol/grpc-frame.js';
import { decodeV1 } from '../../../harness/core/protocol/proto-wire.js';
import { endOf, flushed, keepWhole, responseHeaders } from '../../../harness/net/respond.js';

/** What the transcript calls a gRPC message kept decoded. */
const DECODED = 'application/grpc+proto';
/** Headers HTTP/2 forbids (RFC 9113 §8.2.2), and a length gRPC does not use. */
const NOT_SENT = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'content-length'];

/** The method being answered: its response message type, and whether it streams. */
export interface Answering {
  response: string | undefined;
  stream: boolean;
}

/** Ends a call at once with a status (a trailers-only answer, HTTP/2 status 200). */
export function endWith(stream: ServerHttp2Stream, code: number, message: string, metadata: Record<string, string> = {}): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(
    { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message), ...metadata },
    { endStream: true },
  );
}

/** Answers a call with a status of the harness's own (its HTTP-side `status` and the note on the event first). */
export function refuseCall(
  transcript: Transcript,
  ev: HttpEvent,
  stream: ServerHttp2Stream,
  status: number,
  code: number,
  note: string | undefined,
  text: string,
): void {
  ev.status = status;
  ev.grpc = { status: code, message: text };
  if (note !== undefined) ev.note = note;
  transcript.onAnswer?.(ev);
  endWith(stream, code, text);
}

/** A message decoded for the transcript (its JSON text), or a description where it is not the method's response type. */
function decoded(bytes: Uint8Array, type: string | undefined): string {
  if (!type) return JSON.stringify({ '@undecoded': true, bytes: bytes.length });
  try {
    return JSON.stringify(decodeV1(type, bytes));
  } catch (err) {
    return JSON.stringify({ '@undecoded': true, bytes: bytes.length, error: (err as Error).message.slice(0, 200) });
  }
}

/** Writes a peer's answer to a call. `open`: the run's open calls (closed when it ends). */
export async function writeCall(
  transcript: Transcript,
  open: Set<ServerHttp2Stream>,
  ev: HttpEvent,
  stream: ServerHttp2Stream,
  response: Response,
  answering: Answering,
): Promise<void> {
  if (response.headers.get(DROP_HEADER) === RESET_MARK) {
    // A call lost before its answer (runtime.reset): the stream is reset before any header.
    await response.body?.cancel().catch(() => {});
    transcript.onAnswer?.(ev);
    if (!stream.destroyed && !stream.closed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  ev.status ??= response.status;
  const { out, dropAt } = responseHeaders(ev, response);
  for (const name of NOT_SENT) delete out[name];
  // The client reset the call while the peer was answering (a deadline, a cancel): nothing to write.
  if (stream.destroyed || stream.closed) {
    ev.note ??= 'the client reset the call before its answer';
    await response.body?.cancel().catch(() => {});
    return;
  }
  if (!isGrpcContentType(out['content-type'])) return notGrpc(transcript, ev, stream, response, out);
  const trailers: Record<string, string> = {};
  for (const name of GRPC_TRAILERS)
    if (out[name] !== undefined) {
      trailers[name] = out[name];
      delete out[name];
    }
  trailers['grpc-status'] ??= String(GRPC_STATUS.OK);
  const ended = () => {
    if (transcript.isSealed) return;
    const message = trailers['grpc-message'];
    ev.grpc = { status: Number(trailers['grpc-status']), ...(message ? { message: decodeGrpcMessage(message).slice(0, 500) } : {}) };
  };
  const headers: OutgoingHttpHeaders = { ':status': 200, ...out };
  if (dropAt !== undefined) return cut(transcript, ev, stream, response, headers, dropAt);
  if (!response.body) {
    ev.responseBody = { contentType: out['content-type']!, bytes: 0 };
    ended();
    transcript.onAnswer?.(ev);
    stream.respond({ ...headers, ...trailers }, { endStream: true });
    return;
  }
  stream.on('wantTrailers', () => {
    ended();
    stream.sendTrailers(trailers);
  });
  if (!answering.stream) {
    const whole = new Uint8Array(await response.arrayBuffer());
    keepMessages(ev, whole, answering.response);
    // The trailers follow the one message at once: what they carry is on the event before the answer is.
    ended();
    transcript.onAnswer?.(ev);
    stream.respond(headers, { waitForTrailers: true });
    stream.end(whole);
    return;
  }
  stream.respond(headers, { waitForTrailers: true });
  transcript.onAnswer?.(ev);
  await passStream(transcript, open, ev, stream, response.body, answering.response);
}

/** A unary answer's message(s), decoded, as the event's body. */
function keepMessages(ev: HttpEvent, whole: Uint8Array, type: string | undefined): void {
  const reader = new FrameReader();
  const texts = reader.push(whole).map((m) => decoded(m, type));
  const text = texts.length === 1 ? texts[0]! : JSON.stringify({ '@messages': texts.map((t) => JSON.parse(t) as unknown) });
  const digest = whole.length ? createHash('sha256').update(whole).digest('hex').slice(0, 16) : undefined;
  ev.responseBody = keepOn(ev, keptChars(text.length)) ? bodyRecord(text, whole.length, DECODED, digest) : shedRecord(whole.length, DECODED, digest);
}

/** A Response that is not gRPC's, as the trailers-only error gRPC maps its status to. */
async function notGrpc(transcript: Transcript, ev: HttpEvent, stream: ServerHttp2Stream, response: Response, out: Record<string, string>): Promise<void> {
  const whole = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  keepWhole(ev, whole, out['content-type']);
  const code = grpcStatusOfHttp(response.status);
  const text = (whole?.toString('utf8').trim() || response.statusText || `HTTP ${response.status}`).slice(0, 500);
  const message = `HTTP ${response.status}: ${text}`;
  ev.grpc = { status: code, message };
  transcript.onAnswer?.(ev);
  const metadata: Record<string, string> = {};
  for (const name of ['www-authenticate', 'retry-after']) if (out[name] !== undefined) metadata[name] = out[name];
  endWith(stream, code, message, metadata);
}

/** Passes a stream's messages on as they come, keeping each one decoded on the event, until it ends, the run ends or the client goes. */
async function passStream(
  transcript: Transcript,
  open: Set<ServerHttp2Stream>,
  ev: HttpEvent,
  stream: ServerHttp2Stream,
  body: ReadableStream<Uint8Array>,
  type: string | undefined,
): Promise<void> {
  open.add(stream);
  stream.on('close', () => open.delete(stream));
  const rec: BodyRecord = { contentType: DECODED, bytes: 0, events: [] };
  ev.responseBody = rec;
  const budget = { chars: 0, room: (chars: number) => keepOn(ev, chars) };
  const reader = new FrameReader();
  const source = body.getReader();
  let ended = false;
  let written: Promise<void> = Promise.resolve();
  // A call reset (by the client, or at the run's end) stops the stream at its source: no more events are made for it.
  stream.on('close', () => {
    if (!ended) endOf(transcript, ev, 'client');
    void source.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await source.read();
      if (done) break;
      if (stream.destroyed || stream.closed) {
        await source.cancel();
        return;
      }
      // Events are added while the run records: a sealed transcript is graded and never changes.
      for (const m of reader.push(value)) if (!transcript.isSealed) addStreamEvent(rec, decoded(m, type), budget);
      written = new Promise<void>((resolve) => stream.write(value, () => resolve()));
    }
    ended = true;
    endOf(transcript, ev, 'peer');
    stream.end();
  } catch {
    // The body failed (a scripted reset mid-event, runtime.streamEnds.midEvent): what was written leaves first, then RST_STREAM.
    ended = true;
    endOf(transcript, ev, 'peer');
    await source.cancel().catch(() => {});
    await flushed(written);
    if (!stream.destroyed && !stream.closed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  }
}

/** Sends the headers and the first `bytes` bytes of the body, then resets the stream: a call lost mid-answer. */
async function cut(
  transcript: Transcript,
  ev: HttpEvent,
  stream: ServerHttp2Stream,
  response: Response,
  headers: OutgoingHttpHeaders,
  bytes: number,
): Promise<void> {
  const chunks: Uint8Array[] = [];
  let have = 0;
  if (response.body) {
    const reader = response.body.getReader();
    while (have < bytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      have += value.length;
    }
    await reader.cancel().catch(() => {});
  }
  const head = Buffer.concat(chunks).subarray(0, bytes);
  ev.responseBody = { contentType: String(headers['content-type']), bytes: head.length };
  transcript.onAnswer?.(ev);
  stream.respond(headers);
  const reset = () => stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  if (head.length === 0) reset();
  else stream.write(head, reset);
}
