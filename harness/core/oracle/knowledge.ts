/**
 * What the client genuinely knew of its tasks when it acted (docs/rules.md, principle 6;
 * docs/architecture.md): every acting call is read against what the client genuinely knew when it
 * made it. Helpers only: they query the wire
 * and the ledger, and decide nothing.
 *
 * A *word* of a task is genuine news of where it stands: an answer to a call of the client's that
 * carries the task's state (never the answer to its own CancelTask: that is its act, not news), a
 * stream event of the task, a genuine push of it that reached the receiver. A *false alarm* is what
 * a careless client may take for news of the task's end and is not: a forged delivery that reached
 * its receiver, a refusal that asked it to wait (429 or 503 with Retry-After, gRPC's UNAVAILABLE with
 * `retry-after`), a stream the peer ended before the task did (§3.5.2: "The task lifecycle is
 * independent of any individual stream's lifecycle"), an answer the connection lost mid-way (the agent
 * may have acted on the request: §3.3.1 makes Send Message only MAY-idempotent). An act (a cancel, a second task for the intent)
 * is tied to a false alarm when the alarm is what the client heard after its last word of the task.
 *
 * Order is by time on the run's clock: a push's connection was up (`openT`) before its outcome was
 * recorded, and a receiver may wake its client in between, so a push and an act are compared by when
 * each happened, whichever was recorded first. A push is not news before its connection was up: on a
 * loaded machine its handshake can take a while after the post began (`sentT`), and an answer the
 * client had meanwhile came before it (found under load: a GetTask answered while a forgery's
 * handshake was under way was read as news after it).
 */
import type { HttpEvent, PushAttemptEvent, StreamEvent, TaskRecord } from '../transcript.js';
import { isTerminal } from '../transcript.js';
import { cutAnswer, failed, https, reached, probeTasks, pushAttempts, rpcCalls, startAttempts, stateAt, type GradeInput } from './evidence.js';

/** Genuine news of a task: when it reached the client, and what it said. */
export interface Word {
  seq: number;
  t: number;
  fact: string;
  state?: string;
}

export type AlarmKind = 'forged delivery' | 'transient refusal' | 'early stream end' | 'lost answer';

/** Something that is not news of a task's end, and when the client met it. */
export interface Alarm {
  kind: AlarmKind;
  /** The event that shows it (a stream's end: the stream's request). */
  seq: number;
  t: number;
  /** The last record at or before which it happened (a stream's end: its last event). */
  after: number;
  fact: string;
}

const STREAMS = new Set(['SendStreamingMessage', 'SubscribeToTask']);
/** How the peers mark a stream they ended early (runtime.streamEnds) or cut (runtime.drop): the request's note. */
export const STREAM_CUT = /^scripted: (the stream ended after|connection dropped)/;
/** A stream the peer reset half-way through an event (runtime.streamEnds.midEvent): open until then. */
const RESET_MID_EVENT = /^scripted: the stream ended after \d+ events, reset mid-way/;

/** An answer the peer cut mid-way (runtime.drop): the client did not get it whole (evidence.ts). */
export { cutAnswer };

/**
 * The earliest the receiver can have had a push: when its connection was up (before that, not a byte
 * of it had left the peer). Older records have only when the post began, or its outcome.
 */
export const reachableAt = (a: PushAttemptEvent) => a.openT ?? a.sentT ?? a.t;

/** Whether a delivery reached the receiver's handler (evidence.ts, where stateSeen reads it too). */
export { reached };

/**
 * The wait a refusal asked for, in ms: a 429 or 503 (gRPC's UNAVAILABLE keeps the peer's HTTP status
 * on the event) with a Retry-After in delta-seconds shorter than the scenario's deadline, so the client
 * could have waited it out. Undefined for any other answer.
 */
export function askedToWait(x: GradeInput, e: HttpEvent): number | undefined {
  if (e.status !== 429 && e.status !== 503) return undefined;
  const v = e.response?.retryAfter?.trim();
  if (!v || !/^\d+$/.test(v)) return undefined;
  const ms = Number(v) * 1000;
  return ms < x.scenario.deadlineMs ? ms : undefined;
}

/**
 * Whether a stream event reached the client. The peer records each event as it writes it; a stream the
 * peer cut right after its headers (runtime.drop, `afterBytes: 0`) carried none of them.
 */
export function deliveredEvent(x: GradeInput, e: StreamEvent): boolean {
  const req = x.events.find((r): r is HttpEvent => r.kind === 'http' && r.seq === e.requestSeq);
  return !/^scripted: connection dropped after the headers and 0 bytes/.test(req?.note ?? '');
}

/** The genuine words the client had of a task before an event of its (by sequence, and for pushes by time), oldest first. */
export function wordsOf(x: GradeInput, taskId: string, before: { seq: number; t: number }): Word[] {
  const out: Word[] = [];
  for (const e of x.events) {
    if (e.kind === 'http' && e.seq < before.seq && !failed(e) && e.taskId === taskId && e.taskState !== undefined && e.rpc?.method !== 'CancelTask')
      out.push({ seq: e.seq, t: e.t, state: e.taskState, fact: `${e.rpc?.method ?? e.method} answered with the task ${e.taskState}` });
    else if (e.kind === 'sse' && e.seq < before.seq && e.taskId === taskId && deliveredEvent(x, e))
      out.push({ seq: e.seq, t: e.t, ...(e.state ? { state: e.state } : {}), fact: `a stream event of the task${e.state ? ` in ${e.state}` : ''}` });
    else if (e.kind === 'push-attempt' && e.genuine !== false && reached(e) && e.taskId === taskId && reachableAt(e) <= before.t)
      out.push({ seq: e.seq, t: reachableAt(e), state: e.state, fact: `a genuine push of the task in ${e.state}` });
  }
  return out.sort((a, b) => a.t - b.t);
}

/** Every false alarm of the run, by time. */
export function alarms(x: GradeInput): Alarm[] {
  const out: Alarm[] = [];
  for (const a of pushAttempts(x))
    if (a.genuine === false && reached(a))
      out.push({
        kind: 'forged delivery',
        seq: a.seq,
        t: reachableAt(a),
        after: a.seq,
        fact: `a forged push (${a.forgery ?? 'forged'}) of ${a.state} for task ${a.taskId}`,
      });
  for (const e of https(x)) {
    // A cancel refused for now, or its answer lost, says nothing of the task: the cancel was asked for before it.
    if (e.rpc?.method === 'CancelTask') continue;
    const wait = askedToWait(x, e);
    if (wait !== undefined)
      out.push({
        kind: 'transient refusal',
        seq: e.seq,
        t: e.t,
        after: e.seq,
        fact: `${e.rpc?.method ?? `${e.method} ${e.path}`} answered ${e.status}${e.grpc ? ` (gRPC ${e.grpc.status})` : ''} with Retry-After: ${wait / 1000}`,
      });
    if (e.rpc && !STREAMS.has(e.rpc.method) && cutAnswer(e)) {
      // The answer was lost after the agent acted on the request: what it did (a task minted) came first.
      const acted = x.events.filter((m) => m.kind === 'task' && m.requestSeq === e.seq).at(-1) ?? e;
      out.push({
        kind: 'lost answer',
        seq: e.seq,
        t: acted.t,
        after: acted.seq,
        fact: `the answer to ${e.rpc.method} #${e.seq} ${e.note!.replace(/^scripted: /, '')}`,
      });
    }
    if (e.rpc && STREAMS.has(e.rpc.method) && STREAM_CUT.test(e.note ?? '')) {
      // The client learns of the end after the stream's last event (none delivered: after what the agent did with the request).
      const last =
        x.events.filter((s): s is StreamEvent => s.kind === 'sse' && s.requestSeq === e.seq && deliveredEvent(x, s)).at(-1) ??
        x.events.filter((m) => m.kind === 'task' && m.requestSeq === e.seq).at(-1);
      // A stream reset mid-event stays open after its last whole event, until the next one begins: the end comes then.
      const resetAt = RESET_MID_EVENT.test(e.note ?? '') ? e.streamEnd?.t : undefined;
      const before = resetAt === undefined ? undefined : x.events.filter((m) => m.t <= resetAt).at(-1);
      out.push({
        kind: 'early stream end',
        seq: e.seq,
        t: resetAt ?? last?.t ?? e.t,
        after: before?.seq ?? last?.seq ?? e.seq,
        fact: `the ${e.rpc.method} stream #${e.seq} ${e.note!.replace(/^scripted: /, '')}`,
      });
    }
  }
  return out.sort((a, b) => a.t - b.t);
}

/** States that tell a client its task needs it, or is over: genuine reasons to act on a task. */
const DECISIVE = (state: string | undefined) => isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';

/**
 * The false alarm an act on a task is tied to: the last one the client met between the task's minting
 * and the act, with no genuine word since that gave it a reason to act (the task ended, or waits for
 * input). A genuine "still working" in between is no such reason: a client that polled once more and
 * then acted on the forgery its receiver had taken meanwhile acted on the forgery all the same.
 */
export function tiedAlarm(x: GradeInput, taskId: string, act: HttpEvent, all: Alarm[] = alarms(x)): Alarm | undefined {
  const mint = x.events.find((e) => e.kind === 'task' && e.taskId === taskId && e.cause === 'minted');
  const words = wordsOf(x, taskId, act);
  // At one moment, the later record is the later news (a stream's last event, then its end).
  const since = (a: Alarm) => (w: Word) => w.t > a.t || (w.t === a.t && w.seq > a.after);
  return all.filter((a) => a.seq !== act.seq && a.t <= act.t && (!mint || a.t >= mint.t) && !words.some((w) => since(a)(w) && DECISIVE(w.state))).at(-1);
}

/**
 * Healthy: the ledger had the task submitted or working just before `seq`, on a runtime that ends its
 * tasks on its own (not one whose workflow stays working until its client acts, docs/duties.md §7). A task
 * waiting for input, or ended, is not.
 */
export function healthyAt(x: GradeInput, taskId: string, seq: number): boolean {
  const st = stateAt(x, taskId, seq);
  const rt = x.scenario.peer.runtime;
  // A task that stays working, or stalls, is one the runtime would not have ended: no cancel of it destroys work.
  return (st === 'TASK_STATE_SUBMITTED' || st === 'TASK_STATE_WORKING') && rt.staysWorking !== true && rt.stalls !== true;
}

/** The client's cancel of a task, where it took effect: the request, and the ledger's event. */
export function ownCancel(x: GradeInput, taskId: string): HttpEvent | undefined {
  const ev = x.events.find((e) => e.kind === 'task' && e.taskId === taskId && e.cause === 'canceled');
  const seq = ev?.kind === 'task' ? ev.requestSeq : undefined;
  return seq === undefined ? undefined : https(x).find((e) => e.seq === seq);
}

/** A cancel that destroyed work: a healthy task canceled by the client with a false alarm for its last news. */
export interface DestroyingCancel {
  cancel: HttpEvent;
  task: TaskRecord;
  alarm: Alarm;
}

export function cancelsOnAlarms(x: GradeInput, all: Alarm[] = alarms(x)): DestroyingCancel[] {
  if (all.length === 0) return [];
  const out: DestroyingCancel[] = [];
  for (const task of x.tasks) {
    const cancel = ownCancel(x, task.id);
    if (!cancel || !healthyAt(x, task.id, cancel.seq)) continue;
    const alarm = tiedAlarm(x, task.id, cancel, all);
    if (alarm) out.push({ cancel, task, alarm });
  }
  return out;
}

/** A second task for the intent: started after a false alarm while an earlier task was healthy, its end unknown to the client. */
export interface SecondTask {
  start: HttpEvent;
  task: TaskRecord;
  earlier: TaskRecord;
  alarm: Alarm;
}

/** The task a start attempt minted, from the ledger. */
export function mintedBy(x: GradeInput, e: HttpEvent): TaskRecord | undefined {
  const mint = x.events.find((m) => m.kind === 'task' && m.cause === 'minted' && m.requestSeq === e.seq);
  return mint ? x.tasks.find((t) => t.mintedSeq === mint.seq) : undefined;
}

export function secondTasks(x: GradeInput, all: Alarm[] = alarms(x)): SecondTask[] {
  if (all.length === 0) return [];
  // A probe (a task the client minted and canceled before starting another) is no earlier attempt at the intent,
  // unless the cancel was itself an act on a false alarm: a task given up on an alarm and started again is no probe.
  const cancels = new Set(cancelsOnAlarms(x, all).map((c) => c.task.id));
  const probes = new Set(
    probeTasks(x)
      .filter((t) => !cancels.has(t.id))
      .map((t) => t.id),
  );
  const started = startAttempts(x)
    .map((e) => ({ e, task: mintedBy(x, e) }))
    .filter((s): s is { e: HttpEvent; task: TaskRecord } => !!s.task);
  const out: SecondTask[] = [];
  for (const [i, s] of started.entries()) {
    for (const { task: earlier } of started.slice(0, i).filter((p) => !probes.has(p.task.id))) {
      // The earlier task's end, as far as the client genuinely knew: none. Its state then: healthy, or canceled by
      // the client while it was (the work destroyed, then started again).
      if (wordsOf(x, earlier.id, s.e).some((w) => isTerminal(w.state))) continue;
      const cancel = ownCancel(x, earlier.id);
      const at = cancel && cancel.seq < s.e.seq ? cancel.seq : s.e.seq;
      if (!healthyAt(x, earlier.id, at)) continue;
      const alarm = tiedAlarm(x, earlier.id, s.e, all);
      if (alarm) {
        out.push({ start: s.e, task: s.task, earlier, alarm });
        break;
      }
    }
  }
  return out;
}

/** A request whose params name the task (GetTask, CancelTask, SubscribeToTask, a message to it, push configs): the client had its id. */
export function paramsName(e: HttpEvent, taskId: string): boolean {
  const p = (e.rpc?.params ?? {}) as { id?: unknown; taskId?: unknown; message?: { taskId?: unknown } };
  return p.id === taskId || p.taskId === taskId || p.message?.taskId === taskId;
}

/** Calls about a task: its params name it, or the peer tied the call to it. */
export const namesTask = (e: HttpEvent, taskId: string): boolean => e.taskId === taskId || paramsName(e, taskId);

/** The client's calls about a task, after `seq`. */
export const callsAbout = (x: GradeInput, taskId: string, after: number) => rpcCalls(x).filter((e) => e.seq > after && namesTask(e, taskId));
