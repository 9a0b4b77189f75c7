/**
 * A live peer (issue 45, `proxy`): a TLS front on the run's own listener for a real A2A agent. It
 * serves the agent's card with each interface it can front (JSON-RPC, HTTP+JSON) pointed at a route
 * of its own, in the card's order, and forwards every call there to the agent, byte for byte, the
 * answer back the same way. Each call is recorded as the interface's wire reads it, and the tasks
 * its answers name kept in the run's ledger: minted by the client's message, moved by what later
 * answers and stream events say, and at the end, where the client left one unfinished, read once
 * more from the agent itself (`settle`). Nothing is scripted but what the proxy is asked to do:
 * end each stream after its first event (`cutStreams`), refuse the first call of one operation
 * 503 with Retry-After (`refuseFirst`).
 */
import { http, HttpResponse, type RequestHandler } from 'msw';
import { Agent, fetch } from 'undici';
import type { LiveUpstream } from '../harness/core/scenario/scenario.js';
import { isTerminal } from '../harness/core/transcript.js';
import type { HttpEvent } from '../harness/core/transcript.js';
import { cardHandler } from './runtime/card.js';
import type { PeerInstance, PeerRunContext } from './runtime/context.js';
import { atOrBelow, eventOf, isObj } from './runtime/event.js';
import { recordCall } from './runtime/record.js';
import { ALL_WIRES, dialectOf } from './wires/index.js';
import type { Wire } from './wires/wire.js';

/** The bindings the proxy fronts: HTTP/1.1 ones it can forward as they are. */
const FRONTED = new Set(['JSONRPC', 'HTTP+JSON']);
/** Request headers not forwarded: the hop's own, and the harness's numbering. */
const HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'accept-encoding',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
]);
/** Answer headers passed back. */
const PASSED = ['content-type', 'retry-after', 'www-authenticate', 'cache-control', 'a2a-version', 'a2a-extensions'];
/** What the end-of-run read of an unfinished task may take. */
const SETTLE_MS = 3000;

interface Fronted {
  front: string;
  upstream: string;
  wire: Wire;
}

export function composeLive(live: LiveUpstream, ctx: PeerRunContext): PeerInstance {
  const base = ctx.base('tls');
  const list = Array.isArray(live.card.supportedInterfaces) ? live.card.supportedInterfaces : [];
  const fronted: Fronted[] = [];
  const interfaces = list.flatMap((i, n) => {
    // A v1.0 interface of a binding it forwards as is; one at 0.x speaks another dialect, left out.
    if (!isObj(i) || !FRONTED.has(String(i.protocolBinding)) || typeof i.url !== 'string' || !/^1\./.test(String(i.protocolVersion ?? ''))) return [];
    const wire = ALL_WIRES.find((w) => w.binding === i.protocolBinding && w.dialect === 'a2a-v1');
    if (!wire) return [];
    const front = `${base}/live/${n}`;
    fronted.push({ front, upstream: i.url.replace(/\/+$/, ''), wire });
    return [{ ...i, url: front }];
  });
  // The agent's signatures do not cover the front's URLs: the card is served unsigned.
  const { signatures: _signed, ...rest } = live.card;
  const card = { ...rest, supportedInterfaces: interfaces };
  const cardUrl = `${base}${dialectOf('a2a-v1').cardPaths[0]}`;
  const agent = new Agent({ connect: { timeout: 10_000 }, headersTimeout: 0, bodyTimeout: 0 });
  // A call still waiting on the agent when the run ends is cut, not waited for.
  ctx.onEnd(() => void agent.destroy().catch(() => {}));
  const book = new Book(ctx);
  let refused = false;

  const forward = (f: Fronted): RequestHandler =>
    http.all(atOrBelow(f.front), async ({ request }) => {
      const ev = eventOf(ctx, request);
      if (!ev) return new HttpResponse('too many requests in this scenario run', { status: 429 });
      ev.binding = f.wire.binding;
      ev.interfaceUrl = f.front;
      const bytes = new Uint8Array(await request.arrayBuffer());
      const body = new TextDecoder().decode(bytes);
      const call = f.wire.describe({ method: request.method, url: new URL(request.url), headers: request.headers, body, bytes, interfaceUrl: f.front });
      if (call) recordCall(ev, call, body);
      const op = call?.method;
      if (op === 'CancelTask' && isObj(call?.params) && typeof call.params.id === 'string') book.cancelAsked.add(call.params.id);
      if (live.refuseFirst && op === live.refuseFirst && !refused) {
        refused = true;
        ev.note = `scripted: HTTP 503 with Retry-After: 1 (proxy --refuse-first ${op}; not forwarded to the agent)`;
        return new HttpResponse('Service Unavailable', { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '1' } });
      }
      const headers: Record<string, string> = {};
      request.headers.forEach((v, k) => {
        if (!HOP.has(k) && !k.startsWith('x-a2a-conformance')) headers[k] = v;
      });
      const target = `${f.upstream}${new URL(request.url).pathname.slice(new URL(f.front).pathname.length)}${new URL(request.url).search}`;
      let res: Awaited<ReturnType<typeof fetch>>;
      try {
        res = await fetch(target, {
          method: request.method,
          headers,
          ...(bytes.length && request.method !== 'GET' && request.method !== 'HEAD' ? { body: bytes } : {}),
          dispatcher: agent,
        });
      } catch (err) {
        ev.note = `live proxy: the agent could not be reached (${(err as Error).message})`;
        return new HttpResponse('Bad Gateway: the agent could not be reached', { status: 502, headers: { 'content-type': 'text/plain' } });
      }
      const out = new Headers();
      for (const h of PASSED) {
        const v = res.headers.get(h);
        if (v !== null) out.set(h, v);
      }
      if (/text\/event-stream/i.test(res.headers.get('content-type') ?? '') && res.body)
        return new HttpResponse(relay(res.body as ReadableStream<Uint8Array>, ev, op, book, live.cutStreams === true, ctx), {
          status: res.status,
          headers: out,
        });
      const bytesIn = await capped(res.body as ReadableStream<Uint8Array> | null).catch((err: Error) => err);
      if (bytesIn instanceof Error) {
        ev.note = `live proxy: the agent's answer broke off (${bytesIn.message})`;
        return new HttpResponse('Bad Gateway: the agent’s answer broke off', { status: 502, headers: { 'content-type': 'text/plain' } });
      }
      if (bytesIn === undefined) {
        ev.note = `live proxy: the agent's answer ran past ${MAX_ANSWER_BYTES} bytes; not passed on`;
        return new HttpResponse('Bad Gateway: the agent answered more than the proxy passes on', { status: 502, headers: { 'content-type': 'text/plain' } });
      }
      const text = new TextDecoder().decode(bytesIn);
      book.read(ev, op, text);
      return new HttpResponse(bytesIn, { status: res.status, headers: out });
    });

  return {
    card,
    cardUrl,
    handlers: [cardHandler(ctx, cardUrl, card), ...fronted.map(forward)],
    settle: () => book.settle(fronted[0], agent),
  };
}

/** The most of one stream event the proxy holds to read it: past it, the stream is passed on unread. */
const MAX_EVENT_CHARS = 1 << 20;

/** The most of one answer (not a stream) the proxy holds to pass on: a card-sized agent answers far less. */
const MAX_ANSWER_BYTES = 8 << 20;

/** An answer's bytes, or undefined where they run past MAX_ANSWER_BYTES (the rest is not read). */
async function capped(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array | undefined> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * An event stream passed on as it comes, each event read for its task. With `cut`, the stream ends
 * right after its first whole event, where that event named a task the agent has not ended (a
 * stream of one Message, or one already at its end, is passed on whole).
 */
function relay(body: ReadableStream<Uint8Array>, ev: HttpEvent, op: string | undefined, book: Book, cutting: boolean, ctx: PeerRunContext) {
  let cut = cutting;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  let reading = true;
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || !value) {
        controller.close();
        return;
      }
      if (!cut) controller.enqueue(value);
      if (!reading) return;
      pending += decoder.decode(value, { stream: true });
      if (pending.length > MAX_EVENT_CHARS) {
        // An event with no end in sight (a hostile or broken agent): passed on as it comes, no longer read or cut.
        if (cut) controller.enqueue(encoder.encode(pending));
        pending = '';
        reading = false;
        cut = false;
        return;
      }
      for (;;) {
        const end = /\r\n\r\n|\n\n|\r\r/.exec(pending);
        if (!end) break;
        const block = pending.slice(0, end.index + end[0].length);
        pending = pending.slice(block.length);
        const data = block
          .split(/\r\n|\n|\r/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data) book.read(ev, op, data, true);
        if (!cut) continue;
        // Cutting: each whole event is passed on as it is read; after the first that leaves a task open, the stream ends.
        controller.enqueue(encoder.encode(block));
        if (data && book.openIn(ev)) {
          if (!ctx.transcript.isSealed) ev.note = 'scripted: the stream ended after its first event without a terminal one (proxy --cut-streams)';
          controller.close();
          void reader.cancel().catch(() => {});
          return;
        }
      }
    },
    cancel: () => void reader.cancel().catch(() => {}),
  });
}

/** The tasks the agent's answers name, kept in the run's ledger. */
class Book {
  readonly cancelAsked = new Set<string>();
  constructor(private readonly ctx: PeerRunContext) {}

  /** Reads one answer (or, `streamed`, one event of its stream) of `op` for the tasks and the reply it names. */
  read(ev: HttpEvent, op: string | undefined, text: string, streamed = false): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObj(json)) return;
    if (json.jsonrpc !== undefined && isObj(json.error)) {
      ev.rpcError = { code: Number(json.error.code), message: String(json.error.message ?? '') };
      return;
    }
    const payload = json.jsonrpc !== undefined ? json.result : json;
    if (!isObj(payload)) return;
    const starts = op === 'SendMessage' || op === 'SendStreamingMessage';
    if (starts && (isObj(payload.message) || (typeof payload.messageId === 'string' && payload.role !== undefined))) ev.reply ??= 'message';
    for (const t of [payload.task, payload.id !== undefined && isObj(payload.status) ? payload : undefined])
      if (isObj(t) && typeof t.id === 'string' && isObj(t.status)) this.seen(ev, starts, t.id, String(t.contextId ?? ''), String(t.status.state));
    // A list moves the tasks it names that the client minted; it names no one task of its own.
    for (const t of Array.isArray(payload.tasks) ? payload.tasks : [])
      if (isObj(t) && typeof t.id === 'string' && isObj(t.status) && this.ctx.ledger.get(t.id)) this.seen(ev, false, t.id, '', String(t.status.state), false);
    const update = payload.statusUpdate;
    if (isObj(update) && typeof update.taskId === 'string' && isObj(update.status))
      this.seen(ev, starts, update.taskId, String(update.contextId ?? ''), String(update.status.state));
    if (streamed && !this.ctx.transcript.isSealed) this.streamEvent(ev, payload);
  }

  /** A stream's event as the transcript keeps one: its task, the state it names, the media types of an artifact it carries. */
  private streamEvent(ev: HttpEvent, payload: Record<string, unknown>): void {
    const task = isObj(payload.task) ? payload.task : undefined;
    const update = isObj(payload.statusUpdate) ? payload.statusUpdate : undefined;
    const artifact = isObj(payload.artifactUpdate) ? payload.artifactUpdate : undefined;
    const taskId = String(task?.id ?? update?.taskId ?? artifact?.taskId ?? ev.taskId ?? '');
    if (!taskId || !this.ctx.ledger.get(taskId)) return;
    const status = isObj(task?.status) ? task.status : isObj(update?.status) ? update.status : undefined;
    const parts = isObj(artifact?.artifact) && Array.isArray(artifact.artifact.parts) ? artifact.artifact.parts : [];
    const types = parts.flatMap((p) =>
      isObj(p) && typeof p.mediaType === 'string' ? [p.mediaType] : isObj(p) && typeof p.text === 'string' ? ['text/plain'] : [],
    );
    this.ctx.transcript.record({
      kind: 'sse',
      requestSeq: ev.seq,
      taskId,
      ...(status ? { state: String(status.state) } : {}),
      ...(artifact ? { artifactMediaTypes: types } : {}),
    });
  }

  /** Whether the answer of `ev` has named a task of the client's that the agent has not ended. */
  openIn(ev: HttpEvent): boolean {
    const t = ev.taskId ? this.ctx.ledger.get(ev.taskId) : undefined;
    return !!t && !isTerminal(t.state);
  }

  private seen(ev: HttpEvent, starts: boolean, id: string, contextId: string, state: string, names = true): void {
    if (this.ctx.transcript.isSealed) return;
    const known = this.ctx.ledger.get(id);
    if (names) ev.taskId ??= id;
    // The state the answer (or the latest event of its stream) names: what the client was told last.
    if (names && ev.taskId === id) ev.taskState = state;
    if (!known) {
      // Only the client's own message mints a task of this run: another task the agent lists is not the client's.
      if (!starts) return;
      ev.reply ??= 'task';
      this.ctx.ledger.mint(id, contextId || `ctx-${id}`, state, ev.seq);
      return;
    }
    if (known.state !== state)
      this.ctx.ledger.transition(id, state, state === 'TASK_STATE_CANCELED' && this.cancelAsked.has(id) ? 'canceled' : 'runtime', ev.seq);
  }

  /** Each task the client left unfinished, read once more from the agent (the harness's own read, not the client's). */
  async settle(via: Fronted | undefined, agent: Agent): Promise<void> {
    if (!via) return;
    const open = this.ctx.ledger.all().filter((t) => !isTerminal(t.state));
    await Promise.all(
      open.map(async (t) => {
        const rest = via.wire.binding === 'HTTP+JSON';
        try {
          const res = await fetch(rest ? `${via.upstream}/tasks/${encodeURIComponent(t.id)}` : via.upstream, {
            method: rest ? 'GET' : 'POST',
            headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
            ...(rest ? {} : { body: JSON.stringify({ jsonrpc: '2.0', id: 'settle', method: 'GetTask', params: { id: t.id } }) }),
            dispatcher: agent,
            signal: AbortSignal.timeout(SETTLE_MS),
          });
          const json = (await res.json()) as Record<string, unknown>;
          const task = (json.jsonrpc !== undefined ? json.result : json) as Record<string, unknown> | undefined;
          const state = isObj(task) && isObj(task.status) ? String(task.status.state) : undefined;
          if (state && state !== t.state && !this.ctx.transcript.isSealed)
            this.ctx.ledger.transition(t.id, state, state === 'TASK_STATE_CANCELED' && this.cancelAsked.has(t.id) ? 'canceled' : 'runtime');
        } catch {
          // The agent did not answer: the task stays as the wire last showed it.
        }
      }),
    );
  }
}
