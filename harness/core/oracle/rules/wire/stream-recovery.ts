/**
 * STREAM-RECOVERY (wire): A stream that ends before its task did is followed up, never answered by sending the message again.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * The level of the recovery itself: the spec describes it and gives clients the means (GetTask for
 * "the final state of a task … after a stream has ended", §3.1.3; a new stream after a network
 * interruption, §3.5.2; SubscribeToTask's Task first, §3.1.6), but no RFC keyword makes it a
 * client's duty: convention. Sending the message again is harm (a second task for one intent), FAIL
 * at every level; a task left working is WIRE-NO-ORPHANS's.
 */
import type { Source } from '../../../sources.js';
import type { HttpEvent } from '../../../transcript.js';
import { isTerminal } from '../../../transcript.js';
import { ledgerEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { grantedWhole, rpcCalls } from '../../evidence.js';
import { deliveredEvent, mintedBy, namesTask, STREAM_CUT as CUT } from '../../knowledge.js';
import { mustComplete } from '../../graders.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { GET_TASK_AFTER_STREAM, SEND_NOT_IDEMPOTENT, SENDS, STREAMS } from './shared.js';

const GET_TASK: Source = { ...GET_TASK_AFTER_STREAM, level: 'convention' };

const RECONNECT: Source = {
  doc: 'A2A v1.0.1',
  section: '3.5.2',
  quote: 'A client reconnecting to a task after a network interruption by opening a new stream',
  level: 'convention',
};

/** The client's calls that start a task (a message naming no task), in order. */
const starts = (calls: HttpEvent[]) =>
  calls.filter((e) => {
    if (!SENDS.has(e.rpc!.method) || e.rpcError || (e.status !== undefined && e.status >= 300)) return false;
    const msg = (e.rpc!.params as { message?: { taskId?: unknown } } | undefined)?.message;
    return !msg?.taskId;
  });

export const STREAM_RECOVERY: RuleOf<'STREAM-RECOVERY'> = {
  id: 'STREAM-RECOVERY',
  title: 'A stream that ends before its task did is followed up, never answered by sending the message again',
  family: 'wire',
  scope: 'own',
  sources: [GET_TASK, RECONNECT, SEND_NOT_IDEMPOTENT],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.1.6',
      quote:
        'The operation MUST return a `Task` object as the first event in the stream, representing the current state of the task at the time of subscription. This prevents a potential loss of information between a call to `GetTask` and calling `SubscribeToTask`.',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.7',
      quote: 'Clients using streaming to retrieve task updates MAY not receive all status update messages if the client is disconnected and then reconnects.',
    },
  ],
  grades: [
    {
      when: 'after the stream ended early (closed or cut, the task going on), the intent started again by any route (SendMessage or a stream; the same or a new messageId, other configuration or metadata) and a second task minted for the one intent',
      verdict: 'FAIL (harm)',
    },
    {
      when: 'the same, but the peer deduplicated the message (§3.3.1): no second task',
      verdict: 'NON_STRICT (convention: the end was still answered by a re-send)',
    },
    {
      when: 'after it, SubscribeToTask or GetTask of that task (or ListTasks, for a stream cut before any event named the task)',
      verdict: 'PASS (recovered; what became of the task is graded by the cross-cutting checks)',
    },
    {
      when: 'neither: the client stopped following the task when its stream ended',
      verdict:
        'NON_STRICT (convention: §3.1.3 and §3.5.2 describe the recovery; no keyword makes it the client’s duty); a task left working is WIRE-NO-ORPHANS’s FAIL',
    },
    { when: 'the client declined the intent, which the peer would have completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: [
    'no stream is ended early (every stream closes at its task’s terminal or interrupted state)',
    'a card without streaming',
    'fire-and-forget: nothing to follow',
    'the client followed the task without a stream, or no stream of its was ended early',
    'the stream was cut only after the client canceled its task itself (the cancel’s answer told it the end)',
  ],
  applies(s) {
    const rt = s.truth.runtime;
    const cutsStreams = rt.streamEnds !== undefined || (rt.drop !== undefined && (rt.drop.method === undefined || STREAMS.has(rt.drop.method)));
    if (!cutsStreams) return notBinding('no stream is ended early: each closes at its task’s terminal or interrupted state');
    if (s.card.streaming !== true) return notBinding('the card offers no streaming');
    if (s.intent.taskClass === 'fire-and-forget') return notBinding('fire-and-forget: nothing to follow');
    const how = rt.streamEnds
      ? `${rt.streamEnds.midEvent ? 'is reset mid-event' : 'closes'} after ${rt.streamEnds.afterEvents} event(s)`
      : `is cut after ${rt.drop!.afterBytes} bytes`;
    return binds(`a stream of this task ${how}, the task going on: the client must follow it up, not send the message again`, ['proceed']);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const calls = rpcCalls(x);
    const streams = calls.filter((e) => STREAMS.has(e.rpc!.method));
    if (streams.length === 0)
      return x.tasks.length === 0 ? mustComplete(x, b.reason) : informational('the client followed the task without a stream: nothing ended early for it');
    const cut = streams.find((e) => CUT.test(e.note ?? ''));
    if (!cut) return informational('no stream of the client’s was ended early');
    // The intent started again after the cut, by any route (SendMessage or a stream; the same or a new messageId,
    // other configuration or metadata): a message that names no task is a new start.
    const [first, ...again] = starts(calls);
    const resent = first ? again.filter((e) => e.seq > cut.seq) : [];
    // The tasks those sends minted: the ledger's mint events name the request that caused them.
    const minted = resent.flatMap((e) => {
      const t = mintedBy(x, e);
      return t ? [{ e, t }] : [];
    });
    if (minted.length > 0)
      return harm(
        `the stream #${cut.seq} ended early and the intent was started again at #${minted[0]!.e.seq} (${minted[0]!.e.rpc!.method}): a second task (${minted[0]!.t.id}) for one intent`,
        [
          wireEvidence(cut.seq, `${cut.rpc!.method}: ${cut.note}`),
          ...minted.map(({ e, t }) => ledgerEvidence(t.mintedSeq, `task ${t.id} minted by the message sent again at #${e.seq}`)),
        ],
      );
    // No task minted by it: the peer took it for the same message (§3.3.1, by messageId).
    const deduplicated = resent.filter((e) => e.deduplicated);
    if (deduplicated.length > 0)
      return verdict(
        'NON_STRICT',
        `the stream #${cut.seq} ended early and the original message was sent again at #${deduplicated[0]!.seq}; the peer deduplicated it (§3.3.1)`,
        [wireEvidence(cut.seq, `${cut.rpc!.method}: ${cut.note}`), wireEvidence(deduplicated[0]!.seq, 'the same message, sent again')],
        { basis: 'duty', level: 'convention' },
      );
    // Following up counts calls about the task the cut stream was about (ListTasks only where the cut came before any
    // event named it): a GetTask of another task is no recovery of this one.
    const own = cut.taskId ?? mintedBy(x, cut)?.id;
    const named = x.events.some((e) => e.kind === 'sse' && e.requestSeq === cut.seq && deliveredEvent(x, e));
    const followed = calls.find(
      (e) =>
        e.seq > cut.seq &&
        (((e.rpc!.method === 'SubscribeToTask' || e.rpc!.method === 'GetTask') && (!own || namesTask(e, own))) || (e.rpc!.method === 'ListTasks' && !named)),
    );
    const task = own ? (x.tasks.find((t) => t.id === own) ?? x.tasks[0]) : x.tasks[0];
    const end = task ? `; the task ended ${task.state}` : '';
    if (followed)
      return met(`the stream #${cut.seq} ended early; the client followed the task up with ${followed.rpc!.method} at #${followed.seq}${end}`, [
        wireEvidence(cut.seq, `${cut.rpc!.method}: ${cut.note}`),
        wireEvidence(followed.seq, `${followed.rpc!.method}${followed.taskId ? ` of ${followed.taskId}` : ''}`),
      ]);
    // A stream cut at the event the client's own cancel made (a reset mid-event comes with the task's next event, which a
    // stalled task makes only when it is canceled): a cancel answered whole and granted told the client the end; there is
    // nothing to follow. One refused, or whose answer was lost, told it nothing.
    const cutAt = cut.streamEnd?.t;
    const canceled =
      own && cutAt !== undefined
        ? calls.find((e) => e.rpc!.method === 'CancelTask' && namesTask(e, own) && e.t <= cutAt && e.status !== undefined && grantedWhole(e))
        : undefined;
    if (canceled)
      return informational(
        `the stream #${cut.seq} was cut after the client had canceled its task itself (#${canceled.seq}): the cancel's answer told it the end, nothing was left to follow up`,
      );
    return verdict(
      'NON_STRICT',
      `the stream #${cut.seq} ended early and the client did not follow the task up (no SubscribeToTask or GetTask after it)${task && !isTerminal(task.state) ? `; the task was left ${task.state}` : end}`,
      [wireEvidence(cut.seq, `${cut.rpc!.method}: ${cut.note}`)],
      { basis: 'duty', level: 'convention' },
    );
  },
};
