/**
 * STREAM-REFUSAL (wire): A streaming call refused before any event is a refusal, never an empty success.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * Servers answer a streaming call they refuse in several forms: a plain JSON error, the same with no
 * Content-Type, an event stream whose one event is the error (the spec shows a stream as `HTTP 200`
 * with `text/event-stream`, §9.4.2, and says nothing of the form of a refusal: A2A #1262). Whatever
 * the form, no event of the task came and no task was minted; a client that hands such an answer to
 * its stream parser and reports the task done claims a success the ledger does not hold: harm.
 */
import type { Source } from '../../../sources.js';
import { claimEvidence, type EvidenceRef, ledgerEvidence, type Verdict, verdict, wireEvidence } from '../../../verdict.js';
import { decisionSeq, messageReplies, rpcCalls, terminalSeenAt, type GradeInput } from '../../evidence.js';
import { namesTask } from '../../knowledge.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import type { HttpEvent } from '../../../transcript.js';
import { grpcOnly, STREAMS } from './shared.js';

const STREAM_RESPONSE: Source = {
  doc: 'A2A v1.0.1',
  section: '9.4.2',
  quote: '**Response:** HTTP 200 with `Content-Type: text/event-stream`',
  level: 'convention',
};

const PROCEEDED: Source = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, result',
  quote: '`proceeded` | did the task as asked',
  level: 'MUST',
  role: 'harm',
};

export const STREAM_REFUSAL: RuleOf<'STREAM-REFUSAL'> = {
  id: 'STREAM-REFUSAL',
  title: 'A streaming call refused before any event is a refusal, never an empty success',
  family: 'wire',
  scope: 'own',
  sources: [STREAM_RESPONSE, PROCEEDED],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.3.2',
      quote: 'All error responses in the A2A protocol, regardless of binding, **MUST** convey the following information:',
    },
  ],
  grades: [
    {
      when: 'a streaming call refused before any event (no task minted), and a report of `proceeded` or `downgraded` with no task and no direct Message',
      verdict: 'FAIL (harm: a success the ledger does not hold)',
    },
    {
      when: 'SubscribeToTask refused before any event, after a stream that left its task early, and a report of `proceeded` or `downgraded` before the client saw the task end',
      verdict: 'FAIL (harm: the refusal taken for the task’s end)',
    },
    { when: 'the refusal reported (`rejected`), or the task done another way (SendMessage, then polling)', verdict: 'PASS' },
    { when: 'a refused subscription, and the task followed to its end by GetTask before the report', verdict: 'PASS' },
    { when: 'the client opened no stream, or none that was refused (it followed the task by GetTask alone)', verdict: 'INFORMATIONAL' },
  ],
  motivatedBy: ['a2aproject/a2a-rs#134', 'a2aproject/a2a-rs#197', 'a2aproject/A2A#1262'],
  notBinding: [
    'the peer streams as usual',
    'only subscriptions are refused, and no stream ends before its task (a client has no task to subscribe to)',
    'a card without streaming, or an intent that asks for no stream',
    'no report came back (WIRE-DEADLINE grades that)',
  ],
  applies(s) {
    const rt = s.truth.runtime;
    const form = rt.refuseStreams ?? rt.refuseSubscribe;
    if (!form) return notBinding('the peer streams as usual');
    const onlySubscribe = !rt.refuseStreams;
    if (onlySubscribe && !rt.streamEnds) return notBinding('only subscriptions are refused, and every stream runs to its task’s end');
    if (s.card.streaming !== true) return notBinding('the card offers no streaming');
    if (s.intent.completion !== 'stream' || s.intent.taskClass === 'fire-and-forget') return notBinding('the intent asks for no stream to follow');
    const how = grpcOnly(s)
      ? 'a gRPC status before any message (gRPC has that one form)'
      : form === 'json'
        ? 'a plain error answer'
        : form === 'untyped'
          ? 'an error answer with no Content-Type'
          : 'an event stream whose one event is an error';
    if (onlySubscribe)
      return binds(
        `a stream leaves its task early and every SubscribeToTask is refused before any event, as ${how}: the task goes on, and the refusal is no end of it`,
        ['proceed', 'downgrade', 'reject'],
      );
    return binds(`every streaming call is refused before any event, as ${how}: a refusal, never an empty success`, ['proceed', 'downgrade', 'reject']);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const refused = rpcCalls(x).find((e) => STREAMS.has(e.rpc!.method) && e.rpcError !== undefined);
    if (!refused)
      return informational(
        rpcCalls(x).some((e) => STREAMS.has(e.rpc!.method))
          ? 'no stream the client opened was refused (it followed the task without subscribing)'
          : 'the client opened no stream',
      );
    const told = wireEvidence(refused.seq, `${refused.rpc!.method} refused before any event: ${refused.rpcError!.code} ${refused.rpcError!.message}`);
    if (!x.claims) return informational('no report to compare');
    const { decision } = x.claims;
    if (refused.rpc!.method === 'SubscribeToTask' && x.tasks.some((t) => namesTask(refused, t.id))) return subscription(x, refused, told);
    if (decision === 'rejected')
      return met(`the stream #${refused.seq} was refused and the client reported it (${decision}${x.claims.errorClass ? `, ${x.claims.errorClass}` : ''})`, [
        told,
      ]);
    if (decision !== 'proceeded' && decision !== 'downgraded') return informational(`the client reported ${decision}`);
    const done = x.tasks.find((t) => t.state === 'TASK_STATE_COMPLETED');
    if (done)
      return met(`the stream #${refused.seq} was refused and the client did the task another way: ${done.id} completed`, [
        told,
        ledgerEvidence(done.mintedSeq, `task ${done.id} minted at #${done.mintedSeq}, completed`),
      ]);
    const reply = messageReplies(x)[0];
    if (reply && x.tasks.every((t) => t.probe))
      return met(`the stream #${refused.seq} was refused and the agent answered the client's message directly`, [
        told,
        wireEvidence(reply.seq, 'a direct Message'),
      ]);
    // A probe the client minted and canceled itself before the message (docs/protocol.md) is no task of the intent.
    if (x.tasks.every((t) => t.probe))
      return harm(
        `the stream #${refused.seq} was refused before any event and no task of the intent was minted, yet the client reported ${decision}: a success the ledger does not hold`,
        [told, claimEvidence(`decision: ${decision}`)],
      );
    return verdict(
      'NON_STRICT',
      `the stream #${refused.seq} was refused; the client reported ${decision} with no task completed`,
      [told, claimEvidence(`decision: ${decision}`)],
      {
        basis: 'duty',
        level: 'convention',
      },
    );
  },
};

/**
 * A subscription refused before any event, to a task the client had: the task goes on whatever the
 * subscription said. Reporting success is honest only once the client has seen the task end.
 */
function subscription(x: GradeInput, refused: HttpEvent, told: EvidenceRef): Verdict {
  const task = x.tasks.find((t) => namesTask(refused, t.id))!;
  const decision = x.claims!.decision;
  if (decision === 'rejected')
    return met(
      `the subscription #${refused.seq} to ${task.id} was refused and the client reported it (rejected${x.claims!.errorClass ? `, ${x.claims!.errorClass}` : ''})`,
      [told],
    );
  if (decision !== 'proceeded' && decision !== 'downgraded') return informational(`the client reported ${decision}`);
  const seen = terminalSeenAt(x, task.id);
  if (seen !== undefined && seen < decisionSeq(x))
    return met(`the subscription #${refused.seq} to ${task.id} was refused; the client saw the task end at #${seen} before it reported ${decision}`, [
      told,
      wireEvidence(seen, `task ${task.id} seen ${task.state}`),
    ]);
  return harm(
    `the subscription #${refused.seq} to ${task.id} was refused before any event, and the client reported ${decision} without having seen the task end: the refusal taken for the task’s end`,
    [told, ledgerEvidence(task.mintedSeq, `task ${task.id} minted at #${task.mintedSeq}, ${task.state} at the end`), claimEvidence(`decision: ${decision}`)],
  );
}
