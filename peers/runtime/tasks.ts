/**
 * The scripted task runtime of a peer (A2A v1.0's data model, whatever wire it is spoken on): it mints tasks, moves them through their states
 * as the runtime description says, emits artifacts on the channels it says, and pushes state
 * changes to registered receivers. Every change goes into the run's ledger and transcript.
 */
import type { PeerRuntime } from '../../harness/core/scenario/runtime.js';
import { isTerminal, type TaskRecord } from '../../harness/core/transcript.js';
import { redactUrl } from '../../harness/core/body.js';
import type { PeerRunContext } from './context.js';
import { A2AError } from './errors.js';
import { PushForger } from './forge.js';

/** A push notification's body as the wire a config was set through sends it (v1.0's StreamResponse as it is; v0.3's Task). */
export type PushBody = (event: Record<string, unknown>) => unknown;

export interface PushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

export interface ArtifactJson {
  artifactId: string;
  name?: string;
  parts: Array<Record<string, unknown>>;
}

type Listener = (event: Record<string, unknown>, state: string | undefined, closes: boolean) => void;

export interface TaskState {
  rec: TaskRecord;
  /** The messages of the task, oldest first (the client's, as sent; GetTask honours historyLength). */
  history: Array<Record<string, unknown>>;
  /** The first message opted into the runtime's session extension: frames are taken (NEG-ESCALATE). */
  session: boolean;
  /** The skill the first message named (`Message.metadata.skillId`, docs/extensions.md). */
  skill?: string;
  /** When the status last changed (ISO 8601). */
  updated: string;
  /** A counter of status changes across the runtime: the order of `updated`, ties included. */
  order: number;
  receivedBytes: number;
  /** Characters of its history, counted where finished tasks are aged out (ctx.retainFinished). */
  historyChars?: number;
  artifacts: ArtifactJson[];
  pushConfigs: PushConfig[];
  /** Configs set on the task so far: the harness's ids (`push-N`) are never repeated, deletes included. */
  pushConfigsMade: number;
  pushLost: boolean;
  pendingPush: Promise<unknown>;
  listeners: Set<Listener>;
}

/** Characters of history the finished tasks kept hold in all, where finished tasks are aged out (serve). */
export const RETAINED_HISTORY_CHARS = 16 * 1024 * 1024;

const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

function artifactFor(mediaType: string, i: number): ArtifactJson {
  const part: Record<string, unknown> = mediaType.startsWith('text/')
    ? { text: 'result', mediaType }
    : mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType.includes('+json;')
      ? { data: { result: 'ok' }, mediaType }
      : { raw: Buffer.from('result').toString('base64'), mediaType };
  return { artifactId: `artifact-${i}`, name: `output ${mediaType}`, parts: [part] };
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined);

/** A Part as the proto defines it (lf.a2a.v1.Part): its one content field, and the optional metadata, filename and media type. */
function partForHistory(p: unknown): Record<string, unknown> {
  const o = isObj(p) ? p : {};
  const content =
    typeof o.text === 'string'
      ? { text: o.text }
      : typeof o.raw === 'string'
        ? { raw: o.raw }
        : typeof o.url === 'string'
          ? { url: o.url }
          : o.data !== undefined
            ? { data: o.data }
            : { text: '' };
  return {
    ...content,
    ...(isObj(o.metadata) ? { metadata: o.metadata } : {}),
    ...(typeof o.filename === 'string' ? { filename: o.filename } : {}),
    ...(typeof o.mediaType === 'string' ? { mediaType: o.mediaType } : {}),
  };
}

/** A Message as the proto defines it (lf.a2a.v1.Message), of the fields the client sent. */
export function messageForHistory(m: Record<string, unknown>): Record<string, unknown> {
  const ext = strings(m.extensions);
  const refs = strings(m.referenceTaskIds);
  return {
    messageId: typeof m.messageId === 'string' ? m.messageId : '',
    role: m.role === 'ROLE_AGENT' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: (Array.isArray(m.parts) ? m.parts : []).map(partForHistory),
    ...(isObj(m.metadata) ? { metadata: m.metadata } : {}),
    ...(ext ? { extensions: ext } : {}),
    ...(refs ? { referenceTaskIds: refs } : {}),
  };
}

export class TaskRuntime {
  private readonly tasks = new Map<string, TaskState>();
  /** How each push config's deliveries are spelled: by the wire of the interface it was set through. */
  private readonly pushBodies = new WeakMap<PushConfig, PushBody>();
  private nextId = 1;
  private changes = 0;
  /** Finished tasks, oldest first, where the context retains only some (ctx.retainFinished), and the characters of their histories. */
  private readonly finished: string[] = [];
  private finishedChars = 0;
  /** Called with each task forgotten (ctx.retainFinished): whoever else holds it lets go. */
  onForget?: (t: TaskState) => void;
  /** The deliveries the description forges (`push.forge`), beside the genuine ones; none by default. */
  private readonly forger?: PushForger;
  /** Deliveries failed so far (runtime.pushFails counts the run's first ones). */
  private pushesFailed = 0;

  constructor(
    private readonly rt: PeerRuntime,
    private readonly ctx: PeerRunContext,
  ) {
    const forge = rt.push.forge ?? [];
    if (forge.length > 0)
      this.forger = new PushForger(forge, ctx, {
        mode: rt.push.delivery,
        tasks: () => this.all(),
        bodyOf: (c) => this.pushBodies.get(c as PushConfig) ?? ((e) => e),
      });
  }

  get(id: string): TaskState {
    const t = this.tasks.get(id);
    if (!t) throw new A2AError('taskNotFound', undefined, { taskId: id });
    return t;
  }

  has(id: string): boolean {
    return this.tasks.has(id);
  }

  all(): TaskState[] {
    return [...this.tasks.values()];
  }

  /** Every task, most recently updated first (spec §3.1.4). */
  byRecentUpdate(): TaskState[] {
    return this.all().sort((a, b) => b.order - a.order);
  }

  /** Mints a task in SUBMITTED. */
  mint(requestSeq: number, contextId: string | undefined, session = false, skill?: string): TaskState {
    const id = `task-${this.ctx.key}-${this.nextId++}`;
    const rec = this.ctx.ledger.mint(id, contextId ?? `ctx-${id}`, 'TASK_STATE_SUBMITTED', requestSeq);
    const t: TaskState = {
      rec,
      history: [],
      session,
      ...(skill ? { skill } : {}),
      updated: new Date().toISOString(),
      order: ++this.changes,
      receivedBytes: 0,
      artifacts: [],
      pushConfigs: [],
      pushConfigsMade: 0,
      pushLost: false,
      pendingPush: Promise.resolve(),
      listeners: new Set(),
    };
    this.tasks.set(id, t);
    return t;
  }

  /**
   * Keeps a message the client sent in the task's history, as a valid Message: the fields A2A v1.0
   * defines, each of its type (the parts as sent: `send` checked them); a field the client added
   * that the proto does not define is not echoed back (§5.7: recipients SHOULD ignore unrecognized
   * fields, and a history that carried them would not be a valid Message).
   */
  remember(t: TaskState, message: Record<string, unknown>): void {
    const entry = { ...messageForHistory(message), taskId: t.rec.id, contextId: t.rec.contextId };
    t.history.push(entry);
    // Where finished tasks are aged out (serve), what each holds is counted: a few large ones go before many small ones.
    if (this.ctx.retainFinished !== undefined) t.historyChars = (t.historyChars ?? 0) + JSON.stringify(entry).length;
  }

  /** Input arrived for the task: complete payload → work; a partial frame → wait for more. */
  acceptInput(t: TaskState, bytes: number, requestSeq: number): void {
    t.receivedBytes += bytes;
    const need = this.rt.input?.payloadBytes ?? 0;
    if (bytes > 0 && this.rt.input && t.receivedBytes < need) {
      if (t.rec.state !== 'TASK_STATE_INPUT_REQUIRED') this.transition(t, 'TASK_STATE_INPUT_REQUIRED', 'input', requestSeq);
      return;
    }
    if (t.rec.state === 'TASK_STATE_WORKING') return;
    this.transition(t, 'TASK_STATE_WORKING', 'input', requestSeq);
    this.ctx.later(this.rt.workMs, () => void this.complete(t));
  }

  /**
   * A push config, delivered in the shape of the wire it was set through (`pushBody`): v1.0's
   * StreamResponse, or v0.3's Task (v0.3.0 §9.5) for a config set through a v0.3 interface.
   */
  addPushConfig(
    t: TaskState,
    cfg: Omit<PushConfig, 'id' | 'taskId'> & { id?: string },
    via: 'inline' | 'create',
    requestSeq: number,
    pushBody: PushBody,
  ): PushConfig {
    // The client's own id where it chose one (a config of the same id is replaced); else one never given on this task before.
    let id = cfg.id;
    while (id === undefined || (cfg.id === undefined && t.pushConfigs.some((c) => c.id === id))) id = `push-${++t.pushConfigsMade}`;
    const full: PushConfig = { ...cfg, id, taskId: t.rec.id };
    t.pushConfigs = [...t.pushConfigs.filter((c) => c.id !== full.id), full];
    this.pushBodies.set(full, pushBody);
    // The URL as kept: a user and password in it, or a token in its query, never reach the report.
    this.ctx.transcript.record({ kind: 'push-register', taskId: t.rec.id, url: redactUrl(cfg.url), via, requestSeq });
    this.forger?.registered(t, full);
    if (this.rt.push.announceOnRegister && !isTerminal(t.rec.state)) t.pendingPush = Promise.all([t.pendingPush, this.push(t, full, t.rec.state)]);
    return full;
  }

  cancel(t: TaskState, requestSeq: number): void {
    if (isTerminal(t.rec.state)) throw new A2AError('taskNotCancelable', `task is ${t.rec.state}`, { taskId: t.rec.id });
    this.transition(t, 'TASK_STATE_CANCELED', 'canceled', requestSeq);
  }

  subscribe(t: TaskState, l: Listener): () => void {
    t.listeners.add(l);
    return () => t.listeners.delete(l);
  }

  /**
   * The Task as the wire shows it. `historyLength` (spec §3.2.4): unset, all; 0, none; n, the last n.
   * `artifacts`: false leaves them out (ListTasks without includeArtifacts).
   */
  toJson(t: TaskState, o: { historyLength?: number; artifacts?: boolean } = {}): Record<string, unknown> {
    const history = o.historyLength === undefined ? t.history : o.historyLength <= 0 ? [] : t.history.slice(-o.historyLength);
    return {
      id: t.rec.id,
      contextId: t.rec.contextId,
      status: { state: t.rec.state, timestamp: t.updated },
      ...(o.artifacts !== false && t.artifacts.length ? { artifacts: t.artifacts } : {}),
      ...(history.length ? { history } : {}),
    };
  }

  /** The runtime's outputs for a task: its skill's own, where the skill has any; else those of no skill. */
  outputsFor(t: TaskState): PeerRuntime['outputs'] {
    const own = t.skill ? this.rt.outputs.filter((o) => o.skill === t.skill) : [];
    return own.length ? own : this.rt.outputs.filter((o) => o.skill === undefined);
  }

  /** Outputs only emitted on SubscribeToTask. */
  subscribeOnlyArtifacts(): ArtifactJson[] {
    return this.rt.outputs.filter((o) => o.channel === 'subscribe-only').map((o, i) => artifactFor(o.mediaType, 100 + i));
  }

  /**
   * Waits until the task is terminal or interrupted (spec §3.2.2, blocking SendMessage), `capMs`, or
   * the run's end. A workflow that stays WORKING (docs/duties.md §7) answers once it shows its artifacts: it
   * waits for its caller from then on, and a blocking caller must get the task to act on it.
   */
  async settle(t: TaskState, capMs: number): Promise<void> {
    if (isTerminal(t.rec.state) || INTERRUPTED.has(t.rec.state)) return;
    if (this.rt.staysWorking && t.artifacts.length > 0) return;
    await new Promise<void>((resolve) => {
      let settled = false;
      const timer = setTimeout(done, Math.max(0, capMs));
      const off = this.subscribe(t, (e, state) => {
        if (state && (isTerminal(state) || INTERRUPTED.has(state))) done();
        else if (this.rt.staysWorking && e.artifactUpdate) done();
      });
      this.ctx.onEnd(done);
      function done() {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  }

  private async complete(t: TaskState): Promise<void> {
    await t.pendingPush;
    // A forged end comes while the real task works: forgeries due now are attempted first.
    await this.forger?.due(t);
    // The run may have ended while a push was in flight: its ledger is closed.
    if (this.ctx.transcript.isSealed || t.rec.state !== 'TASK_STATE_WORKING') return;
    // A stalled task (runtime.stalls) neither shows an artifact nor ends: it waits for a cancel.
    if (this.rt.stalls) return;
    // Only where a scenario asks for it does a lost callback leave the task WORKING; in the incident of
    // docs/duties.md §2 the task itself completes, and only the callback is lost.
    if (t.pushLost && this.rt.push.stallOnLostPush === true) return;
    const outputs = this.outputsFor(t).filter((o) => o.channel === 'task' || this.rt.pollFallback);
    t.artifacts = outputs.map((o, i) => artifactFor(o.mediaType, i + 1));
    for (const a of t.artifacts) this.emit(t, { artifactUpdate: { taskId: t.rec.id, contextId: t.rec.contextId, artifact: a, lastChunk: true } }, undefined);
    // A long workflow shows its artifacts as it goes and waits for its caller (docs/duties.md §7).
    if (this.rt.staysWorking) return;
    this.transition(t, 'TASK_STATE_COMPLETED', 'runtime');
  }

  private transition(t: TaskState, state: string, cause: 'runtime' | 'input' | 'canceled', requestSeq?: number): void {
    this.ctx.ledger.transition(t.rec.id, state, cause, requestSeq);
    t.updated = new Date().toISOString();
    t.order = ++this.changes;
    const status = { state, timestamp: t.updated };
    this.emit(t, { statusUpdate: { taskId: t.rec.id, contextId: t.rec.contextId, status } }, state);
    if (t.pushConfigs.length > 0) t.pendingPush = Promise.all([t.pendingPush, ...t.pushConfigs.map((c) => this.push(t, c, state))]);
    if (isTerminal(state) && this.ctx.retainFinished !== undefined) this.forgetBeyond(t.rec.id, this.ctx.retainFinished);
  }

  /**
   * Counts a task as finished and forgets the oldest finished ones past `keep`, or past
   * RETAINED_HISTORY_CHARS of history in all: their history, artifacts and push configs go.
   */
  private forgetBeyond(id: string, keep: number): void {
    this.finished.push(id);
    this.finishedChars += this.tasks.get(id)?.historyChars ?? 0;
    while (this.finished.length > keep || (this.finished.length > 1 && this.finishedChars > RETAINED_HISTORY_CHARS)) {
      const gone = this.finished.shift()!;
      const t = this.tasks.get(gone);
      this.finishedChars -= t?.historyChars ?? 0;
      this.tasks.delete(gone);
      if (t) this.onForget?.(t);
      this.ctx.ledger.forget(gone);
    }
  }

  private emit(t: TaskState, event: Record<string, unknown>, state: string | undefined): void {
    const closes = state !== undefined && (isTerminal(state) || INTERRUPTED.has(state));
    for (const l of [...t.listeners]) l(event, state, closes);
  }

  private async push(t: TaskState, c: PushConfig, state: string): Promise<void> {
    const payload = { statusUpdate: { taskId: t.rec.id, contextId: t.rec.contextId, status: { state, timestamp: new Date().toISOString() } } };
    const body = (this.pushBodies.get(c) ?? ((e) => e))(payload);
    const order = {
      mode: this.rt.push.delivery,
      url: c.url,
      taskId: t.rec.id,
      state,
      payload: body,
      ...(c.token ? { token: c.token } : {}),
      ...(c.authentication ? { authentication: c.authentication } : {}),
    };
    const fails = this.rt.pushFails;
    if (fails && (fails.deliveries === undefined || this.pushesFailed < fails.deliveries)) {
      this.pushesFailed++;
      this.failPush(order, fails.lateMs);
      return;
    }
    const attempt = await this.ctx.push(order);
    this.forger?.delivered(t, c, body, state);
    // The peer logs the attempt as dispatched either way; only the transcript knows it was lost.
    if (attempt.outcome !== 'delivered') t.pushLost = true;
  }

  /**
   * A delivery the dispatcher fails (runtime.pushFails): never posted, or posted `lateMs` later unless the client
   * has answered by then. The task's course does not wait for it, and its receiver's silence is not a lost push.
   */
  private failPush(order: Parameters<PeerRunContext['push']>[0], lateMs: number | undefined): void {
    const what = `push of ${order.state} for task ${order.taskId}`;
    const note = (message: string) => {
      if (!this.ctx.transcript.isSealed) this.ctx.transcript.record({ kind: 'harness', level: 'info', message: `scripted: ${message} (runtime.pushFails)` });
    };
    if (lateMs === undefined) {
      note(`${what} withheld, never posted`);
      return;
    }
    note(`${what} held ${lateMs} ms`);
    this.ctx.later(lateMs, () => {
      if (this.ctx.transcript.events.some((e) => e.kind === 'decision')) note(`${what} held ${lateMs} ms not posted: the client had answered`);
      // Off the task's course: a dispatcher fault here is the harness's, said on the record, never an unhandled rejection.
      else
        this.ctx.push(order).catch((err: unknown) => {
          if (!this.ctx.transcript.isSealed)
            this.ctx.transcript.record({ kind: 'harness', level: 'error', message: `${what}: the held delivery could not be dispatched: ${String(err)}` });
        });
    });
  }
}
