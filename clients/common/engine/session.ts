/**
 * What the phases of one run share (./handshake.ts, ./send.ts, ./follow.ts, ./outputs.ts): the
 * transport, the negotiated plan, the task ids, the push receiver and the deadline budget, with the
 * few things every phase does with them: call and cancel, build a message, read an artifact's media
 * types, and report.
 */
import type { ClientReport, ErrorClass, RunRequest } from '../../../harness/core/protocol/types.js';
import { sameType, type Mistakes, type Plan } from '../negotiate.js';
import type { PushReceiver } from '../push-receiver.js';
import { type A2ATransport, newMessageId, pause, type RpcOutcome } from '../transport.js';

export const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED']);
/** States at which a task waits on its client: a stream ends there too (the task is not over, but it is the client's turn). */
export const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);
export const POLL_MS = 50;
/** Time a call sent again after a Retry-After needs besides the wait: its answer, and following the task it mints. */
const RETRY_ROOM_MS = 2000;
/** Time kept back from the deadline to cancel and report. */
const MARGIN_MS = 800;
/** JSON-RPC UnsupportedOperationError (spec §3.3.4: what a peer without streaming answers to a stream). */
export const UNSUPPORTED_OPERATION = -32004;

/** What is left of a run's deadline once the time to cancel and report is kept back. */
export const budgetLeft = (run: { req: RunRequest; started: number }): number => run.req.deadlineMs - MARGIN_MS - (Date.now() - run.started);

/** Whether a wait an agent asked for (Retry-After) leaves the run room to send again and follow what that call starts. */
export const waitFits = (run: { req: RunRequest; started: number }, ms: number): boolean => ms + RETRY_ROOM_MS <= budgetLeft(run);

/** Resolves after `ms`, or at once when `signal` aborts (the transport's own pause). */
export const sleep = pause;

export function describe(o: Exclude<RpcOutcome, { ok: true }>): string {
  if (o.kind === 'http') return `HTTP ${o.status}${o.challenge ? ` (WWW-Authenticate: ${o.challenge.slice(0, 200)})` : ''}`;
  if (o.kind === 'cut')
    return o.status === 0
      ? `the connection closed before any answer (${o.code}: ${o.message})`
      : `HTTP ${o.status}, then the connection closed in the middle of the answer (${o.code}: ${o.message})`;
  return o.kind === 'rpc' ? `JSON-RPC ${o.code} ${o.message}` : `${o.code}: ${o.message}`;
}

export interface TaskJson {
  id: string;
  status?: { state?: string };
  artifacts?: Array<{ parts?: Array<{ mediaType?: string }> }>;
  history?: Array<{ messageId?: unknown }>;
}

export const taskOf = (r: Record<string, unknown>): TaskJson | undefined => {
  const t = (r.task ?? r) as TaskJson;
  return typeof t?.id === 'string' ? t : undefined;
};

/** A run's decline before any plan is followed: nothing was degraded. */
export const rejected = (taskIds: string[], errorClass: ErrorClass, notes: string): ClientReport => ({
  decision: 'rejected',
  errorClass,
  degradations: [],
  taskIds,
  notes,
});

/** What a run has before its handshake: the request, the transport, and the ids of the tasks it causes (every one is reported). */
export interface RunBase {
  req: RunRequest;
  signal: AbortSignal;
  mistakes: Mistakes;
  t: A2ATransport;
  taskIds: string[];
  /** When the run began: the deadline budget counts from here. */
  started: number;
}

/** What the handshake hands on: the plan to follow, and how the RPC origin was probed. */
export interface Handshake {
  plan: Extract<Plan, { action: 'proceed' }>;
  probeNote: string;
}

export type FirstSend = { message: ReturnType<Session['message']>; configuration: Record<string, unknown> };

/** The task the first message minted, and how it came to be followed where its first answer did not name it whole. */
export interface Started {
  task: TaskJson;
  params: FirstSend;
  note: string;
  /** A task its stream left before it ended (closed early, or cut): followed as a task SendMessage minted is. */
  streamLeft: boolean;
}

export class Session implements RunBase {
  readonly req: RunRequest;
  readonly signal: AbortSignal;
  readonly mistakes: Mistakes;
  readonly t: A2ATransport;
  readonly taskIds: string[];
  readonly started: number;
  readonly plan: Handshake['plan'];
  readonly probeNote: string;
  readonly rpcUrl: string;
  /** The extension the plan opts into, on every request of this task (A2A-Extensions, spec §3.2.6). */
  readonly extHeaders: Record<string, string>;
  readonly degradations: string[];
  readonly configuration: Record<string, unknown>;
  /** The input of the first message: text, one complete payload, or the first live frame. */
  readonly firstParts: unknown[];
  receiver: PushReceiver | undefined;
  /** How the task came to be followed, where its first answer did not name it whole (./send.ts). */
  followed = '';

  constructor(base: RunBase, shaken: Handshake) {
    this.req = base.req;
    this.signal = base.signal;
    this.mistakes = base.mistakes;
    this.t = base.t;
    this.taskIds = base.taskIds;
    this.started = base.started;
    this.plan = shaken.plan;
    this.probeNote = shaken.probeNote;
    this.rpcUrl = this.plan.rpcUrl;
    this.extHeaders = this.plan.optIn ? { 'A2A-Extensions': this.plan.optIn } : {};
    // Build the input.
    const { input } = this.plan;
    this.firstParts =
      input === 'text'
        ? [{ text: this.req.intent.input.text ?? 'hello', mediaType: this.req.intent.input.mediaType }]
        : [this.partOf(input === 'frames' ? this.frameBytes : this.frames * this.frameBytes)];
    this.configuration = { acceptedOutputModes: this.plan.acceptedOutputModes, returnImmediately: true };
    this.degradations = [...this.plan.degradations];
  }

  budgetLeft(): number {
    return budgetLeft(this);
  }

  /**
   * A call on the interface the plan chose. One refused for now with the wait named (503 or 429 with
   * Retry-After) is sent again after that wait by the transport, on every method and binding, while
   * the run has room (`waitFits`). A client that retries blindly repeats any failing call at once instead.
   */
  async call(method: string, params: unknown): Promise<RpcOutcome> {
    const id = Math.floor(Math.random() * 1e9);
    const send = () => this.t.rpc(this.rpcUrl, method, params, { id, headers: this.extHeaders });
    const out = await send();
    if (!out.ok && this.mistakes.retriesBlindly && !this.signal.aborted) return send();
    return out;
  }

  async cancel(id: string): Promise<void> {
    if (this.mistakes.neverCancels) return;
    await this.t.rpc(this.rpcUrl, 'CancelTask', { id }, { headers: this.extHeaders });
  }

  /** What the notes say of a task abandoned: canceled, or left as is by a client that never cancels. */
  get canceledOrLeft(): string {
    return this.mistakes.neverCancels ? 'left as is' : 'canceled';
  }

  /** The bytes of one live frame. */
  get frameBytes(): number {
    return this.req.intent.input.frameBytes ?? 0;
  }

  /** How many live frames the input has. */
  get frames(): number {
    return this.req.intent.input.frames ?? 1;
  }

  partOf(bytes: number) {
    return { raw: Buffer.alloc(bytes, 7).toString('base64'), mediaType: this.req.intent.input.mediaType };
  }

  message(parts: unknown[], taskId?: string) {
    return {
      messageId: newMessageId(),
      role: 'ROLE_USER',
      parts,
      ...(taskId ? { taskId } : {}),
      ...(this.plan.optIn ? { extensions: [this.plan.optIn] } : {}),
      // The skill the plan targets, by the convention of docs/extensions.md (v1.0 has no skill selector).
      ...(this.plan.skillId && !taskId ? { metadata: { skillId: this.plan.skillId } } : {}),
    };
  }

  /** Artifact parts of a task this client cannot decode (its registry, parameters significant). */
  undecodable(task: TaskJson | undefined): string[] {
    const { profile } = this.req;
    return !profile.consumesArtifacts
      ? []
      : (task?.artifacts ?? [])
          .flatMap((a) => (a.parts ?? []).map((p) => p.mediaType ?? ''))
          .filter((mt) => mt !== '' && !profile.mediaTypes.some((r) => sameType(r, mt, this.mistakes.looseMediaMatch === true)));
  }

  report(notes: string): ClientReport {
    return {
      decision: this.plan.optIn ? 'escalated' : this.degradations.length ? 'downgraded' : 'proceeded',
      degradations: this.degradations,
      taskIds: this.taskIds,
      notes: [this.probeNote, this.plan.notes, this.followed, notes].filter(Boolean).join('; '),
    };
  }

  /** The next event of a stream, or 'budget' when the deadline budget runs out first: an open stream that sends nothing more must not outlast it. */
  async nextWithin<T, R>(it: AsyncGenerator<T, R>): Promise<IteratorResult<T, R> | 'budget'> {
    const pending = it.next();
    // The budget's timer is cleared when the event wins, so a finished run leaves no timer behind.
    const lost = new AbortController();
    const raced = await Promise.race([
      pending,
      sleep(Math.max(0, this.budgetLeft()), AbortSignal.any([this.signal, lost.signal])).then(() => 'budget' as const),
    ]);
    lost.abort();
    if (raced === 'budget') pending.catch(() => {});
    return raced;
  }
}
