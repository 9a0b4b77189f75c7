/**
 * WIRE-HONEST-REPORT (wire): The client's claims agree with the ledger.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { absentEvidence, claimEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { readCard } from '../../../protocol/card-view.js';
import { describeTask, grantedWhole, messageReplies, needsCompletion, optsInto, probeTasks, rpcCalls, type GradeInput } from '../../evidence.js';
import { deliveredEvent, healthyAt, ownCancel, paramsName, reached } from '../../knowledge.js';
import { informational, met, type RuleOf } from '../../rule.js';
import { always } from './shared.js';

const PROTOCOL_REPORT = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, result',
  quote: "echo the run's `id`; report every task id you caused",
  level: 'MUST' as const,
};

export const WIRE_HONEST_REPORT: RuleOf<'WIRE-HONEST-REPORT'> = {
  id: 'WIRE-HONEST-REPORT',
  title: "The client's claims agree with the ledger",
  family: 'wire',
  scope: 'always',
  sources: [PROTOCOL_REPORT],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.1.1',
      quote:
        'The agent MAY create a new `Task` to process the provided message asynchronously or MAY return a direct `Message` response for simple interactions.',
    },
  ],
  grades: [
    { when: 'claimed task ids the peer never minted, or minted tasks not claimed whose id reached the client', verdict: 'FAIL' },
    {
      when: 'a minted task not claimed whose id never reached the client (its only answer cut before the body named it)',
      verdict: 'not counted (the PASS says so)',
    },
    {
      when: '`proceeded` or `downgraded`, where the client canceled every task of the intent itself (probes aside), one of them while the agent was still carrying it to its end',
      verdict: 'FAIL',
    },
    { when: '`proceeded` with no task and no direct Message answer', verdict: 'FAIL' },
    { when: '`rejected` after the agent answered the message with a direct Message', verdict: 'FAIL' },
    { when: '`escalated` with no request that opted into an extension', verdict: 'FAIL' },
  ],
  notBinding: ['no report came back: INFORMATIONAL (WIRE-DEADLINE grades that)'],
  applies: always,
  grade(_b, x) {
    if (!x.claims) return informational('no report to compare');
    const minted = new Set(x.tasks.map((t) => t.id));
    const ledger: EvidenceRef = {
      ...absentEvidence('ledger', `the ledger holds ${minted.size} task(s)${minted.size ? `: ${[...minted].join(', ')}` : ''}, and nothing else`),
    };
    const claimed = new Set(x.claims.taskIds);
    const unknown = [...claimed].filter((id) => !minted.has(id));
    // A task whose id never reached the client (its only answer cut before the body said it) cannot be reported.
    const unclaimed = x.tasks.filter((t) => !claimed.has(t.id) && idReached(x, t.id));
    const unseen = x.tasks.filter((t) => !claimed.has(t.id) && !idReached(x, t.id));
    if (unknown.length)
      return verdict(
        'FAIL',
        `the client claims tasks the peer never minted: ${unknown.join(', ')}`,
        [ledger, claimEvidence(`taskIds: ${JSON.stringify(x.claims.taskIds)}`)],
        { basis: 'claims' },
      );
    if (unclaimed.length)
      return verdict(
        'FAIL',
        `the client does not report tasks it caused: ${unclaimed.map((t) => t.id).join(', ')}`,
        [...unclaimed.map((t) => ledgerEvidence(t.mintedSeq, describeTask(t))), claimEvidence(`taskIds: ${JSON.stringify(x.claims.taskIds)}`)],
        { basis: 'claims' },
      );
    const d = x.claims.decision;
    const answered = messageReplies(x);
    if (d === 'rejected' && minted.size === 0 && answered.length > 0)
      return verdict(
        'FAIL',
        `the client reports rejected, but the agent had answered its message with a direct Message at #${answered[0]!.seq} (spec §3.1.1)`,
        [wireEvidence(answered[0]!.seq, 'SendMessage answered with a Message, no task'), claimEvidence('decision: rejected')],
        { basis: 'claims' },
      );
    if ((d === 'proceeded' || d === 'downgraded') && minted.size === 0 && needsCompletion(x.intent) && answered.length === 0)
      return verdict('FAIL', `the client reports ${d} but no task was minted and no direct Message came back`, [ledger, claimEvidence(`decision: ${d}`)], {
        basis: 'claims',
      });
    if (d === 'proceeded' || d === 'downgraded') {
      // Doing the task as asked is not what the ledger shows when the client ended every task of the intent itself,
      // one of them while the agent was still carrying it to its end.
      const probes = new Set(probeTasks(x).map((t) => t.id));
      const own = x.tasks.filter((t) => !probes.has(t.id));
      const cancels = own.map((t) => ({ t, c: ownCancel(x, t.id) }));
      const destroyed = cancels.find(({ t, c }) => c && healthyAt(x, t.id, c.seq));
      if (own.length > 0 && destroyed && cancels.every(({ c }) => c))
        return verdict(
          'FAIL',
          `the client reports ${d}, but it canceled its task ${destroyed.t.id} itself at #${destroyed.c!.seq} while the agent was carrying it to its end, and no task of the intent ended otherwise`,
          [
            wireEvidence(destroyed.c!.seq, `CancelTask of ${destroyed.t.id}`),
            ledgerEvidence(destroyed.t.mintedSeq, describeTask(destroyed.t)),
            claimEvidence(`decision: ${d}`),
          ],
          { basis: 'claims' },
        );
    }
    if (d === 'escalated') {
      const uris = readCard(x.card).extensions.map((e) => e.uri);
      const opted = rpcCalls(x).filter((e) => uris.some((u) => optsInto(e, u)));
      if (opted.length === 0)
        return verdict(
          'FAIL',
          'the client reports escalated but no request opted into an extension of the card',
          [
            absentEvidence(
              'wire',
              `${rpcCalls(x).length} A2A request(s), none with A2A-Extensions or Message.extensions naming ${uris.join(', ') || 'a card extension'}`,
            ),
            claimEvidence('decision: escalated'),
          ],
          { basis: 'claims' },
        );
    }
    return met(
      unseen.length
        ? `claims agree with the ledger; ${unseen.map((t) => t.id).join(', ')} not reported, and rightly: no answer, event or push ever carried ${unseen.length === 1 ? 'its id' : 'their ids'} to the client`
        : 'claims agree with the ledger',
      unseen.map((t) => ledgerEvidence(t.mintedSeq, `${describeTask(t)}; its id never reached the client`)),
    );
  },
};

/**
 * Whether a task's id reached the client: an answer that carried it whole (not one the peer cut), a
 * stream event or a genuine push of the task, a listing whose body named it, or a request of the
 * client's that named it (it knew it then).
 */
function idReached(x: GradeInput, taskId: string): boolean {
  return x.events.some(
    (e) =>
      (e.kind === 'sse' && e.taskId === taskId && deliveredEvent(x, e)) ||
      (e.kind === 'push-attempt' && e.taskId === taskId && e.genuine !== false && reached(e)) ||
      (e.kind === 'http' &&
        ((e.taskId === taskId && grantedWhole(e)) ||
          paramsName(e, taskId) ||
          (grantedWhole(e) && JSON.stringify(e.responseBody?.json ?? e.responseBody?.text ?? '').includes(taskId)))),
  );
}
