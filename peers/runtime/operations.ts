/**
 * The A2A operations (spec §3.1) as a table of functions `(params, context) → result`, throwing an
 * A2AError (§3.3.2) to refuse: what the runtime does, knowing no wire. A wire decodes a request into
 * an operation and its params (neutral names and shapes: v1.0's), and encodes what comes back.
 *
 * The runtime description (scenario file) scripts it: input modes per skill, idempotency, push
 * support, a reply without a task, streaming, the extended card.
 */
import type { PeerRuntime } from '../../harness/core/scenario.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { isTerminal } from '../../harness/core/transcript.js';
import type { PeerRunContext } from '../context.js';
import { A2AError, HttpRefusal } from './errors.js';
import { isObj } from './event.js';
import { artifactTypesOf, historyLength, messageReply, namedSkill, optsInto, parseParts, type PushConfigInput, pushConfigOf, taskIdParam } from './intake.js';
import type { StreamPlan } from './stream.js';
import { type PushBody, TaskRuntime, type TaskState } from './tasks.js';

type Params = Record<string, unknown>;

/** What an operation knows of the call besides its params: its event, and what its wire read or asks for. */
export interface OpContext {
  ev: HttpEvent;
  /** The extensions the request opts into by service parameter (A2A-Extensions, §3.2.6), as its wire read them. */
  extensions: readonly string[];
  /** How a push config set by this call spells its deliveries (the wire's push body). */
  pushBody: PushBody;
  /** The wire's dialect takes a push config request without the config's id (v0.3: the task's first config). */
  pushConfigIdOptional?: boolean;
}

/** An operation's answer: a result (with the extensions it activated, §3.2.6), or a stream of events. */
export type Outcome = { result: unknown; activated: string[] } | { stream: StreamPlan };

export type Operation = (params: Params, cx: OpContext) => Promise<Outcome>;

export interface RuntimeOptions {
  runtime: PeerRuntime;
  /** The card as the runtime reads it (v1.0 shape): its input modes, its interfaces, its extended-card capability. */
  card: Record<string, unknown>;
  ctx: PeerRunContext;
  /** The runtime's own card (placeholders filled), served by GetExtendedAgentCard where the card declares it. */
  extendedCard?: Record<string, unknown>;
}

/** One peer's runtime: its tasks and the operation table over them, shared by every interface (wire) of the peer. */
export interface Runtime {
  readonly description: PeerRuntime;
  readonly card: Record<string, unknown>;
  readonly operations: Readonly<Record<string, Operation>>;
  /** Runs an operation; an unknown one is MethodNotFound. */
  perform(op: string, params: Params, cx: OpContext): Promise<Outcome>;
}

export function createRuntime(o: RuntimeOptions): Runtime {
  const { runtime: rt, card, ctx } = o;
  const tasks = new TaskRuntime(rt, ctx);
  const inputModes = Array.isArray(card.defaultInputModes) ? (card.defaultInputModes as string[]) : [];
  const caps = isObj(card.capabilities) ? card.capabilities : {};
  const session = rt.input?.sessionExtension;
  /** Tasks by the `messageId` that minted them, where the runtime deduplicates (§3.3.1). */
  const byMessageId = new Map<string, TaskState>();
  // A task serve forgets is forgotten here too: its history must not live on in this map.
  tasks.onForget = (t) => {
    for (const [k, v] of byMessageId) if (v === t) byMessageId.delete(k);
  };
  const done = (result: unknown): Outcome => ({ result, activated: [] });

  /** The inline push config of a first message, where the runtime takes one. */
  function inlinePushOf(config: Params, ev: HttpEvent): PushConfigInput | undefined {
    if (config.taskPushNotificationConfig === undefined) return undefined;
    // A runtime without push at all takes the message and drops the config it does not implement.
    if (!rt.push.supported && rt.push.missing === 'method-not-found') ev.note = 'taskPushNotificationConfig ignored: this runtime has no push';
    else if (!rt.push.supported) throw new A2AError('pushNotSupported');
    else return pushConfigOf(config.taskPushNotificationConfig);
    return undefined;
  }

  /** A message to a task it names: input for it. */
  function continueTask(message: Params, bytes: number, ev: HttpEvent): TaskState {
    const t = tasks.get(message.taskId as string);
    ev.taskId = t.rec.id;
    if (typeof message.contextId === 'string' && message.contextId !== '' && message.contextId !== t.rec.contextId)
      throw new A2AError('invalidParams', `contextId ${message.contextId} does not match task ${t.rec.id}`);
    if (isTerminal(t.rec.state)) throw new A2AError('unsupportedOperation', `task is ${t.rec.state}`, { taskId: t.rec.id });
    if (bytes > 0 && rt.input && !rt.input.acceptsFrames && !t.session)
      throw new HttpRefusal(415, `Unsupported Media Type: this endpoint takes one complete ${rt.input.mediaType} payload per task`);
    tasks.remember(t, message);
    tasks.acceptInput(t, bytes, ev.seq);
    return t;
  }

  /** SendMessage and the first half of SendStreamingMessage: the task the message went to, or none (a Message reply). */
  function send(params: Params, cx: OpContext): TaskState | undefined {
    const { ev } = cx;
    const message = params.message;
    if (!isObj(message)) throw new A2AError('invalidParams', 'message is REQUIRED');
    if (typeof message.messageId !== 'string' || message.messageId === '') throw new A2AError('invalidParams', 'message.messageId is REQUIRED');
    if (message.role !== 'ROLE_USER') throw new A2AError('invalidParams', 'message.role must be ROLE_USER');
    if (Array.isArray(message.extensions)) ev.messageExtensions = message.extensions.filter((x): x is string => typeof x === 'string').slice(0, 20);
    ev.messageId = message.messageId.slice(0, 128);
    const { bytes } = parseParts(rt, inputModes, message, ev);
    const config = isObj(params.configuration) ? params.configuration : {};
    if (typeof message.taskId === 'string' && message.taskId !== '') return continueTask(message, bytes, ev);
    if (rt.input && bytes > rt.input.ceilingBytes) throw new A2AError('invalidParams', `payload of ${bytes} bytes is over this endpoint's ceiling`);
    const inlinePush = inlinePushOf(config, ev);
    if (rt.reply === 'message') return undefined;
    const seen = rt.idempotency === 'message-id' ? byMessageId.get(message.messageId) : undefined;
    if (seen) {
      ev.taskId = seen.rec.id;
      ev.deduplicated = true;
      return seen;
    }
    const opted = !!session && optsInto(cx.extensions, message, session);
    // The outputs a task emits follow the skill it names (an unnamed message's route does not pick outputs).
    const t = tasks.mint(ev.seq, typeof message.contextId === 'string' && message.contextId ? message.contextId : undefined, opted, namedSkill(message));
    if (rt.idempotency === 'message-id') byMessageId.set(message.messageId, t);
    ev.taskId = t.rec.id;
    tasks.remember(t, message);
    if (inlinePush) tasks.addPushConfig(t, inlinePush, 'inline', ev.seq, cx.pushBody);
    tasks.acceptInput(t, bytes, ev.seq);
    return t;
  }

  const requirePush = (method: string) => {
    if (rt.push.supported) return;
    throw rt.push.missing === 'method-not-found' ? new A2AError('methodNotFound', method) : new A2AError('pushNotSupported');
  };
  const requireStreaming = () => {
    if (!rt.streaming) throw new A2AError('unsupportedOperation', 'streaming is not supported by this agent');
  };

  const operations: Record<string, Operation> = {
    async SendMessage(params, cx) {
      const { ev } = cx;
      const t = send(params, cx);
      if (!t) {
        ev.reply = 'message';
        return done({ message: messageReply(ctx.key, params) });
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
      return done({ task });
    },
    async SendStreamingMessage(params, cx) {
      requireStreaming();
      const t = send(params, cx);
      if (!t) return { stream: { only: { message: messageReply(ctx.key, params) } } };
      return { stream: { tasks, t, extra: [], ...(rt.streamEnds ? { endAfter: rt.streamEnds.afterEvents } : {}) } };
    },
    async SubscribeToTask(params, { ev }) {
      requireStreaming();
      const t = tasks.get(taskIdParam(params));
      ev.taskId = t.rec.id;
      if (isTerminal(t.rec.state)) throw new A2AError('unsupportedOperation', `task is ${t.rec.state}`);
      return { stream: { tasks, t, extra: tasks.subscribeOnlyArtifacts(), ...(rt.streamEnds ? { endAfter: rt.streamEnds.afterEvents } : {}) } };
    },
    async GetTask(params, { ev }) {
      const t = tasks.get(taskIdParam(params));
      ev.taskId = t.rec.id;
      ev.taskState = t.rec.state;
      const task = tasks.toJson(t, { historyLength: historyLength(params) });
      ev.artifactTypes = artifactTypesOf(task);
      return done(task);
    },
    async ListTasks(params) {
      return done(listTasks(tasks, params));
    },
    async CancelTask(params, { ev }) {
      const t = tasks.get(taskIdParam(params));
      ev.taskId = t.rec.id;
      tasks.cancel(t, ev.seq);
      ev.taskState = t.rec.state;
      return done(tasks.toJson(t));
    },
    async CreateTaskPushNotificationConfig(params, cx) {
      requirePush('CreateTaskPushNotificationConfig');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      cx.ev.taskId = t.rec.id;
      return done({ ...tasks.addPushConfig(t, pushConfigOf(params), 'create', cx.ev.seq, cx.pushBody) });
    },
    async GetTaskPushNotificationConfig(params, cx) {
      requirePush('GetTaskPushNotificationConfig');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      // v0.3 also takes bare TaskIdParams (v0.3.0 §7.4.1, §7.6): the task's config, the first set. v1.0's id is REQUIRED.
      const bare = params.id === undefined || params.id === null;
      if (bare && !cx.pushConfigIdOptional) throw new A2AError('invalidParams', 'id is REQUIRED');
      const cfg = bare ? t.pushConfigs[0] : t.pushConfigs.find((c) => c.id === params.id);
      if (!cfg) throw new A2AError('taskNotFound', 'no such push notification config');
      return done({ ...cfg });
    },
    async ListTaskPushNotificationConfigs(params) {
      requirePush('ListTaskPushNotificationConfigs');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      return done({ configs: t.pushConfigs.map((c) => ({ ...c })), nextPageToken: '' });
    },
    async DeleteTaskPushNotificationConfig(params) {
      requirePush('DeleteTaskPushNotificationConfig');
      const t = tasks.get(taskIdParam(params, 'taskId'));
      t.pushConfigs = t.pushConfigs.filter((c) => c.id !== params.id);
      return done({});
    },
    async GetExtendedAgentCard() {
      // §3.3.4: without the capability, UnsupportedOperationError; declared but not configured, -32007.
      if (caps.extendedAgentCard !== true) throw new A2AError('unsupportedOperation', 'this agent declares no extended agent card');
      if (!o.extendedCard) throw new A2AError('extendedCardNotConfigured');
      return done(o.extendedCard);
    },
  };

  return {
    description: rt,
    card,
    operations,
    async perform(op, params, cx) {
      // The session extension a message opts into is activated, and said so in the answer (§3.2.6).
      const activated = session && isObj(params.message) && optsInto(cx.extensions, params.message, session) ? [session] : [];
      const fn = Object.hasOwn(operations, op) ? operations[op] : undefined;
      if (!fn) throw new A2AError('methodNotFound', op);
      const out = await fn(params, cx);
      return 'result' in out ? { ...out, activated } : out;
    },
  };
}

/** ListTasks (§3.1.4): filters, then the most recently updated first, with a cursor (not an offset) as the page token. */
function listTasks(tasks: TaskRuntime, params: Params): Record<string, unknown> {
  const contextId = typeof params.contextId === 'string' && params.contextId ? params.contextId : undefined;
  const status = typeof params.status === 'string' && params.status && params.status !== 'TASK_STATE_UNSPECIFIED' ? params.status : undefined;
  const after = typeof params.statusTimestampAfter === 'string' && params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
  if (after !== undefined && Number.isNaN(after)) throw new A2AError('invalidParams', 'statusTimestampAfter must be an ISO 8601 timestamp');
  let pageSize = 50;
  if (params.pageSize !== undefined && params.pageSize !== null) {
    if (typeof params.pageSize !== 'number' || !Number.isInteger(params.pageSize) || params.pageSize < 1 || params.pageSize > 100)
      throw new A2AError('invalidParams', 'pageSize must be an integer from 1 to 100');
    pageSize = params.pageSize;
  }
  const all = tasks
    .byRecentUpdate()
    .filter(
      (t) => (!contextId || t.rec.contextId === contextId) && (!status || t.rec.state === status) && (after === undefined || Date.parse(t.updated) >= after),
    );
  let rest = all;
  if (typeof params.pageToken === 'string' && params.pageToken !== '') {
    const m = /^c(\d+)$/.exec(Buffer.from(params.pageToken, 'base64url').toString('utf8'));
    if (!m) throw new A2AError('invalidParams', 'pageToken is not one this agent issued');
    const cursor = Number(m[1]);
    rest = all.filter((t) => t.order < cursor);
  }
  const page = rest.slice(0, pageSize);
  const next = rest.length > pageSize ? Buffer.from(`c${page.at(-1)!.order}`).toString('base64url') : '';
  const list = page.map((t) => tasks.toJson(t, { historyLength: historyLength(params), artifacts: params.includeArtifacts === true }));
  return { tasks: list, nextPageToken: next, pageSize, totalSize: all.length };
}
