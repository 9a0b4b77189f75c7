/**
 * The A2A v1.0 JSON-RPC dialect (spec §9): the card at `/.well-known/agent-card.json`, one JSON-RPC
 * endpoint with PascalCase methods, SSE for the streaming methods, ProtoJSON enum names, spec error
 * codes with ErrorInfo. Behaviour comes from the runtime description; this file only speaks the
 * protocol. A missing `A2A-Version` header is accepted (the listener records it).
 */
import { http, HttpResponse, type RequestHandler } from 'msw';
import { fillCard, type PeerDescription } from '../../harness/core/scenario.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { isTerminal, SEQ_HEADER } from '../../harness/core/transcript.js';
import { includesMediaType } from '../../harness/core/vocabulary/media-type.js';
import type { PeerInstance, PeerRunContext } from '../context.js';
import { RpcError } from './errors.js';
import { TaskRuntime } from './tasks.js';

type Params = Record<string, unknown>;

/** Params as the transcript keeps them: whole when small and shallow, else a digest (a flood must not cost memory or stack). */
function recordable(params: Params, raw: string): unknown {
  const MAX_BYTES = 64 * 1024;
  const MAX_DEPTH = 48;
  if (raw.length > MAX_BYTES) return { '@truncated': true, bytes: raw.length };
  const stack: Array<[unknown, number]> = [[params, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > MAX_DEPTH) return { '@truncated': true, bytes: raw.length, reason: `nested deeper than ${MAX_DEPTH}` };
    if (v && typeof v === 'object') for (const x of Object.values(v)) stack.push([x, d + 1]);
  }
  return params;
}
const isObj = (v: unknown): v is Params => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Answers a frame the batch-only input path cannot take: HTTP 415, outside JSON-RPC (seed 000). */
class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text);
  }
}

export function a2aV1Peer(desc: PeerDescription, ctx: PeerRunContext): PeerInstance {
  const rt = desc.runtime;
  const rpcUrl = `${ctx.base(rt.rpcListener)}/rpc`;
  const negotiationUrl = rt.negotiation ? `${ctx.base(rt.rpcListener)}${rt.negotiation.path}` : '';
  const card = fillCard(desc.card, { rpcUrl, negotiationUrl });
  const cardUrl = `${ctx.base(rt.cardListener)}/.well-known/agent-card.json`;
  const tasks = new TaskRuntime(rt, ctx);
  const inputModes = Array.isArray(card.defaultInputModes) ? (card.defaultInputModes as string[]) : [];

  const eventOf = (request: Request): HttpEvent | undefined => {
    const seq = Number(request.headers.get(SEQ_HEADER));
    const ev = ctx.transcript.events[seq - 1];
    return ev?.kind === 'http' ? ev : undefined;
  };

  function parseParts(message: Params): { bytes: number; mediaTypes: string[] } {
    const parts = message.parts;
    if (!Array.isArray(parts) || parts.length === 0) throw new RpcError('invalidParams', 'message.parts is REQUIRED');
    let bytes = 0;
    const mediaTypes: string[] = [];
    for (const p of parts) {
      if (!isObj(p)) throw new RpcError('invalidParams', 'a part must be an object');
      const kinds = ['text', 'raw', 'url', 'data'].filter((k) => p[k] !== undefined);
      if (kinds.length !== 1) throw new RpcError('invalidParams', 'a part must set exactly one of text, raw, url, data');
      const mt = typeof p.mediaType === 'string' ? p.mediaType : kinds[0] === 'text' ? 'text/plain' : kinds[0] === 'data' ? 'application/json' : '';
      if (!mt) throw new RpcError('invalidParams', 'a raw or url part needs mediaType');
      if (!includesMediaType(inputModes, mt)) throw new RpcError('contentTypeNotSupported', `${mt} is not an input mode of this agent`);
      mediaTypes.push(mt);
      if (kinds[0] === 'raw') {
        if (typeof p.raw !== 'string') throw new RpcError('invalidParams', 'raw must be base64');
        if (rt.input && mt === rt.input.mediaType) bytes += Buffer.from(p.raw, 'base64').length;
      }
    }
    return { bytes, mediaTypes };
  }

  function pushConfigOf(v: unknown): { url: string; token?: string; authentication?: { scheme: string; credentials?: string } } {
    if (!isObj(v) || typeof v.url !== 'string' || v.url === '') throw new RpcError('invalidParams', 'TaskPushNotificationConfig.url is REQUIRED');
    const auth = isObj(v.authentication) && typeof v.authentication.scheme === 'string'
      ? { scheme: v.authentication.scheme, ...(typeof v.authentication.credentials === 'string' ? { credentials: v.authentication.credentials } : {}) }
      : undefined;
    return { url: v.url, ...(typeof v.token === 'string' ? { token: v.token } : {}), ...(auth ? { authentication: auth } : {}) };
  }

  /** SendMessage and the first half of SendStreamingMessage. */
  function send(params: Params, ev: HttpEvent) {
    const message = params.message;
    if (!isObj(message)) throw new RpcError('invalidParams', 'message is REQUIRED');
    if (typeof message.messageId !== 'string' || message.messageId === '') throw new RpcError('invalidParams', 'message.messageId is REQUIRED');
    if (message.role !== 'ROLE_USER') throw new RpcError('invalidParams', 'message.role must be ROLE_USER');
    const { bytes } = parseParts(message);
    const config = isObj(params.configuration) ? params.configuration : {};
    if (typeof message.taskId === 'string' && message.taskId !== '') {
      const t = tasks.get(message.taskId);
      ev.taskId = t.rec.id;
      if (typeof message.contextId === 'string' && message.contextId !== '' && message.contextId !== t.rec.contextId)
        throw new RpcError('invalidParams', `contextId ${message.contextId} does not match task ${t.rec.id}`);
      if (isTerminal(t.rec.state)) throw new RpcError('unsupportedOperation', `task is ${t.rec.state}`, { taskId: t.rec.id });
      if (bytes > 0 && rt.input && !rt.input.acceptsFrames)
        throw new HttpRefusal(415, `Unsupported Media Type: this endpoint takes one complete ${rt.input.mediaType} payload per task`);
      tasks.acceptInput(t, bytes, ev.seq);
      return t;
    }
    if (rt.input && bytes > rt.input.ceilingBytes)
      throw new RpcError('invalidParams', `payload of ${bytes} bytes is over this endpoint's ceiling`);
    let inlinePush;
    if (config.taskPushNotificationConfig !== undefined) {
      if (!rt.push.supported) throw new RpcError('pushNotSupported');
      inlinePush = pushConfigOf(config.taskPushNotificationConfig);
    }
    const t = tasks.mint(ev.seq, typeof message.contextId === 'string' && message.contextId ? message.contextId : undefined);
    ev.taskId = t.rec.id;
    if (inlinePush) tasks.addPushConfig(t, inlinePush, 'inline', ev.seq);
    tasks.acceptInput(t, bytes, ev.seq);
    return t;
  }

  const taskIdParam = (params: Params, key = 'id') => {
    const id = params[key];
    if (typeof id !== 'string' || id === '') throw new RpcError('invalidParams', `${key} is REQUIRED`);
    return id;
  };

  const requirePush = () => {
    if (!rt.push.supported) throw new RpcError('pushNotSupported');
  };

  /** Unary JSON-RPC methods: params → result. */
  async function unary(method: string, params: Params, ev: HttpEvent): Promise<unknown> {
    switch (method) {
      case 'SendMessage': {
        const t = send(params, ev);
        const config = isObj(params.configuration) ? params.configuration : {};
        if (config.returnImmediately !== true) await tasks.settle(t, 800);
        ev.taskState = t.rec.state;
        return { task: tasks.toJson(t) };
      }
      case 'GetTask': {
        const t = tasks.get(taskIdParam(params));
        ev.taskId = t.rec.id;
        ev.taskState = t.rec.state;
        return tasks.toJson(t);
      }
      case 'ListTasks': {
        // Artifacts only when asked for (spec: includeArtifacts defaults to false).
        const list = tasks.all().map((t) => {
          const { artifacts, ...rest } = tasks.toJson(t);
          return params.includeArtifacts === true && artifacts ? { ...rest, artifacts } : rest;
        });
        return { tasks: list, nextPageToken: '', pageSize: list.length, totalSize: list.length };
      }
      case 'CancelTask': {
        const t = tasks.get(taskIdParam(params));
        ev.taskId = t.rec.id;
        tasks.cancel(t, ev.seq);
        ev.taskState = t.rec.state;
        return tasks.toJson(t);
      }
      case 'CreateTaskPushNotificationConfig': {
        requirePush();
        const t = tasks.get(taskIdParam(params, 'taskId'));
        ev.taskId = t.rec.id;
        const cfg = tasks.addPushConfig(t, pushConfigOf(params), 'create', ev.seq);
        return { ...cfg };
      }
      case 'GetTaskPushNotificationConfig': {
        requirePush();
        const t = tasks.get(taskIdParam(params, 'taskId'));
        const cfg = t.pushConfigs.find((c) => c.id === params.id);
        if (!cfg) throw new RpcError('taskNotFound', 'no such push notification config');
        return { ...cfg };
      }
      case 'ListTaskPushNotificationConfigs': {
        requirePush();
        const t = tasks.get(taskIdParam(params, 'taskId'));
        return { configs: t.pushConfigs.map((c) => ({ ...c })), nextPageToken: '' };
      }
      case 'DeleteTaskPushNotificationConfig': {
        requirePush();
        const t = tasks.get(taskIdParam(params, 'taskId'));
        t.pushConfigs = t.pushConfigs.filter((c) => c.id !== params.id);
        return {};
      }
      case 'GetExtendedAgentCard':
        throw new RpcError('extendedCardNotConfigured');
      default:
        throw new RpcError('methodNotFound', method);
    }
  }

  /** SSE answer for SendStreamingMessage / SubscribeToTask: the task first, then its events. */
  function stream(id: unknown, t: ReturnType<typeof tasks.get>, ev: HttpEvent, extra: ReadonlyArray<object>): Response {
    const enc = new TextEncoder();
    let off = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (result: Record<string, unknown>, state: string | undefined, closes: boolean) => {
          ctx.transcript.record({
            kind: 'sse',
            requestSeq: ev.seq,
            taskId: t.rec.id,
            ...(state ? { state } : {}),
            ...(isObj(result.artifactUpdate) ? { artifactMediaTypes: mediaTypesOf(result.artifactUpdate) } : {}),
          });
          controller.enqueue(enc.encode(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`));
          if (closes) {
            off();
            controller.close();
          }
        };
        const state = t.rec.state;
        const done = isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED';
        send({ task: tasks.toJson(t) }, state, false);
        for (const a of extra) send({ artifactUpdate: { taskId: t.rec.id, contextId: t.rec.contextId, artifact: a, lastChunk: true } }, undefined, false);
        if (done) {
          controller.close();
          return;
        }
        off = tasks.subscribe(t, send);
      },
      cancel() {
        off();
      },
    });
    return new HttpResponse(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  }

  const handlers: RequestHandler[] = [
    http.get(cardUrl, () => HttpResponse.json(card, { headers: { 'cache-control': 'max-age=60' } })),
    http.post(rpcUrl, async ({ request }) => {
      const ev = eventOf(request);
      // Over the run's event budget (a flood): answer without recording.
      if (!ev) return new HttpResponse('too many requests in this scenario run', { status: 429 });
      let body: unknown;
      const raw = await request.text();
      try {
        body = JSON.parse(raw);
      } catch {
        ev.rpcError = { code: -32700, message: 'Invalid JSON payload' };
        return HttpResponse.json({ jsonrpc: '2.0', id: null, error: new RpcError('parse').toJson() });
      }
      const id = isObj(body) ? (body.id ?? null) : null;
      if (!isObj(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
        ev.rpcError = { code: -32600, message: 'Invalid Request' };
        return HttpResponse.json({ jsonrpc: '2.0', id, error: new RpcError('invalidRequest').toJson() });
      }
      const method = body.method;
      const params = isObj(body.params) ? body.params : {};
      ev.rpc = { method, id, params: recordable(params, raw) };
      try {
        // Spec §3.6.2: a version the agent does not support is refused. A missing header is accepted (and recorded).
        const version = request.headers.get('a2a-version');
        if (version !== null && version !== '' && !/^1\.\d+$/.test(version.trim()))
          throw new RpcError('versionNotSupported', `A2A-Version ${version}; this agent speaks 1.0`);
        if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') {
          if (!rt.streaming) throw new RpcError('unsupportedOperation', 'streaming is not supported by this agent');
          if (method === 'SendStreamingMessage') return stream(id, send(params, ev), ev, []);
          const t = tasks.get(taskIdParam(params));
          ev.taskId = t.rec.id;
          if (isTerminal(t.rec.state)) throw new RpcError('unsupportedOperation', `task is ${t.rec.state}`);
          return stream(id, t, ev, tasks.subscribeOnlyArtifacts());
        }
        const result = await unary(method, params, ev);
        return HttpResponse.json({ jsonrpc: '2.0', id, result });
      } catch (err) {
        if (err instanceof HttpRefusal) {
          ev.note = err.text;
          return new HttpResponse(err.text, { status: err.status, headers: { 'content-type': 'text/plain' } });
        }
        if (err instanceof RpcError) {
          const json = err.toJson();
          ev.rpcError = { code: json.code, message: json.message };
          return HttpResponse.json({ jsonrpc: '2.0', id, error: json });
        }
        throw err;
      }
    }),
  ];
  if (rt.negotiation) {
    handlers.push(
      http.post(negotiationUrl, () =>
        HttpResponse.json({ accepted: true, session: `negotiation-${ctx.key}`, extension: rt.negotiation!.extension }),
      ),
    );
  }
  return { card, cardUrl, handlers };
}

function mediaTypesOf(update: Params): string[] {
  const artifact = update.artifact;
  if (!isObj(artifact) || !Array.isArray(artifact.parts)) return [];
  return artifact.parts.filter(isObj).map((p) => String(p.mediaType ?? ''));
}
