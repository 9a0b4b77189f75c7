/**
 * An interface's endpoint: one wire in front of the peer's runtime, the same loop for every wire.
 * The request's event (over the run's budget: 429, unrecorded), the wire's decoding (or its own
 * refusal), the call recorded, the scripted incidents in front of the runtime (docs/peers.md: busy,
 * then slow, then cut), a size ceiling no card field shows, the A2A-Version check (§3.6, where the
 * wire reads a version), the operation, and its answer as the wire encodes it.
 *
 * Versions (§3.6): an empty or missing `A2A-Version` is read as 0.3 (§3.6.2), patch numbers are
 * ignored, and a Major.Minor the interface does not declare is answered with VersionNotSupportedError.
 */
import { hostileAfterFirst, sseFramer, splitWrites } from './wires/sse-framing.js';
import { futureValues, type Reshape, reshapedAnswer, reshapedFrame, unknownMembers } from './wires/unknown-fields.js';
import { http, HttpResponse, type RequestHandler } from 'msw';
import { DROP_HEADER, type HttpEvent, RESET_MARK } from '../harness/core/transcript.js';
import type { PeerRunContext, RecordRequest } from './runtime/context.js';
import { A2AError, HttpRefusal } from './runtime/errors.js';
import { atOrBelow, eventOf, exactly, isObj } from './runtime/event.js';
import type { Runtime } from './runtime/operations.js';
import { recordCall } from './runtime/record.js';
import { eventStream } from './runtime/stream.js';
import type { Wire, WireCall, WireRefusal, WireRequest } from './wires/wire.js';

/** `Major.Minor` of an `A2A-Version` value; empty means 0.3 (§3.6.2); patch numbers are not considered (§3.6). */
export function requestedVersion(value: string | null): string | undefined {
  const v = (value ?? '').trim();
  if (v === '') return '0.3';
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(v);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

/** The versions the card declares for the interface at `url`. */
export function versionsAt(card: Record<string, unknown>, url: string): Set<string> {
  return new Set(
    (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [])
      .filter((i): i is Record<string, unknown> => isObj(i) && i.url === url)
      .map((i) => requestedVersion(String(i.protocolVersion ?? '')))
      .filter((v): v is string => !!v),
  );
}

/** Counts calls per operation, so a scripted incident can hit the first N calls of one operation or of all, on one binding's interfaces or on every one. */
function firstCalls(limit: { calls?: number; method?: string; binding?: string } | undefined) {
  let seen = 0;
  return (method: string, binding: string): boolean => {
    if (!limit || (limit.method !== undefined && limit.method !== method) || (limit.binding !== undefined && limit.binding !== binding)) return false;
    seen++;
    return limit.calls === undefined || seen <= limit.calls;
  };
}

/** Waits `ms`, or less when the run ends first (a slow answer must not outlive its run). */
function pause(ctx: PeerRunContext, ms: number): Promise<void> {
  return new Promise((resolve) => {
    ctx.later(ms, resolve);
    ctx.onEnd(resolve);
  });
}

async function wireRequest(request: Request, interfaceUrl: string): Promise<WireRequest> {
  const bytes = new Uint8Array(await request.clone().arrayBuffer());
  return { method: request.method, url: new URL(request.url), headers: request.headers, body: new TextDecoder().decode(bytes), bytes, interfaceUrl };
}

/** Marks an event as taken by the interface at `url` (its binding, the card's URL of it). */
function takenBy(ev: HttpEvent, wire: Wire, url: string): void {
  ev.binding = wire.binding;
  ev.interfaceUrl = url;
}

/** How a gate in front of the interface at `url` keeps the call it answers: as the wire reads it. */
export const recorderFor =
  (wire: Wire, url: string): RecordRequest =>
  async (ev, request) => {
    takenBy(ev, wire, url);
    const req = await wireRequest(request, url);
    const call = wire.describe(req);
    if (call) recordCall(ev, call, req.body);
  };

/** The scripted incidents of the runtime description, counted per peer (every interface of it). */
export type Incidents = ReturnType<typeof incidentsOf>;
export function incidentsOf(runtime: Runtime) {
  const rt = runtime.description;
  return { busy: firstCalls(rt.unavailable), drop: firstCalls(rt.drop), reset: firstCalls(rt.reset) };
}

interface Serving {
  ctx: PeerRunContext;
  wire: Wire;
  runtime: Runtime;
  /** The versions the card declares for this interface. */
  versions: Set<string>;
}

/**
 * A streaming call refused before any event (runtime.refuseStreams): the binding's error answer, as
 * it is, without its Content-Type, or as the one event of an event stream. gRPC has only its status.
 */
async function refusedStream(wire: Wire, call: WireCall, ev: HttpEvent, form: 'json' | 'untyped' | 'sse-error', field: string): Promise<Response> {
  const { response, recorded } = wire.error(call, new A2AError('internal', 'the streaming service is unavailable; SendMessage and GetTask are served'));
  ev.rpcError = recorded;
  ev.note = `scripted: the streaming call refused before any event (runtime.${field}: ${form})`;
  const type = response.headers.get('content-type') ?? '';
  if (form === 'json' || !/json/i.test(type)) return response;
  const body = await response.text();
  if (form === 'untyped') {
    const headers = new Headers(response.headers);
    headers.delete('content-type');
    // A body with no Content-Type of its own: Response would name it text/plain from a string.
    return new HttpResponse(new TextEncoder().encode(body), { status: response.status, headers });
  }
  return new HttpResponse(`data: ${body}\n\n`, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

/** What the peer does to a successful answer's payload: unknown members added, then future values put in. */
function reshaper(unknown: 'top' | 'every' | undefined, future: 'state' | 'part' | undefined): Reshape | undefined {
  if (!unknown && !future) return undefined;
  const members = unknown ? unknownMembers(unknown) : undefined;
  const values = future ? futureValues(future) : undefined;
  return (v) => (values ? values(members ? members(v) : v) : members!(v));
}

/** One call, answered by the runtime (or refused by it), as the wire encodes it. */
async function answer({ ctx, wire, runtime, versions }: Serving, call: WireCall, ev: HttpEvent, raw: string): Promise<Response> {
  const rt = runtime.description;
  try {
    const size = Buffer.byteLength(raw);
    if (rt.maxRequestBytes !== undefined && size > rt.maxRequestBytes)
      throw new HttpRefusal(413, `Content Too Large: this endpoint takes requests of at most ${rt.maxRequestBytes} bytes; this one has ${size}`);
    if (call.version !== undefined) {
      const asked = requestedVersion(call.version);
      if (!asked || !versions.has(asked))
        throw new A2AError(
          'versionNotSupported',
          `A2A-Version ${JSON.stringify(call.version ?? '')} is read as ${asked ?? 'nothing'}; this interface speaks ${[...versions].join(', ')}`,
        );
    }
    if (rt.refuseStreams && (call.op === 'SendStreamingMessage' || call.op === 'SubscribeToTask'))
      return refusedStream(wire, call, ev, rt.refuseStreams, 'refuseStreams');
    if (rt.refuseSubscribe && call.op === 'SubscribeToTask') return refusedStream(wire, call, ev, rt.refuseSubscribe, 'refuseSubscribe');
    const cx = { ev, extensions: call.extensions, pushBody: wire.pushBody, ...(wire.pushConfigIdOptional ? { pushConfigIdOptional: true } : {}) };
    const out = await runtime.perform(call.op, call.params, cx);
    // gRPC's protobuf names no member: unknown ones are JSON's (a later version's field numbers are skipped by any protobuf decoder).
    const unknown = wire.binding === 'GRPC' ? undefined : rt.unknownFields;
    const future = wire.binding === 'GRPC' ? undefined : rt.futureValues;
    const reshape = reshaper(unknown, future);
    const mark = () => {
      if (ev.note) return;
      if (unknown)
        ev.note = `scripted: a member no protocol version defines, ${unknown === 'every' ? 'in every object of the answer' : 'beside the answer’s own'} (runtime.unknownFields: ${unknown})`;
      else if (future)
        ev.note = `scripted: a value no protocol version defines, ${future === 'state' ? 'a task state' : 'a kind of artifact part'} (runtime.futureValues: ${future})`;
    };
    if ('stream' in out) {
      const framed = sseFramer(rt.sseFraming);
      // A stream is marked by the first event the peer really changed (a WORKING state, an artifact), not when it opens.
      const encode = (e: Record<string, unknown>) => {
        const plain = wire.frame(call, e);
        if (!reshape) return plain;
        const f = reshapedFrame(plain, reshape);
        if (f !== plain && !ctx.transcript.isSealed) mark();
        return f;
      };
      const events = eventStream(ctx, ev, out.stream, (e) => framed(encode(e)), rt.streamsStayOpen === true);
      // An event stream written in small pieces apart in time (sseFraming.split), or turned hostile after its first event; gRPC frames no SSE.
      if (wire.binding === 'GRPC') return wire.stream(call, events);
      if (rt.hostileStream && !ctx.transcript.isSealed)
        ev.note = `scripted: after its first event the stream sends ${rt.hostileStream === 'no-line-end' ? 'a line' : 'an event'} that never ends (runtime.hostileStream: ${rt.hostileStream})`;
      if (rt.hostileStream) return wire.stream(call, hostileAfterFirst(events, rt.hostileStream));
      return wire.stream(call, rt.sseFraming?.split && !rt.sseFraming.lineBytes ? splitWrites(events) : events);
    }
    const res = wire.result(call, call.op, out.result, out.activated);
    if (!reshape) return res;
    const reshaped = await reshapedAnswer(res, reshape);
    if (reshaped.changed) mark();
    return reshaped.res;
  } catch (err) {
    if (err instanceof HttpRefusal) {
      ev.note = err.text;
      return new HttpResponse(err.text, { status: err.status, headers: { 'content-type': 'text/plain' } });
    }
    if (err instanceof A2AError) {
      const { response, recorded } = wire.error(call, err);
      ev.rpcError = recorded;
      return response;
    }
    throw err;
  }
}

/** A request the wire refused itself: kept as far as it was read. */
function refused(ev: HttpEvent, r: WireRefusal, raw: string): Response {
  if (r.call) recordCall(ev, r.call, raw);
  if (r.recorded) ev.rpcError = r.recorded;
  if (r.note) ev.note = r.note;
  return r.response;
}

export function endpoint(ctx: PeerRunContext, url: string, wire: Wire, runtime: Runtime, incidents: Incidents): RequestHandler {
  const rt = runtime.description;
  // The main interface of a card that claims a version its endpoint does not speak (runtime.speaks): it takes the wire's own.
  const declared = versionsAt(runtime.card, url);
  const versions = rt.speaks && !declared.has(wire.protocolVersion) ? new Set([wire.protocolVersion]) : declared;
  const serving: Serving = { ctx, wire, runtime, versions };
  const handle = async ({ request }: { request: Request }) => {
    const ev = eventOf(ctx, request);
    // Over the run's event budget (a flood): answer without recording.
    if (!ev) return new HttpResponse('too many requests in this scenario run', { status: 429 });
    takenBy(ev, wire, url);
    const req = await wireRequest(request, url);
    const decoded = wire.decode(req);
    if ('refusal' in decoded) return refused(ev, decoded.refusal, req.body);
    const { call } = decoded;
    recordCall(ev, { method: call.op, id: call.id, params: call.params, ...(call.wireMethod !== undefined ? { wireMethod: call.wireMethod } : {}) }, req.body);
    const busy = rt.unavailable;
    if (busy && incidents.busy(call.op, wire.binding)) {
      ev.note = `scripted: HTTP ${busy.status} with Retry-After: ${busy.retryAfterSeconds} (runtime.unavailable)`;
      const text = busy.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
      return new HttpResponse(text, { status: busy.status, headers: { 'content-type': 'text/plain', 'retry-after': String(busy.retryAfterSeconds) } });
    }
    if (rt.slow && (rt.slow.method === undefined || rt.slow.method === call.op)) await pause(ctx, rt.slow.ms);
    const res = await answer(serving, call, ev, req.body);
    if (rt.reset && incidents.reset(call.op, wire.binding)) {
      res.headers.set(DROP_HEADER, RESET_MARK);
      ev.note = 'scripted: connection dropped before the answer, the call taken (runtime.reset)';
    } else if (rt.drop && incidents.drop(call.op, wire.binding)) {
      res.headers.set(DROP_HEADER, String(rt.drop.afterBytes));
      ev.note = `scripted: connection dropped after the headers and ${rt.drop.afterBytes} bytes of the body (runtime.drop)`;
    }
    return res;
  };
  return wire.routes === 'exact' ? http.post(exactly(url), handle) : http.all(atOrBelow(url), handle);
}
