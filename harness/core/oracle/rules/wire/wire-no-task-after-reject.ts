/**
 * WIRE-NO-TASK-AFTER-REJECT (wire): A client that says it rejected (or declined the task class) left no task behind.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { claimEvidence } from '../../../verdict.js';
import { canceledByClient, refusedCancel, taskEvidence } from '../../evidence.js';
import { harm, informational, met, type RuleOf } from '../../rule.js';
import { always, SEED000_ORPHAN } from './shared.js';

export const WIRE_NO_TASK_AFTER_REJECT: RuleOf<'WIRE-NO-TASK-AFTER-REJECT'> = {
  id: 'WIRE-NO-TASK-AFTER-REJECT',
  title: 'A client that says it rejected (or declined the task class) left no task behind',
  family: 'wire',
  scope: 'always',
  sources: [
    SEED000_ORPHAN,
    { doc: 'a2a-conformance/1', section: 'docs/protocol.md, result', quote: '`rejected` means declined before minting any task', level: 'MUST', role: 'harm' },
  ],
  grades: [
    { when: 'decision `rejected` or `unsupported`, and a task was minted that the client did not cancel itself', verdict: 'FAIL (harm)' },
    { when: 'a task the client minted and canceled itself before its decision', verdict: 'a probe: PASS, named in the reason' },
    {
      when: 'a probe whose cancel was refused with TaskNotCancelableError because the runtime had already ended it (§3.3.2): the client canceled as soon as it could',
      verdict: 'a probe: PASS, named in the reason',
    },
  ],
  notBinding: ['any other decision: INFORMATIONAL'],
  applies: always,
  grade(_b, x) {
    const d = x.claims?.decision;
    if (d !== 'rejected' && d !== 'unsupported') return informational(`does not apply: the client reported ${d ?? 'nothing'}`);
    // A probe the runtime ended before the client's cancel reached it was canceled as soon as the client could.
    const canceled = (t: (typeof x.tasks)[number]) => canceledByClient(t, x) || refusedCancel(x, t.id) !== undefined;
    const probes = x.tasks.filter(canceled);
    const kept = x.tasks.filter((t) => !canceled(t));
    if (kept.length > 0)
      return harm(`the client reported ${d} but minted ${kept.length} task(s) it did not cancel`, [...taskEvidence(x, kept), claimEvidence(`decision: ${d}`)]);
    if (probes.length > 0)
      return met(`reported ${d}; ${probes.length} probe task(s), each canceled by the client before its decision`, taskEvidence(x, probes));
    return met(`reported ${d} and no task was minted`);
  },
};
