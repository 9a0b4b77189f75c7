/**
 * The JSON-RPC part of an A2A v1.0 peer (spec §9): one endpoint, PascalCase methods from a table,
 * SSE for the streaming methods, ProtoJSON enum names, spec error codes with ErrorInfo.
 *
 * Versions (§3.6): `A2A-Version` comes as a header or a query parameter; an empty or missing value
 * is read as 0.3 (§3.6.2), patch numbers are ignored, and a Major.Minor the interface does not
 * declare is answered with VersionNotSupportedError (-32009).
 */
import { createHash, randomUUID } from 'node:crypto';
import { http, HttpResponse, type RequestHandler } from 'msw';
import type { PeerRuntime } from '../../harness/core/scenario.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { DROP_HEADER, isTerminal, keepOn } from '../../harness/core/transcript.js';
import { includesMediaType } from '../../harness/core/vocabulary/media-type.js';
import type { PeerRunContext } from '../context.js';
import { RpcError } from './errors.js';
import { depthOver, MAX_BODY_CHARS, MAX_BODY_DEPTH, ownHead, redactJson } from '../../harness/core/body.js';
import { eventOf, isObj } from './event.js';
import { sseResponse } from './stream.js';
import { TaskRuntime } from './tasks.js';
import { requestIn } from '../a2a-v0.3/codec.js';
import type { Dialect } from '../../harness/core/vocabulary/types.js';

type Params = Record<string, unknown>;

/**
 * How a v0.3 endpoint in front of this method table marks the neutral request it forwards, so that
 * a push config set through it is delivered in v0.3's shape. The mark is a per-process secret: a
 * client cannot set it on a request of its own.
 */
const INNER_HEADER = 'x-conformance-via-dialect';
const INNER_V03 = `a2a-v0.3 ${randomUUID()}`;
export const markViaV03 = (headers: Headers) => headers.set(INNER_HEADER, INNER_V03);
const viaV03 = (request: Request) => request.headers.get(INNER_HEADER) === INNER_V03;

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
 * The JSON-RPC id as the transcript keeps it. JSON-RPC 2.0 §4: "An identifier established by the
 * Client that MUST contain a String, Number, or NULL value if included". Anything else (an object
 * nested thousands deep, say) is kept as a short description, never as-is.
 */
function recordableId(id: unknown): unknown {
  if (id === null || typeof id === 'number') return id;
  if (typeof id === 'string') return id.length <= 256 ? id : { '@truncated': true, chars: id.length };
  return { '@invalid': Array.isArray(id) ? 'array' : typeof id };
}

/** The media types of a task's artifact parts, for the transcript (absent: none). */
function artifactTypesOf(task: Record<string, unknown>): string[] | undefined {
  const artifacts = Array.isArray(task.artifacts) ? (task.artifacts as Array<{ parts?: Array<{ mediaType?: unknown }> }>) : [];
  const types = artifacts.flatMap((a) => (a.parts ?? []).map((p) => (typeof p.mediaType === 'string' ? p.mediaType : '')));
  return types.length ? types.slice(0, 20) : undefined;
}

/** The longest webhook URL, token or credentials a push config may carry (characters). */
const MAX_PUSH_FIELD = 8000;

const validId = (id: unknown) => id === null || typeof id === 'number' || typeof id === 'string';

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

/** Records a JSON-RPC call on its event: method, id and params (bounded), and the digest of its params. */
export function recordCall(ev: HttpEvent, body: Params, raw: string): void {
  const method = typeof body.method === 'string' ? body.method : '';
  const params = isObj(body.params) ? body.params : {};
  ev.rpc = { method: method.length <= 200 ? method : `${ownHead(method, 200)}…`, id: recordableId(body.id ?? null), params: recordable(params, raw, ev) };
  ev.paramsDigest = paramsDigest(params);
}

/**
 * A call as it came on the wire of an interface in `dialect`, recorded as the transcript keeps
 * every call: a v0.3 call under its neutral operation and params, its wire method beside them
 * (a method v0.3 does not have keeps its own name).
 */
export function recordWireCall(ev: HttpEvent, body: Params, raw: string, dialect: Dialect): void {
  const call = dialect === 'a2a-v0.3' && typeof body.method === 'string' ? requestIn(body.method, body.params) : undefined;
  recordCall(ev, call ? { ...body, method: call.op, params: call.params } : body, raw);
  if (dialect === 'a2a-v0.3' && ev.rpc) ev.rpc.wireMethod = ownHead(String(body.method), 200);
}

/** Answers a frame the batch-only input path cannot take: HTTP 415, outside JSON-RPC (seed 000). */
class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text);
  }
}

/** `Major.Minor` of an `A2A-Version` value; empty means 0.3 (§3.6.2); patch numbers are not considered (§3.6). */
export function requestedVersion(value: string | null): string | undefined {
  const v = (value ?? '').trim();
  if (v === '') return '0.3';
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(v);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

export interface RpcOptions {
  rpcUrl: string;
  runtime: PeerRuntime;
  /** The card as served: its input modes, its interface versions, its extended-card capability. */
  card: Record<string, unknown>;
  ctx: PeerRunContext;
  /** The runtime's own card (placeholders filled), served by GetExtendedAgentCard where the card declares it. */
  extendedCard?: Record<string, unknown>;
}

export type Method = (params: Params, ev: HttpEvent, request: Request) => Promise<unknown>;

/** Counts calls per operation, so a scripted incident can hit the first N calls of one method or of all. */
function firstCalls(limit: { calls?: number; method?: string } | undefined) {
  let seen = 0;
  return (method: string): boolean => {
    if (!limit || (limit.method !== undefined && limit.method !== method)) return false;
    seen++;
    return limit.calls === undefined || seen <= limit.calls;
  };
}

export function rpcHandler(o: RpcOptions): RequestHandler {
  const { rpcUrl, runtime: rt, card, ctx } = o;
  const tasks = new TaskRuntime(rt, ctx);
  const unavailableNow = firstCalls(rt.unavailable);
  const dropNow = firstCalls(rt.drop);
  const inputModes = Array.isArray(card.defaultInputModes) ? (card.defaultInputModes as string[]) : [];
  const versions = new Set(
    (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [])
      .filter((i): i is Params => isObj(i) && i.url === rpcUrl)
      .map((i) => requestedVersion(String(i.protocolVersion ?? '')))
      .filter((v): v is string => !!v),
  );
  const caps = isObj(card.capabilities) ? card.capabilities : {};
  const session = rt.input?.sessionExtension;
  /** Tasks by the `messageId` that minted them, where the runtime deduplicates (§3.3.1). */
  const byMessageId = new Map<string, ReturnType<typeof tasks.mint>>();
  // A task serve forgets is forgotten here too: its history must not live on in this map.
  tasks.onForget = (t) => {
    for (const [k, v] of byMessageId) if (v === t) byMessageId.delete(k);
  };

  /** The skill a message names (`Message.metadata.skillId`, docs/extensions.md), if any. */
  const namedSkill = (message: Params): string | undefined => {
    const meta = isObj(message.metadata) ? message.metadata : {};
    return typeof meta.skillId === 'string' && meta.skillId ? meta.skillId.slice(0, 128) : undefined;
  };
  /** The skill a message goes to: the one it names, else the runtime's route for unnamed messages. */
  const skillOf = (message: Params): string | undefined => namedSkill(message) ?? rt.unnamedSkill;

  function parseParts(message: Params, ev: HttpEvent): { bytes: number } {
    const parts = message.parts;
    if (!Array.isArray(parts) || parts.length === 0) throw new RpcError('invalidParams', 'message.parts is REQUIRED');
    const skill = skillOf(message);
    // The runtime honours a skill's own input modes where it has them (seed 003), the card's defaults otherwise.
    const skillModes = skill !== undefined && rt.skillInputModes && Object.hasOwn(rt.skillInputModes, skill) ? rt.skillInputModes[skill] : undefined;
    const accepted = skillModes ?? inputModes;
    // What the message named, apart from where the runtime routed a message that named none.
    if (skill !== undefined && skill === namedSkill(message)) ev.skillId = skill;
    else if (skill !== undefined) ev.routedSkill = skill;
    const types: string[] = [];
    let bytes = 0;
    for (const p of parts) {
      if (!isObj(p)) throw new RpcError('invalidParams', 'a part must be an object');
      const kinds = ['text', 'raw', 'url', 'data'].filter((k) => p[k] !== undefined);
      if (kinds.length !== 1) throw new RpcError('invalidParams', 'a part must set exactly one of text, raw, url, data');
      const mt = typeof p.mediaType === 'string' ? p.mediaType : kinds[0] === 'text' ? 'text/plain' : kinds[0] === 'data' ? 'application/json' : '';
      if (types.length < 20) types.push(ownHead(mt, 200));
      ev.partTypes = types;
      if (!mt) throw new RpcError('invalidParams', 'a raw or url part needs mediaType');
      if (!includesMediaType(accepted, mt))
        throw new RpcError('contentTypeNotSupported', skillModes ? `${mt} is not an input mode of skill ${skill}` : `${mt} is not an input mode of this agent`);
      if (kinds[0] === 'raw') {
        if (typeof p.raw !== 'string') throw new RpcError('invalidParams', 'raw must be base64');
        if (rt.input && mt === rt.input.mediaType) bytes += Buffer.from(p.raw, 'base64').length;
      }
    }
    return { bytes };
  }

  /** A push config, refused at registration unless its URL is https (spec §13.2: webhooks SHOULD use HTTPS). */
  function pushConfigOf(v: unknown): { url: string; token?: string; authentication?: { scheme: string; credentials?: string } } {
    if (!isObj(v) || typeof v.url !== 'string' || v.url === '') throw new RpcError('invalidParams', 'TaskPushNotificationConfig.url is REQUIRED');
    // RFC 9110 §4.1 asks for URIs of at least 8,000 octets; a webhook URL of megabytes is a flood, kept nowhere.
    if (v.url.length > MAX_PUSH_FIELD)
      throw new RpcError(
        'invalidParams',
        `TaskPushNotificationConfig.url has ${v.url.length} characters: this agent takes webhook URLs of at most ${MAX_PUSH_FIELD}`,
      );
    for (const k of ['token'] as const)
      if (typeof v[k] === 'string' && (v[k] as string).length > MAX_PUSH_FIELD)
        throw new RpcError('invalidParams', `TaskPushNotificationConfig.${k} has ${(v[k] as string).length} characters: at most ${MAX_PUSH_FIELD}`);
    if (isObj(v.authentication) && typeof v.authentication.credentials === 'string' && v.authentication.credentials.length > MAX_PUSH_FIELD)
      throw new RpcError(
        'invalidParams',
        `TaskPushNotificationConfig.authentication.credentials has ${v.authentication.credentials.length} characters: at most ${MAX_PUSH_FIELD}`,
      );
    let protocol = '';
    try {
      protocol = new URL(v.url).protocol;
    } catch {
      throw new RpcError('invalidParams', `TaskPushNotificationConfig.url is not a URL: ${v.url.slice(0, 200)}`);
    }
    if (protocol !== 'https:') throw new RpcError('invalidParams', 'TaskPushNotificationConfig.url must be https: this agent calls webhooks over TLS only');
    const auth =
      isObj(v.authentication) && typeof v.authentication.scheme === 'string'
        ? { scheme: v.authentication.scheme, ...(typeof v.authentication.credentials === 'string' ? { credentials: v.authentication.credentials } : {}) }
        : undefined;
    return { url: v.url, ...(typeof v.token === 'string' ? { token: v.token } : {}), ...(auth ? { authentication: auth } : {}) };
  }

  /** Whether a request opts into an extension URI: the A2A-Extensions header or Message.extensions (§4.6.1). */
  const optsInto = (request: Request, message: Params, uri: string) =>
    (request.headers.get('a2a-extensions') ?? '')
      .split(',')
      .map((s) => s.trim())
      .includes(uri) ||
    (Array.isArray(message.extensions) && message.extensions.includes(uri));

  /** SendMessage and the first half of SendStreamingMessage: the task the message went to, or none (a Message reply). */
  function send(params: Params, ev: HttpEvent, request: Request) {
    const message = params.message;
    if (!isObj(message)) throw new RpcError('invalidParams', 'message is REQUIRED');
    if (typeof message.messageId !== 'string' || message.messageId === '') throw new RpcError('invalidParams', 'message.messageId is REQUIRED');
    if (message.role !== 'ROLE_USER') throw new RpcError('invalidParams', 'message.role must be ROLE_USER');
    if (Array.isArray(message.extensions)) ev.messageExtensions = message.extensions.filter((x): x is string => typeof x === 'string').slice(0, 20);
    ev.messageId = message.messageId.slice(0, 128);
    const { bytes } = parseParts(message, ev);
    const config = isObj(params.configuration) ? params.configuration : {};
    if (typeof message.taskId === 'string' && message.taskId !== '') {
      const t = tasks.get(message.taskId);
      ev.taskId = t.rec.id;
      if (typeof message.contextId === 'string' && message.contextId !== '' && message.contextId !== t.rec.contextId)
        throw new RpcError('invalidParams', `contextId ${message.contextId} does not match task ${t.rec.id}`);
      if (isTerminal(t.rec.state)) throw new RpcError('unsupportedOperation', `task is ${t.rec.state}`, { taskId: t.rec.id });
      if (bytes > 0 && rt.input && !rt.input.acceptsFrames && !t.session)
        throw new HttpRefusal(415, `Unsupported Media Type: this endpoint takes one complete ${rt.input.mediaType} payload per task`);
      tasks.remember(t, message);
      tasks.acceptInput(t, bytes, ev.seq);
      return t;
    }
    if (rt.input && bytes > rt.input.ceilingBytes) throw new RpcError('invalidParams', `payload of ${bytes} bytes is over this endpoint's ceiling`);
    let inlinePush: ReturnType<typeof pushConfigOf> | undefined;
    if (config.taskPushNotificationConfig !== undefined) {
      // A runtime without push at all takes the message and drops the config it does not implement.
      if (!rt.push.supported && rt.push.missing === 'method-not-found') ev.note = 'taskPushNotificationConfig ignored: this runtime has no push';
      else if (!rt.push.supported) throw new RpcError('pushNotSupported');
      else inlinePush = pushConfigOf(config.taskPushNotificationConfig);
    }
    if (rt.reply === 'message') return undefined;
    const seen = rt.idempotency === 'message-id' ? byMessageId.get(message.messageId) : undefined;
    if (seen) {
      ev.taskId = seen.rec.id;
      ev.deduplicated = true;
      return seen;
    }
    const opted = !!session && optsInto(request, message, session);
    const meta = isObj(message.metadata) ? message.metadata : {};
    // The outputs a task emits follow the skill it names (an unnamed message's route does not pick outputs).
    const skill = typeof meta.skillId === 'string' && meta.skillId ? meta.skillId.slice(0, 128) : undefined;
    const t = tasks.mint(ev.seq, typeof message.contextId === 'string' && message.contextId ? message.contextId : undefined, opted, skill);
    if (rt.idempotency === 'message-id') byMessageId.set(message.messageId, t);
    ev.taskId = t.rec.id;
    tasks.remember(t, message);
    if (inlinePush) tasks.addPushConfig(t, inlinePush, 'inline', ev.seq, viaV03(request) ? 'a2a-v0.3' : 'a2a-v1');
    tasks.acceptInput(t, bytes, ev.seq);
    return t;
  }

  /** A direct Message answer (spec §3.1.1): no task is minted. */
  const messageReply = (params: Params) => {
    const m = isObj(params.message) ? params.message : {};
    return {
      messageId: `reply-${ctx.key}-${String(m.messageId ?? '').slice(0, 40)}`,
      role: 'ROLE_AGENT',
      ...(typeof m.contextId === 'string' && m.contextId ? { contextId: m.contextId } : {}),
      parts: [{ text: 'result', mediaType: 'text/plain' }],
    };
  };

  const taskIdParam = (params: Params, key = 'id') => {
    const id = params[key];
    if (typeof id !== 'string' || id === '') throw new RpcError('invalidParams', `${key} is REQUIRED`);
    return id;
  };
  const historyLength = (params: Params) => {
    const h = params.historyLength;
    if (h === undefined || h === null) return undefined;
    if (typeof h !== 'number' || !Number.isInteger(h) || h < 0) throw new RpcError('invalidParams', 'historyLength must be a non-negative integer');
    return h;
  };
  const requirePush = (method: string) => {
    if (rt.push.supported) return;
    throw rt.push.missing === 'method-not-found' ? new RpcError('methodNotFound', method) : new RpcError('pushNotSupported');
  };

  /** Unary methods: params → result. */
  const METHODS: Record<string, Method> = {
    async SendMessage(params, ev, request) {
      const t = send(params, ev, request);
      if (!t) {
        ev.reply = 'message';
        return { message: messageReply(params) };
      }
      ev.reply = 'task';
      const config = isObj(params.configuration) ? params.configuration : {};
      // Blocking by default (§3.2.2): wait for a terminal or interrupted state, within the scenario's deadline.
      if (config.returnImmediately !== true) await tasks.settle(t, ctx.deadlineMs);
      // The run may have ended while it waited: its transcript is sealed and graded, so leave it as it is.
      const task = tasks.toJson(t, { historyLength: historyLength(config) });
      if (!ctx.transcript.isSealed) {
        ev.taskState = t.rec.state;
        ev.artifactTypes = artifactTypesOf(task);
      }
      return { task };
    },
    async GetTask(params, ev) {
      const t = tasks.get(taskIdParam(params));
      ev.taskId = t.rec.id;
      ev.taskState = t.rec.state;
      const task = tasks.toJson(t, { historyLength: historyLength(params) });
      ev.artifactTypes = artifactTypesOf(task);
      return task;
    },
    async ListTasks(params) {
      // §3.1.4: filters, then the most recently updated first, with a cursor (not an offset) as the page token.
      const contextId = typeof params.contextId === 'string' && params.contextId ? params.contextId : undefined;
      const status = typeof params.status === 'string' && params.status && params.status !== 'TASK_STATE_UNSPECIFIED' ? params.status : undefined;
      const after = typeof params.statusTimestampAfter === 'string' && params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
      if (after !== undefined && Number.isNaN(after)) throw new RpcError('invalidParams', 'statusTimestampAfter must be an ISO 8601 timestamp');
      let pageSize = 50;
      if (params.pageSize !== undefined && params.pageSize !== null) {
        if (typeof params.pageSize !== 'number' || !Number.isInteger(params.pageSize) || params.pageSize < 1 || params.pageSize > 100)
          throw new RpcError('invalidParams', 'pageSize must be an integer from 1 to 100');
        pageSize = params.pageSize;
      }
      const all = tasks
        .byRecentUpdate()
        .filter(
          (t) =>
            (!contextId || t.rec.contextId === contextId) && (!status || t.rec.state === status) && (after === undefined || Date.parse(t.updated) >= after),
        );
      let rest = all;
      if (typeof params.pageToken === 'string' && params.pageToken !== '') {
        const m = /^c(\d+)$/.exec(Buffer.from(params.pageToken, 'base64url').toString('utf8'));
        if (!m) throw new RpcError('invalidParams', 'pageToken is not one this agent issued');
        const cursor = Number(m[1]);
        rest = all.filter((t) => t.order < cursor);
      }
      const page = rest.slice(0, pageSize);
      const next = rest.length > pageSize ? Buffer.from(`c${page.at(-1)!.order}`).toString('base64url') : '';
      const list = page.map((t) => tasks.toJson(t, { historyLength: historyLength(params), artifacts: params.includeArtifacts === true }));
      return { tasks: list, nextPageToken: next, pageSize, totalSize: all.length };
    },
    async CancelTask(params, ev) {
      const t = tasks.get(taskIdParam(params));
      ev.taskId = t.rec.id;
      tasks.cancel(t, ev.seq);
      ev.taskState = t.rec.state;
      return tasks.toJson(t);
    },
    async CreateTaskPushNotificationConfig(params, ev, request) {
      requirePush('CreateTaskPushNotificationConfig');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      ev.taskId = t.rec.id;
      return { ...tasks.addPushConfig(t, pushConfigOf(params), 'create', ev.seq, viaV03(request) ? 'a2a-v0.3' : 'a2a-v1') };
    },
    async GetTaskPushNotificationConfig(params, _ev, request) {
      requirePush('GetTaskPushNotificationConfig');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      // v0.3 also takes bare TaskIdParams (v0.3.0 §7.4.1, §7.6): the task's config, the first set. v1.0's id is REQUIRED.
      if ((params.id === undefined || params.id === null) && !viaV03(request)) throw new RpcError('invalidParams', 'id is REQUIRED');
      const cfg = params.id === undefined || params.id === null ? t.pushConfigs[0] : t.pushConfigs.find((c) => c.id === params.id);
      if (!cfg) throw new RpcError('taskNotFound', 'no such push notification config');
      return { ...cfg };
    },
    async ListTaskPushNotificationConfigs(params) {
      requirePush('ListTaskPushNotificationConfigs');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      return { configs: t.pushConfigs.map((c) => ({ ...c })), nextPageToken: '' };
    },
    async DeleteTaskPushNotificationConfig(params) {
      requirePush('DeleteTaskPushNotificationConfig');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      t.pushConfigs = t.pushConfigs.filter((c) => c.id !== params.id);
      return {};
    },
    async GetExtendedAgentCard() {
      // §3.3.4: without the capability, UnsupportedOperationError; declared but not configured, -32007.
      if (caps.extendedAgentCard !== true) throw new RpcError('unsupportedOperation', 'this agent declares no extended agent card');
      if (!o.extendedCard) throw new RpcError('extendedCardNotConfigured');
      return o.extendedCard;
    },
  };

  return http.post(rpcUrl, async ({ request }) => {
    const ev = eventOf(ctx, request);
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
    const rawId = isObj(body) ? (body.id ?? null) : null;
    // An id that is not a string, number or null is echoed as null (JSON-RPC 2.0 §5: the id "MUST be Null" when it cannot be detected).
    const id = validId(rawId) ? rawId : null;
    if (!isObj(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !validId(rawId)) {
      ev.rpcError = { code: -32600, message: 'Invalid Request' };
      if (isObj(body) && !validId(rawId)) ev.note = `JSON-RPC id is not a string, number or null: ${JSON.stringify(recordableId(rawId))}`;
      return HttpResponse.json({ jsonrpc: '2.0', id, error: new RpcError('invalidRequest').toJson() });
    }
    const method = body.method;
    const params = isObj(body.params) ? body.params : {};
    recordCall(ev, body as Params, raw);
    // Scripted incidents in front of the runtime (docs/peers.md): busy, then slow, then cut.
    const busy = rt.unavailable;
    if (busy && unavailableNow(method)) {
      ev.note = `scripted: HTTP ${busy.status} with Retry-After: ${busy.retryAfterSeconds} (runtime.unavailable)`;
      const text = busy.status === 429 ? 'Too Many Requests' : 'Service Unavailable';
      return new HttpResponse(text, { status: busy.status, headers: { 'content-type': 'text/plain', 'retry-after': String(busy.retryAfterSeconds) } });
    }
    if (rt.slow && (rt.slow.method === undefined || rt.slow.method === method)) await pause(ctx, rt.slow.ms);
    const res = await answer(method, params, id, ev, request, raw);
    if (rt.drop && dropNow(method)) {
      res.headers.set(DROP_HEADER, String(rt.drop.afterBytes));
      ev.note = `scripted: connection dropped after the headers and ${rt.drop.afterBytes} bytes of the body (runtime.drop)`;
    }
    return res;
  });

  /** One call, answered by the runtime (or refused by it). */
  async function answer(method: string, params: Params, id: unknown, ev: HttpEvent, request: Request, raw: string): Promise<Response> {
    const echo: Record<string, string> = {};
    try {
      // A ceiling in front of the runtime that no card field shows (seed 003's residual risk).
      const size = Buffer.byteLength(raw);
      if (rt.maxRequestBytes !== undefined && size > rt.maxRequestBytes)
        throw new HttpRefusal(413, `Content Too Large: this endpoint takes requests of at most ${rt.maxRequestBytes} bytes; this one has ${size}`);
      const header = request.headers.get('a2a-version');
      const query = new URL(request.url).searchParams.get('A2A-Version');
      const asked = requestedVersion(header ?? query);
      if (!asked || !versions.has(asked))
        throw new RpcError(
          'versionNotSupported',
          `A2A-Version ${JSON.stringify(header ?? query ?? '')} is read as ${asked ?? 'nothing'}; this interface speaks ${[...versions].join(', ')}`,
        );
      if (session && isObj(params.message) && optsInto(request, params.message, session)) echo['a2a-extensions'] = session;
      if (method === 'SendStreamingMessage' || method === 'SubscribeToTask') {
        if (!rt.streaming) throw new RpcError('unsupportedOperation', 'streaming is not supported by this agent');
        if (method === 'SendStreamingMessage') {
          const t = send(params, ev, request);
          if (!t) return sseResponse(ctx, id, ev, undefined, [], { message: messageReply(params) });
          return sseResponse(ctx, id, ev, { tasks, t }, [], undefined, rt.streamEnds?.afterEvents);
        }
        const t = tasks.get(taskIdParam(params));
        ev.taskId = t.rec.id;
        if (isTerminal(t.rec.state)) throw new RpcError('unsupportedOperation', `task is ${t.rec.state}`);
        return sseResponse(ctx, id, ev, { tasks, t }, tasks.subscribeOnlyArtifacts(), undefined, rt.streamEnds?.afterEvents);
      }
      const fn = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
      if (!fn) throw new RpcError('methodNotFound', method);
      const result = await fn(params, ev, request);
      return HttpResponse.json({ jsonrpc: '2.0', id, result }, { headers: echo });
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
  }
}

/** Waits `ms`, or less when the run ends first (a slow answer must not outlive its run). */
function pause(ctx: PeerRunContext, ms: number): Promise<void> {
  return new Promise((resolve) => {
    ctx.later(ms, resolve);
    ctx.onEnd(resolve);
  });
}
