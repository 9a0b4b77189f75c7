/**
 * The A2A operations (spec §3.1) as a table of functions `(params, context) → result`, throwing an
 * A2AError (§3.3.2) to refuse: what the runtime does, knowing no wire. A wire decodes a request into
 * an operation and its params (neutral names and shapes: v1.0's), and encodes what comes back.
 *
 * The runtime description (scenario file) scripts it: input modes per skill, idempotency, push
 * support, a reply without a task, streaming, the extended card.
 */
import type { PeerRuntime } from '../../harness/core/scenario/runtime.js';
import { isTerminal } from '../../harness/core/transcript.js';
import type { PeerRunContext } from './context.js';
import { A2AError } from './errors.js';
import { isObj } from './event.js';
import { artifactTypesOf, historyLength, messageReply, optsInto, pushConfigOf, taskIdParam } from './intake.js';
import { send } from './send.js';
import type { CallContext, Operation, Outcome, RuntimeState } from './state.js';
import { TaskRuntime } from './tasks.js';

export type { CallContext, Operation, Outcome } from './state.js';

type Params = Record<string, unknown>;

const done = (result: unknown): Outcome => ({ result, activated: [] });

function requirePush(s: RuntimeState, method: string): void {
  if (s.rt.push.supported) return;
  throw s.rt.push.missing === 'method-not-found' ? new A2AError('methodNotFound', method) : new A2AError('pushNotSupported');
}

function requireStreaming(s: RuntimeState): void {
  if (!s.rt.streaming) throw new A2AError('unsupportedOperation', 'streaming is not supported by this agent');
}

const endAfterOf = (s: RuntimeState) =>
  s.rt.streamEnds ? { endAfter: s.rt.streamEnds.afterEvents, ...(s.rt.streamEnds.midEvent ? { midEvent: true } : {}) } : {};

/** The operations, by their §3.1 names. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  async SendMessage(params, cx) {
    const { ev, s } = cx;
    const t = send(s, params, cx);
    if (!t) {
      ev.reply = 'message';
      return done({ message: messageReply(s.ctx.key, params) });
    }
    ev.reply = 'task';
    const config = isObj(params.configuration) ? params.configuration : {};
    // Blocking by default (§3.2.2): wait for a terminal or interrupted state, within the scenario's deadline.
    if (config.returnImmediately !== true) await s.tasks.settle(t, s.ctx.deadlineMs);
    // The run may have ended while it waited: its transcript is sealed and graded, so leave it as it is.
    const task = s.tasks.toJson(t, { historyLength: historyLength(config) });
    if (!s.ctx.transcript.isSealed) {
      ev.taskState = t.rec.state;
      ev.artifactTypes = artifactTypesOf(task);
    }
    return done({ task });
  },
  async SendStreamingMessage(params, cx) {
    const { s } = cx;
    requireStreaming(s);
    const t = send(s, params, cx);
    if (!t) return { stream: { only: { message: messageReply(s.ctx.key, params) } } };
    return { stream: { tasks: s.tasks, t, extra: [], ...endAfterOf(s) } };
  },
  async SubscribeToTask(params, { ev, s }) {
    requireStreaming(s);
    const t = s.tasks.get(taskIdParam(params));
    ev.taskId = t.rec.id;
    if (isTerminal(t.rec.state)) {
      // What the peer found: the refusal tells the client the task ended (§9.4.6), which the grading reads from here.
      ev.taskState = t.rec.state;
      throw new A2AError('unsupportedOperation', `task is ${t.rec.state}`);
    }
    return { stream: { tasks: s.tasks, t, extra: s.tasks.subscribeOnlyArtifacts(), ...endAfterOf(s) } };
  },
  async GetTask(params, { ev, s }) {
    const t = s.tasks.get(taskIdParam(params));
    ev.taskId = t.rec.id;
    ev.taskState = t.rec.state;
    const task = s.tasks.toJson(t, { historyLength: historyLength(params) });
    ev.artifactTypes = artifactTypesOf(task);
    return done(task);
  },
  async ListTasks(params, { s }) {
    return done(listTasks(s.tasks, params));
  },
  async CancelTask(params, { ev, s }) {
    const t = s.tasks.get(taskIdParam(params));
    ev.taskId = t.rec.id;
    // The state the cancel found, kept also where it is refused (TaskNotCancelable: the task had ended): the oracle
    // reads a refusal by what the peer found when it handled the call, not by the order of records, which load changes.
    ev.taskState = t.rec.state;
    s.tasks.cancel(t, ev.seq);
    ev.taskState = t.rec.state;
    return done(s.tasks.toJson(t));
  },
  async CreateTaskPushNotificationConfig(params, { ev, s, pushBody }) {
    requirePush(s, 'CreateTaskPushNotificationConfig');
    const t = s.tasks.get(taskIdParam(params, 'taskId'));
    ev.taskId = t.rec.id;
    return done({ ...s.tasks.addPushConfig(t, pushConfigOf(params), 'create', ev.seq, pushBody) });
  },
  async GetTaskPushNotificationConfig(params, { s, pushConfigIdOptional }) {
    requirePush(s, 'GetTaskPushNotificationConfig');
    const t = s.tasks.get(taskIdParam(params, 'taskId'));
    // v0.3 also takes bare TaskIdParams (v0.3.0 §7.4.1, §7.6): the task's config, the first set. v1.0's id is REQUIRED.
    const bare = params.id === undefined || params.id === null;
    if (bare && !pushConfigIdOptional) throw new A2AError('invalidParams', 'id is REQUIRED');
    const cfg = bare ? t.pushConfigs[0] : t.pushConfigs.find((c) => c.id === params.id);
    if (!cfg) throw new A2AError('taskNotFound', 'no such push notification config');
    return done({ ...cfg });
  },
  async ListTaskPushNotificationConfigs(params, { s }) {
    requirePush(s, 'ListTaskPushNotificationConfigs');
    const t = s.tasks.get(taskIdParam(params, 'taskId'));
    return done({ configs: t.pushConfigs.map((c) => ({ ...c })), nextPageToken: '' });
  },
  async DeleteTaskPushNotificationConfig(params, { s }) {
    requirePush(s, 'DeleteTaskPushNotificationConfig');
    const t = s.tasks.get(taskIdParam(params, 'taskId'));
    t.pushConfigs = t.pushConfigs.filter((c) => c.id !== params.id);
    return done({});
  },
  async GetExtendedAgentCard(_params, { s }) {
    // §3.3.4: without the capability, UnsupportedOperationError; declared but not configured, -32007.
    if (s.caps.extendedAgentCard !== true) throw new A2AError('unsupportedOperation', 'this agent declares no extended agent card');
    if (!s.extendedCard) throw new A2AError('extendedCardNotConfigured');
    return done(s.extendedCard);
  },
};

export interface RuntimeOptions {
  runtime: PeerRuntime;
  /** The card as the runtime reads it (v1.0 shape): its input modes, its interfaces, its extended-card capability. */
  card: Record<string, unknown>;
  ctx: PeerRunContext;
  /** The runtime's own card (placeholders filled), served by GetExtendedAgentCard where the card declares it. */
  extendedCard?: Record<string, unknown>;
}

/** One peer's runtime: its state and the operation table over it, shared by every interface (wire) of the peer. */
export interface Runtime {
  readonly description: PeerRuntime;
  readonly card: Record<string, unknown>;
  /** Runs an operation; an unknown one is MethodNotFound. */
  perform(op: string, params: Params, call: CallContext): Promise<Outcome>;
}

export function createRuntime(o: RuntimeOptions): Runtime {
  const { runtime: rt, card, ctx } = o;
  const tasks = new TaskRuntime(rt, ctx);
  const session = rt.input?.sessionExtension;
  const s: RuntimeState = {
    rt,
    ctx,
    tasks,
    inputModes: Array.isArray(card.defaultInputModes) ? (card.defaultInputModes as string[]) : [],
    caps: isObj(card.capabilities) ? card.capabilities : {},
    ...(session ? { session } : {}),
    byMessageId: new Map(),
    ...(o.extendedCard ? { extendedCard: o.extendedCard } : {}),
  };
  // A task serve forgets is forgotten here too: its history must not live on in this map.
  tasks.onForget = (t) => {
    for (const [k, v] of s.byMessageId) if (v === t) s.byMessageId.delete(k);
  };
  return {
    description: rt,
    card,
    async perform(op, params, call) {
      // The session extension a message opts into is activated, and said so in the answer (§3.2.6).
      const activated = session && isObj(params.message) && optsInto(call.extensions, params.message, session) ? [session] : [];
      const fn = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined;
      if (!fn) throw new A2AError('methodNotFound', op);
      const out = await fn(params, { ...call, s });
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
