/**
 * What the push rules share (PUSH-AUTHENTICITY, PUSH-TASK-MATCH, PUSH-RECEIPT): the deliveries the
 * forger sent (peers/runtime/forge.ts), the client's decision, and whether a genuine word of a task's
 * end reached the client before it decided. A forged delivery never touches the ledger, so "the
 * client acted on it" is read against the ledger: the client decided about a task whose end no
 * answer, stream event or genuine push had shown it.
 */
import type { Source } from '../../../sources.js';
import type { DecisionEvent, PushAttemptEvent } from '../../../transcript.js';
import { isTerminal } from '../../../transcript.js';
import { ledgerEvidence, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import type { GradeInput } from '../../evidence.js';
import { failed, pushAttempts } from '../../evidence.js';

export const RECEIVER_SECTION = '13.2';

export const AUTHENTICITY: Source = {
  doc: 'A2A v1.0.1',
  section: RECEIVER_SECTION,
  quote: 'Clients MUST validate webhook authenticity using the provided authentication credentials',
  level: 'MUST',
};

/** The two sentences of the one duty to check the task id: §4.3.3 says MUST, §13.2 says SHOULD. */
export const TASK_ID_MUST: Source = {
  doc: 'A2A v1.0.1',
  section: '4.3.3',
  quote: 'Clients MUST validate the task ID matches an expected task',
  level: 'MUST',
};
export const TASK_ID_SHOULD: Source = {
  doc: 'A2A v1.0.1',
  section: RECEIVER_SECTION,
  quote: 'Clients SHOULD verify the task ID in the payload matches an expected task they created',
  level: 'SHOULD',
};

export const RECEIPT_2XX: Source = {
  doc: 'A2A v1.0.1',
  section: '4.3.3',
  quote: 'Clients MUST respond with HTTP 2xx status codes to acknowledge successful receipt',
  level: 'MUST',
};
export const IDEMPOTENT: Source = {
  doc: 'A2A v1.0.1',
  section: RECEIVER_SECTION,
  quote: 'Clients SHOULD process notifications idempotently, as duplicate deliveries may occur',
  level: 'SHOULD',
};

/** Where the push body's credentials come from (§4.3.3 "Authentication"): a limit every push rule reads. */
export const CREDENTIALS_FROM_CONFIG = {
  doc: 'A2A v1.0.1',
  section: '4.3.3',
  quote: 'The agent MUST include authentication credentials in the request headers as specified in the `PushNotificationConfig.authentication` field.',
};

export const decisionOf = (x: GradeInput) => x.events.find((e): e is DecisionEvent => e.kind === 'decision');

/**
 * A forged delivery that presents other credentials than the config's (none, wrong, another
 * config's), or, to a partner-mTLS receiver, another sender's certificate. To a plain receiver the
 * credentials are all that authenticates (§13.2): another sender with the genuine ones is no forgery of them.
 */
export const spoofsSender =
  (partner: boolean) =>
  (forgery: string | undefined): boolean =>
    !!forgery && (/(^| )credentials:(none|wrong|foreign)( |$)/.test(forgery) || (partner && /(^| )from:other( |$)/.test(forgery)));
/** A forged delivery with the config's own credentials that names another task than the config's. */
export const namesOtherTask = (forgery: string | undefined) =>
  !!forgery && /(^| )task:(foreign|other-own)( |$)/.test(forgery) && !/(^| )(credentials:(none|wrong|foreign)|from:other)( |$)/.test(forgery);

/** Whether the run's receiver is reached over partner mTLS (the scenario's delivery). */
export const partnerReceiver = (x: GradeInput) => x.scenario.peer.runtime.push.delivery === 'partner-mtls';

export const forged = (x: GradeInput, which: (forgery: string | undefined) => boolean) =>
  pushAttempts(x).filter((a) => a.genuine === false && which(a.forgery));

/** The push's status as the report says it: the receiver's answer, or why there was none. */
export const answered = (a: PushAttemptEvent) => (a.status !== undefined ? `answered ${a.status}` : `${a.outcome}${a.error ? ` (${a.error})` : ''}`);
export const taken = (a: PushAttemptEvent) => a.outcome === 'delivered';

/**
 * The first genuine word of the task's end the client had before it decided: an answer or stream
 * event carrying a terminal state (by sequence number), or a genuine push of one whose post began
 * before the decision (by time: the receiver may wake its client before the dispatcher reads the answer).
 */
export function endKnown(x: GradeInput, taskId: string, d: DecisionEvent): { seq: number; fact: string } | undefined {
  for (const e of x.events) {
    if (e.kind === 'http' && e.seq < d.seq && !failed(e) && e.taskId === taskId && isTerminal(e.taskState))
      return { seq: e.seq, fact: `${e.rpc?.method ?? e.method} answered with the task in ${e.taskState}` };
    if (e.kind === 'sse' && e.seq < d.seq && e.taskId === taskId && isTerminal(e.state))
      return { seq: e.seq, fact: `a stream event with the task in ${e.state}` };
    if (e.kind === 'push-attempt' && e.genuine !== false && taken(e) && e.taskId === taskId && isTerminal(e.state) && (e.sentT ?? e.t) <= d.t)
      return { seq: e.seq, fact: `a genuine push of the task in ${e.state}, delivered` };
  }
  return undefined;
}

/** Where the task stood in the ledger at `seq`. */
export function stateAt(x: GradeInput, taskId: string, seq: number): string | undefined {
  return x.tasks
    .find((t) => t.id === taskId)
    ?.history.filter((h) => h.seq < seq)
    .at(-1)?.state;
}

/**
 * The forged deliveries of an end (a terminal state) the client took before it decided, and the
 * client's tasks it then decided about with no genuine word of their end: what "moved the client" means
 * on the wire. Each miss names the forged delivery and the task.
 */
export function movedBy(
  x: GradeInput,
  deliveries: PushAttemptEvent[],
): { by: PushAttemptEvent; task: string; evidence: EvidenceRef[]; reason: string } | undefined {
  const d = decisionOf(x);
  if (!d) return undefined;
  const ends = deliveries.filter((a) => taken(a) && isTerminal(a.state) && (a.sentT ?? a.t) <= d.t);
  if (ends.length === 0) return undefined;
  for (const t of x.tasks) {
    if (endKnown(x, t.id, d)) continue;
    const by = ends[0]!;
    const at = stateAt(x, t.id, d.seq);
    const real = isTerminal(at)
      ? `the task had ended ${at}, but no answer, stream event or genuine push had told the client so`
      : `the ledger had the task ${at ?? 'unminted'} then`;
    return {
      by,
      task: t.id,
      reason: `the client's receiver took the forged delivery #${by.seq} (${by.forgery}: ${by.state} for ${by.taskId}, ${answered(by)}), posted before the client decided at #${d.seq} about task ${t.id} with no genuine word of its end: ${real}`,
      evidence: [
        wireEvidence(by.seq, `forged push (${by.forgery}) of ${by.state} for task ${by.taskId}, ${answered(by)}`),
        wireEvidence(d.seq, `the client's decision${d.decision ? ` (${d.decision})` : ''}`),
        ledgerEvidence(
          t.mintedSeq,
          `task ${t.id} ${at ?? 'unminted'} at #${d.seq}${isTerminal(t.state) ? `, ${t.state} in the end` : `, ${t.state} at the end`}`,
        ),
      ],
    };
  }
  return undefined;
}

/** How the client came to its decision, for a PASS: on a genuine word of each task's end, or before any forged end reached it. */
export function decidedOn(x: GradeInput): string {
  const d = decisionOf(x);
  if (!d) return 'the client gave no decision (WIRE-DEADLINE grades that)';
  // Task ids are named only where there are several: a run's ids change from run to run, its sequence numbers do not.
  const several = x.tasks.length > 1;
  const words = x.tasks.map((t) => {
    const which = several ? `task ${t.id}` : 'the task';
    const k = endKnown(x, t.id, d);
    return k ? `${which}'s end shown at #${k.seq} (${k.fact})` : `${which} with no word of its end (no forged end taken before it)`;
  });
  return `the client decided at #${d.seq}${words.length ? ` on ${words.join('; ')}` : ', with no task'}`;
}
