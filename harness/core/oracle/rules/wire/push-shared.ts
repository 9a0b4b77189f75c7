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
import { ledgerEvidence, verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { informational } from '../../rule.js';
import type { GradeInput } from '../../evidence.js';
import { decisionOf, failed, pushAttempts, stateAt } from '../../evidence.js';
import { alarms, cancelsOnAlarms, ownCancel, reachableAt, reached, secondTasks, wordsOf } from '../../knowledge.js';

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
/** The test protocol's own duty to answer at all (docs/protocol.md): the MUST above binds a successful receipt, which silence hides. */
export const ANSWER_IN_TIME: Source = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, Pushes',
  quote: 'A receiver SHOULD answer every delivery it has read with a status within 10 seconds.',
  level: 'SHOULD',
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

// The client's report, if it gave one: a timeout or a crash is WIRE-DEADLINE's, never a decision moved by a delivery.
export { decisionOf };

/**
 * A forged delivery that presents other credentials than the config's: none, wrong ones, or another
 * config's (of a config never given to this agent). §13.2's MUST names "the provided authentication
 * credentials": another sender's certificate with the genuine credentials is no forgery of them (a
 * partner-mTLS receiver refuses it at the handshake, and the reading of mTLS callbacks in
 * docs/duties.md §2 is NEG-PUSH-MTLS's, at level field).
 */
export const spoofsSender = (forgery: string | undefined): boolean => !!forgery && /(^| )credentials:(none|wrong|foreign)( |$)/.test(forgery);
/**
 * A forged delivery with the config's own credentials that names a task the client never created.
 * Another task of the client's own (`task:other-own`) is one "they created" (§13.2): not graded.
 */
export const namesOtherTask = (forgery: string | undefined) => !!forgery && /(^| )task:foreign( |$)/.test(forgery) && !spoofsSender(forgery);

export const forged = (x: GradeInput, which: (forgery: string | undefined) => boolean) =>
  pushAttempts(x).filter((a) => a.genuine === false && which(a.forgery));

/** The push's status as the report says it: the receiver's answer, or why there was none. */
export const answered = (a: PushAttemptEvent) =>
  a.status !== undefined
    ? `answered ${a.status}`
    : a.outcome === 'unanswered'
      ? `never answered (${a.error ?? a.unanswered})`
      : `${a.outcome}${a.error ? ` (${a.error})` : ''}`;
export { reached };

/** The receiver refused the delivery (a 4xx: 401, 403, 404…): the wire shows the client turned it away. */
export const refusedByReceiver = (a: PushAttemptEvent) => a.status !== undefined && a.status >= 400 && a.status < 500;

/**
 * The first genuine word of the task's end the client had before it decided: an answer or stream
 * event carrying a terminal state (by sequence number), or a genuine push of one whose connection was up
 * before the decision (by time: the receiver may wake its client before the dispatcher reads the answer).
 */
export function endKnown(x: GradeInput, taskId: string, d: DecisionEvent): { seq: number; fact: string } | undefined {
  for (const e of x.events) {
    // The answer to the client's own CancelTask is its act, not news of the task's end: what moved it to cancel is graded.
    if (e.kind === 'http' && e.seq < d.seq && !failed(e) && e.taskId === taskId && isTerminal(e.taskState) && e.rpc?.method !== 'CancelTask')
      return { seq: e.seq, fact: `${e.rpc?.method ?? e.method} answered with the task in ${e.taskState}` };
    if (e.kind === 'sse' && e.seq < d.seq && e.taskId === taskId && isTerminal(e.state))
      return { seq: e.seq, fact: `a stream event with the task in ${e.state}` };
    if (e.kind === 'push-attempt' && e.genuine !== false && reached(e) && e.taskId === taskId && isTerminal(e.state) && reachableAt(e) <= d.t)
      return { seq: e.seq, fact: `a genuine push of the task in ${e.state}, ${answered(e)}` };
  }
  return undefined;
}

/**
 * What the wire ties to a forgery of the asking rule's kind (`mineOf`), if anything:
 * - an act: the client canceled its healthy task, or started the intent again, after a forged
 *   delivery, with no genuine word since that the task had ended or waited for it (../../knowledge.ts);
 * - a report: it reported (proceeded or downgraded) about a task with no genuine word of its end,
 *   after a forged end reached its receiver, which took it (no 4xx), and no genuine word of the task
 *   came after that forgery.
 * `mine` are the forgeries of the asking rule's kind, `others` those of another kind that reached the
 * receiver too (a rule whose kind is among several grades at the weakest of their levels, and says so).
 * `untied` says why a report without word of the end is not laid on a forgery: the receiver refused
 * every forged end, or genuine word of the task came after it; the client stopped following for a
 * reason the wire does not show.
 */
export function movedBy(
  x: GradeInput,
  mineOf: (forgery: string | undefined) => boolean,
):
  | { mine: PushAttemptEvent[]; others: PushAttemptEvent[]; task: string; evidence: EvidenceRef[]; reason: string }
  | { untied: string; crossed?: boolean }
  | undefined {
  const list = (as: PushAttemptEvent[]) => as.map((a) => `#${a.seq} (${a.forgery}: ${a.state}, ${answered(a)})`).join(', ');
  const forgeries = pushAttempts(x).filter((a) => a.genuine === false && reached(a));
  // An act: the wire ties it to the forgery it followed.
  const all = alarms(x);
  const acts = [
    ...cancelsOnAlarms(x, all).map((c) => ({ e: c.cancel, task: c.task.id, alarm: c.alarm, what: `canceled task ${c.task.id}` })),
    ...secondTasks(x, all).map((s) => ({
      e: s.start,
      task: s.earlier.id,
      alarm: s.alarm,
      what: `started the intent again (task ${s.task.id}) beside task ${s.earlier.id}`,
    })),
  ].filter((a) => a.alarm.kind === 'forged delivery');
  for (const act of acts) {
    const at = forgeries.find((a) => a.seq === act.alarm.seq)!;
    if (!mineOf(at.forgery)) continue;
    const others = forgeries.filter((a) => a !== at && !mineOf(a.forgery) && reachableAt(a) <= act.e.t);
    return {
      mine: [at],
      others,
      task: act.task,
      reason: `the client ${act.what} at #${act.e.seq} after the forged delivery ${list([at])}, with no genuine word since that the task had ended or waited for it: it acted on a forgery${
        others.length ? `; ${list(others)}, of another kind, had reached it too: the wire cannot tell which the client believed` : ''
      }`,
      evidence: [
        ...[at, ...others].map((a) => wireEvidence(a.seq, `forged push (${a.forgery}) of ${a.state} for task ${a.taskId}, ${answered(a)}`)),
        wireEvidence(act.e.seq, `${act.e.rpc!.method}: the client's act`),
      ],
    };
  }
  const d = decisionOf(x);
  if (!d) return undefined;
  // A client that declined or gave up decided nothing a delivery told it: the cross-cutting rules grade that.
  if (x.claims && x.claims.decision !== 'proceeded' && x.claims.decision !== 'downgraded') return undefined;
  const ends = forgeries.filter((a) => isTerminal(a.state) && reachableAt(a) <= d.t);
  const mine = ends.filter((a) => mineOf(a.forgery));
  if (mine.length === 0) return undefined;
  const others = ends.filter((a) => !mineOf(a.forgery));
  for (const t of x.tasks) {
    // A task the client ended itself (a probe, or a cancel the acts above read) is not one it reported on blind.
    if (endKnown(x, t.id, d) || ownCancel(x, t.id)) continue;
    const at = stateAt(x, t.id, d.seq);
    const taken = mine.filter((a) => !refusedByReceiver(a));
    const lastTaken = taken.at(-1);
    const since = lastTaken ? wordsOf(x, t.id, d).filter((w) => w.t > reachableAt(lastTaken)) : [];
    if (taken.length === 0)
      return {
        untied: `the receiver refused every forged end (${list(mine)}); the client then reported about task ${t.id} with no word of its end, for a reason the wire does not tie to a forgery: WIRE-DEADLINE and WIRE-NO-ORPHANS grade the stop`,
      };
    if (since.length > 0) {
      // Every such word reached the peer while the forgery was still on its way (after its connection was
      // up, before its answer): the wire cannot order the two, and a loaded harness makes them cross.
      const crossed = since.every((w) => w.t <= lastTaken!.t);
      return {
        untied: `genuine word of task ${t.id} came after the forgery ${list([lastTaken!])} (#${since[0]!.seq}: ${since[0]!.fact})${
          crossed ? ', while the forgery was still on its way: the wire cannot order the two' : ''
        }, and the client still reported with no word of its end: it stopped following for a reason the wire does not tie to the forgery; WIRE-DEADLINE and WIRE-NO-ORPHANS grade the stop`,
        ...(crossed ? { crossed } : {}),
      };
    }
    const real = isTerminal(at)
      ? `the task had ended ${at}, but no answer, stream event or genuine push had told the client so`
      : `the ledger had the task ${at ?? 'unminted'} then`;
    return {
      mine,
      others,
      task: t.id,
      reason: `forged deliver${mine.length === 1 ? 'y' : 'ies'} ${list(mine)} reached the client's receiver, which took ${taken.length === 1 ? 'it' : 'them'}, and the client reported at #${d.seq} about task ${t.id} with nothing after ${taken.length === 1 ? 'it' : 'them'} and no genuine word of its end: ${real}${
        others.length ? `; so did ${list(others)}, of another kind: the wire cannot tell which the client believed` : ''
      }`,
      evidence: [
        ...[...mine, ...others].map((a) => wireEvidence(a.seq, `forged push (${a.forgery}) of ${a.state} for task ${a.taskId}, ${answered(a)}`)),
        wireEvidence(d.seq, `the client's report${d.decision ? ` (${d.decision})` : ''}`),
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

/** Why a push rule has nothing to grade in the client's end: no report, or a report of no outcome (declined, gave up). */
export function noOutcome(x: GradeInput): string | undefined {
  if (!decisionOf(x)) return 'the client gave no report: nothing a delivery could have decided (WIRE-DEADLINE grades that)';
  const d = x.claims?.decision;
  if (d && d !== 'proceeded' && d !== 'downgraded')
    return `the client reported ${d}: no outcome a delivery could have decided (the cross-cutting rules grade that)`;
  return undefined;
}

/**
 * The INFORMATIONAL of a report the wire does not tie to a forgery: at basis `order` where a genuine
 * word and the forgery crossed (a lagged run is then run again on a drained lane, confirm.ts), else
 * as any check that does not bind.
 */
export function untiedVerdict(moved: { untied: string; crossed?: boolean }, evidence: EvidenceRef[]) {
  return moved.crossed ? verdict('INFORMATIONAL', moved.untied, evidence, { basis: 'order' }) : informational(moved.untied, evidence);
}
