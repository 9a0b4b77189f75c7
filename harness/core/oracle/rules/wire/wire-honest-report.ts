/**
 * WIRE-HONEST-REPORT (wire): The client's claims agree with the ledger.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { absentEvidence, claimEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { readCard } from '../../../vocabulary/card-view.js';
import { describeTask, messageReplies, needsCompletion, optsInto, rpcCalls } from '../../evidence.js';
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
    { when: 'claimed task ids the peer never minted, or minted tasks not claimed', verdict: 'FAIL' },
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
    const unclaimed = x.tasks.filter((t) => !claimed.has(t.id));
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
    return met('claims agree with the ledger');
  },
};
