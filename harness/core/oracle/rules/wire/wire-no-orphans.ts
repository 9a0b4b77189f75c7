/**
 * WIRE-NO-ORPHANS (wire): Every task the client caused is terminal or canceled at the end.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { isTerminal } from '../../../transcript.js';
import { needsCompletion, taskEvidence } from '../../evidence.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { SEED000_ORPHAN } from './shared.js';

export const WIRE_NO_ORPHANS: RuleOf<'WIRE-NO-ORPHANS'> = {
  id: 'WIRE-NO-ORPHANS',
  title: 'Every task the client caused is terminal or canceled at the end',
  family: 'wire',
  scope: 'always',
  sources: [
    SEED000_ORPHAN,
    {
      doc: 'docs/duties.md',
      section: '5 Tasks left behind',
      quote: "Tasks a client abandons pile up on the agent silently: nothing on the client's side, whose credentials stay valid, ever reports them.",
      level: 'field',
      role: 'harm',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.3.3',
      quote: 'Operations return immediately with either Task objects or Message objects, and when a Task is returned, processing continues in the background.',
    },
  ],
  grades: [
    {
      when: 'a task the client caused is neither terminal nor canceled when the scenario ends (A2A sets no duty to cancel; this is the harm docs/duties.md §5 describes)',
      verdict: 'FAIL (harm)',
    },
  ],
  notBinding: ['fire-and-forget: tasks are left to the peer (INFORMATIONAL)'],
  applies(s) {
    return needsCompletion(s.intent)
      ? binds('the intent is driven to a terminal state within the session', ['proceed', 'downgrade', 'reject', 'escalate'])
      : notBinding('fire-and-forget: tasks are left to the peer');
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const left = x.tasks.filter((t) => !isTerminal(t.state));
    if (left.length > 0) return harm(`${left.length} task(s) left neither terminal nor canceled`, taskEvidence(x, left));
    return met(x.tasks.length ? 'every task the client caused is terminal' : 'no task was minted');
  },
};
