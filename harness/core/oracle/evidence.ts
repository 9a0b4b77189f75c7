/**
 * What the oracle reads: the scenario's ground truth, the profile and intent, the wire, the ledger,
 * and (kept apart) the client's claims. Helpers here only query the wire; they decide nothing.
 */
import { JWKS_PATH, type CardSignal, type CardSigning } from '../scenario/card.js';
import type { PeerRuntime } from '../scenario/runtime.js';
import type { Scenario } from '../scenario/scenario.js';
import type { DecisionEvent, HttpEvent, PushAttemptEvent, PushRegisterEvent, TaskRecord, TlsEvent, WireEvent } from '../transcript.js';
import { isTerminal } from '../transcript.js';
import { absentEvidence, ledgerEvidence, wireEvidence, type EvidenceRef } from '../verdict.js';
import { readCard, type CardView } from '../protocol/card-view.js';
import type { ClientProfile, ClientReport, TaskIntent } from '../protocol/types.js';

/** What the harness knows and the client does not: the peer's real runtime and the scenario's signals. */
export interface Truth {
  factory: string;
  runtime: PeerRuntime;
  signals: CardSignal[];
  /** How the peer signed its card, where it did. */
  signing?: CardSigning;
  /** Whether the run's profile trusts the JWKS where the vendor publishes its keys (`{{vendorJwksUrl}}`). */
  vendorKeysTrusted?: boolean;
}

/** Everything a rule's `applies()` may read: no wire, no claims. */
export interface Situation {
  truth: Truth;
  /** The card as served, read through CardView. */
  card: CardView;
  profile: ClientProfile;
  intent: TaskIntent;
}

/** How the client's run ended, as the runner saw it. */
export type RunOutcome = { kind: 'reported' } | { kind: 'timeout'; deadlineMs: number } | { kind: 'crashed'; reason: string };

export interface GradeInput {
  scenario: Scenario;
  /** The card as served in this run (placeholders filled). */
  card: Record<string, unknown>;
  profile: ClientProfile;
  intent: TaskIntent;
  events: WireEvent[];
  tasks: TaskRecord[];
  claims: ClientReport | null;
  outcome: RunOutcome;
}

/** Whether a scenario's profile trusts the vendor's JWKS (its trust anchor for signed cards). */
export const vendorKeysTrusted = (constraints: Scenario['profileConstraints']): boolean => (constraints.trustedJwks ?? []).includes('{{vendorJwksUrl}}');

export function situationOf(x: GradeInput): Situation {
  return {
    truth: {
      factory: x.scenario.peer.factory,
      runtime: x.scenario.peer.runtime,
      signals: x.scenario.peer.signals,
      ...(x.scenario.peer.signing ? { signing: x.scenario.peer.signing } : {}),
      vendorKeysTrusted: vendorKeysTrusted(x.scenario.profileConstraints),
    },
    card: readCard(x.card),
    profile: x.profile,
    intent: x.intent,
  };
}

export const https = (x: GradeInput) => x.events.filter((e): e is HttpEvent => e.kind === 'http');
export const rpcCalls = (x: GradeInput, method?: string) => https(x).filter((e) => e.rpc && (method === undefined || e.rpc.method === method));
export const pushRegistrations = (x: GradeInput) => x.events.filter((e): e is PushRegisterEvent => e.kind === 'push-register');
export const pushAttempts = (x: GradeInput) => x.events.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');
export const tlsEvents = (x: GradeInput) => x.events.filter((e): e is TlsEvent => e.kind === 'tls');

/** A request failed if the HTTP status is not 2xx or the JSON-RPC answer was an error. */
export const failed = (e: HttpEvent) => (e.status !== undefined && (e.status < 200 || e.status > 299)) || !!e.rpcError;

/** The client's report, where it made one (not a timeout or a crash). */
export const decisionOf = (x: GradeInput) => x.events.find((e): e is DecisionEvent => e.kind === 'decision' && e.outcome === 'reported');

/** The sequence number at which the runner had the client's answer; everything before it came first. */
export function decisionSeq(x: GradeInput): number {
  const d = x.events.find((e): e is DecisionEvent => e.kind === 'decision');
  return d ? d.seq : Number.POSITIVE_INFINITY;
}

const CARD_PATH = /\/\.well-known\/(agent-card|agent)\.json$/;

/** GETs of an Agent Card answered 2xx (or 304, a cached copy still good) before the decision: the client could have read the card. */
export function cardReads(x: GradeInput): HttpEvent[] {
  const before = decisionSeq(x);
  return https(x).filter(
    (e) => e.method === 'GET' && CARD_PATH.test(e.path.split('?')[0]!) && (e.status === 304 || (!failed(e) && e.status !== undefined)) && e.seq < before,
  );
}

/** Evidence that the card was read (the first read), or that it never was. */
export function cardReadEvidence(x: GradeInput): EvidenceRef[] {
  const r = cardReads(x)[0];
  if (r) return [wireEvidence(r.seq, `card read: GET ${r.path} → ${r.status}`)];
  return [absentEvidence('wire', `no successful GET of the card before the decision, in ${x.events.length} recorded event(s)`)];
}

/**
 * The delivery reached the receiver's handler: it answered (any status: a receiver may act on a
 * delivery and answer 500), held the request past the dispatcher's wait, or answered unreadably. A
 * TLS or connection failure never reached it; nor, for a forged sender, did a post whose connection
 * closed with no answer (a receiver refusing the sender's certificate under TLS 1.3 closes so, after
 * the request is out). A genuine post closed so may have been read: news of the task, in the client's
 * favour, as PUSH-RECEIPT grades the missing answer.
 */
export const reached = (a: PushAttemptEvent) =>
  a.outcome === 'delivered' || a.outcome === 'http-error' || (a.outcome === 'unanswered' && (a.unanswered !== 'closed' || a.genuine !== false));

/**
 * The first event at which the client saw one of its tasks in a state `wanted` accepts: a 2xx answer
 * carrying it, a stream event, or a genuine push delivered to the client's receiver.
 */
export function stateSeen(
  x: GradeInput,
  wanted: (state: string | undefined, taskId: string | undefined) => boolean,
): { seq: number; fact: string } | undefined {
  for (const e of x.events) {
    if (e.kind === 'http' && !failed(e) && e.taskState !== undefined && wanted(e.taskState, e.taskId))
      return { seq: e.seq, fact: `${e.rpc?.method ?? e.method} answered with task ${e.taskId} in ${e.taskState}` };
    if (e.kind === 'sse' && wanted(e.state, e.taskId)) return { seq: e.seq, fact: `an event of task ${e.taskId} in ${e.state}` };
    // A forged delivery tells the client nothing true (peers/runtime/forge.ts): PUSH-AUTHENTICITY grades what it did with one.
    // A receiver that answered at all had the body (one that answers 500 after taking it: PUSH-RECEIPT grades the status),
    // and one that took the request and never answered may have read it (PUSH-RECEIPT grades the silence).
    if (e.kind === 'push-attempt' && reached(e) && e.genuine !== false && wanted(e.state, e.taskId))
      return {
        seq: e.seq,
        fact: `a push of task ${e.taskId} in ${e.state} delivered${
          e.status !== undefined && e.status >= 300 ? ` (answered ${e.status})` : e.outcome === 'unanswered' ? ' (never answered)' : ''
        }`,
      };
  }
  return undefined;
}

/**
 * A CancelTask answered with TaskNotCancelableError (-32002) while the ledger had the task in a
 * terminal state: the client was told the task had ended (A2A v1.0.1 §3.3.2: "not in a cancelable
 * state (e.g., it has already reached a terminal state …)"), so it has seen that the task ended
 * (which end, the error does not say: terminalSeenAt counts it, stateSeen does not). A task that ended between the client's last read and its cancel (a probe on a loaded
 * machine) is then not one the client lost track of.
 */
function cancelRefusedAsTerminal(x: GradeInput, e: HttpEvent): boolean {
  if (e.rpc?.method !== 'CancelTask' || e.rpcError?.code !== -32002 || !e.taskId) return false;
  return endedWhenHandled(x, e);
}

/**
 * A SubscribeToTask answered with UnsupportedOperationError (-32004) while the ledger had the task in
 * a terminal state: the error that A2A v1.0.1 §9.4.6 gives a subscription to an ended task ("Returns
 * `UnsupportedOperationError` if the task is in a terminal state"), so the client was told it ended.
 * A subscription refused for another reason (the service's, an internal error) says nothing of the task.
 */
function subscribeRefusedAsTerminal(x: GradeInput, e: HttpEvent): boolean {
  if (e.rpc?.method !== 'SubscribeToTask' || e.rpcError?.code !== -32004 || !e.taskId) return false;
  return endedWhenHandled(x, e);
}

/** Whether the task had ended when the peer handled the call (its record, or the ledger just before it). */
function endedWhenHandled(x: GradeInput, e: HttpEvent): boolean {
  if (!e.taskId) return false;
  // What the peer found when it handled the call: under load the task can end between the request's record and its
  // handling, so the ledger's state before the request's sequence number may still be the working one.
  if (isTerminal(e.taskState)) return true;
  const before = stateAt(x, e.taskId, e.seq);
  return !!before && isTerminal(before);
}

/** Where the task stood in the ledger just before `seq`. */
export function stateAt(x: GradeInput, taskId: string, seq: number): string | undefined {
  return x.tasks
    .find((t) => t.id === taskId)
    ?.history.filter((h) => h.seq < seq)
    .at(-1)?.state;
}

/** The client's first CancelTask of this task refused because the task had already ended (above), if any. */
export const refusedCancel = (x: GradeInput, taskId: string): HttpEvent | undefined =>
  https(x).find((e) => e.taskId === taskId && cancelRefusedAsTerminal(x, e));

/** The sequence number at which the client first saw a terminal state of this task, if it did. */
export function terminalSeenAt(x: GradeInput, taskId: string): number | undefined {
  // A refused cancel, or a subscription refused as the task's end, says the task has ended, not in which state: they count here, where any end will do.
  const told = [
    stateSeen(x, (state, id) => id === taskId && isTerminal(state))?.seq,
    refusedCancel(x, taskId)?.seq,
    https(x).find((e) => e.taskId === taskId && subscribeRefusedAsTerminal(x, e))?.seq,
  ].filter((n): n is number => n !== undefined);
  return told.length ? Math.min(...told) : undefined;
}

/** Tasks the client itself canceled (a CancelTask it sent, answered with the canceled task). */
export function canceledByClient(t: TaskRecord, x: GradeInput): boolean {
  return x.events.some((e) => e.kind === 'task' && e.taskId === t.id && e.cause === 'canceled');
}

/** GETs of a JWKS (`JWKS_PATH`) answered 2xx, in order: where the client looked for keys. */
export const jwksFetches = (x: GradeInput) =>
  https(x).filter((e) => e.method === 'GET' && e.path.split('?')[0]!.endsWith(JWKS_PATH) && !failed(e) && e.status !== undefined);

/** The first request that could mint a task (SendMessage or SendStreamingMessage), if any. */
export const firstSend = (x: GradeInput) => rpcCalls(x).find((e) => e.rpc!.method === 'SendMessage' || e.rpc!.method === 'SendStreamingMessage');

/** A request opted into an extension: by the `A2A-Extensions` header or `Message.extensions` (spec §4.6.1). */
export function optsInto(e: HttpEvent, uri: string): boolean {
  const header = (e.headers.a2aExtensions ?? '').split(',').map((s) => s.trim());
  return header.includes(uri) || (e.messageExtensions ?? []).includes(uri);
}

/** An answer the peer cut on purpose (runtime.drop, runtime.reset): the client got part of it or none, never the whole. */
export const cutAnswer = (e: HttpEvent) => /^scripted: connection dropped/.test(e.note ?? '');

/** An answer that granted its call and that the peer did not cut: what it says reached the client. */
export const grantedWhole = (e: HttpEvent) => !failed(e) && !cutAnswer(e);

/** SendMessage calls answered with a direct Message and no task (spec §3.1.1) that reached the client whole. */
export const messageReplies = (x: GradeInput) => https(x).filter((e) => e.reply === 'message' && grantedWhole(e));

export const needsCompletion = (intent: TaskIntent) => intent.taskClass !== 'fire-and-forget';

export function describeTask(t: TaskRecord): string {
  return `task ${t.id} minted at #${t.mintedSeq}, ${t.state} at the end`;
}

export const taskEvidence = (x: GradeInput, tasks: TaskRecord[] = x.tasks): EvidenceRef[] => tasks.map((t) => ledgerEvidence(t.mintedSeq, describeTask(t)));

/** What the client did on the wire before it stopped: its last requests. */
export const describeCall = (e: HttpEvent) =>
  `${e.rpc?.method ?? `${e.method} ${e.path}`} → ${e.status ?? 'no answer'}${e.rpcError ? ` (${e.rpcError.code} ${e.rpcError.message})` : ''}`;

export const wireTrail = (x: GradeInput): EvidenceRef[] =>
  https(x)
    .slice(-3)
    .map((e) => wireEvidence(e.seq, describeCall(e)));

/** The `taskId` a message names (a follow-up to an existing task), if any. */
export function messageTaskId(e: HttpEvent): string | undefined {
  const p = e.rpc?.params as { message?: { taskId?: unknown } } | undefined;
  return typeof p?.message?.taskId === 'string' && p.message.taskId ? p.message.taskId : undefined;
}

/** Every attempt to start a task (SendMessage or SendStreamingMessage without a taskId), answered or not. */
export const startAttempts = (x: GradeInput) =>
  rpcCalls(x).filter((e) => (e.rpc!.method === 'SendMessage' || e.rpc!.method === 'SendStreamingMessage') && !messageTaskId(e));

/**
 * Probe tasks (docs/rules.md, "Probes"): tasks the client minted and canceled itself,
 * after which it went on to start another task, or declined (a decision other than proceeding, as
 * WIRE-NO-TASK-AFTER-REJECT reads it). A task the client abandons at the end of a run it proceeded
 * with is not a probe.
 */
export function probeTasks(x: GradeInput): TaskRecord[] {
  const starts = startAttempts(x);
  const declined = !!x.claims && x.claims.decision !== 'proceeded' && x.claims.decision !== 'downgraded';
  return x.tasks.filter((t) => {
    // Canceled by the client, or refused a cancel because it had just ended on its own.
    const cancel = x.events.find((e) => e.kind === 'task' && e.taskId === t.id && e.cause === 'canceled') ?? refusedCancel(x, t.id);
    if (!cancel) return false;
    // The same message sent again after the cancel is a retry of the task, not a probe before it.
    const minted = starts.find((e) => e.taskId === t.id);
    const later = starts.filter((e) => e.seq > cancel.seq && e.taskId !== t.id);
    if (minted?.paramsDigest && later.some((e) => e.paramsDigest === minted.paramsDigest)) return false;
    return declined || later.length > 0;
  });
}

/**
 * Idempotent reads (§3.3.1: "Get operations (Get Task, List Tasks, Get Extended Agent Card) are
 * naturally idempotent") that the RPC answered (2xx, no JSON-RPC error): the other kind of probe. A
 * read that failed showed nothing about the surface (a GetTask of no task, say).
 */
export const PROBE_READS: ReadonlySet<string> = new Set(['GetExtendedAgentCard', 'ListTasks', 'GetTask']);
export const probeReads = (x: GradeInput) => rpcCalls(x).filter((e) => PROBE_READS.has(e.rpc!.method) && !failed(e) && e.status !== undefined);

/** The first attempt to start a task that is not the start of a probe task: where the client binds. */
export function firstRealStart(x: GradeInput): HttpEvent | undefined {
  const probes = new Set(probeTasks(x).map((t) => t.id));
  const starts = startAttempts(x);
  // A probe refused for now (429 or 503 with Retry-After, no task minted) and sent again as it was after the wait: the
  // first later start with the same request minted a probe task, so the refused one was that probe, not the task's first attempt.
  // Refused more than once, each refusal is that probe's until a start of the same request gets through.
  const refusedForNow = (e: HttpEvent) => !e.taskId && (e.status === 429 || e.status === 503) && !!e.response?.retryAfter;
  const probeRefusedForNow = (e: HttpEvent) => {
    if (!refusedForNow(e) || !e.paramsDigest) return false;
    const again = starts.find((l) => l.seq > e.seq && l.paramsDigest === e.paramsDigest && !refusedForNow(l));
    return !!again?.taskId && probes.has(again.taskId);
  };
  return starts.find((e) => !(e.taskId && probes.has(e.taskId)) && !probeRefusedForNow(e));
}

/** The payload of an intent, in bytes: its text, or all of its frames. */
export function intentBytes(intent: TaskIntent): number {
  if (intent.input.frames) return intent.input.frames * (intent.input.frameBytes ?? 0);
  return new TextEncoder().encode(intent.input.text ?? 'hello').length;
}
