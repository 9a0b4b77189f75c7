/**
 * WIRE-DEADLINE (wire): A decision within the deadline, and a terminal state seen when the client proceeded.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { verdict, wireEvidence } from '../../../verdict.js';
import { decisionSeq, needsCompletion, taskEvidence, terminalSeenAt } from '../../evidence.js';
import { harm, met, timeout, type RuleOf } from '../../rule.js';
import { always } from './shared.js';

export const WIRE_DEADLINE: RuleOf<'WIRE-DEADLINE'> = {
  id: 'WIRE-DEADLINE',
  title: 'A decision within the deadline, and a terminal state seen when the client proceeded',
  family: 'wire',
  scope: 'always',
  sources: [
    {
      doc: 'docs/duties.md',
      section: '2 Push callbacks the receiver cannot take',
      quote:
        'A client that waits for a push that can never arrive leaves the task working until its own timeout: in the incident behind this duty, forty minutes.',
      level: 'field',
      role: 'harm',
    },
    {
      doc: 'a2a-conformance/1',
      section: 'docs/protocol.md, Deadlines',
      quote: "A client MUST send the run's `result` before `deadlineMs` has passed.",
      level: 'MUST',
    },
  ],
  limits: [
    { doc: 'a2a-conformance/1', section: 'docs/protocol.md, Deadlines', quote: '`deadlineMs` counts from the moment the client holds the `run` message.' },
  ],
  grades: [
    { when: 'no decision by the deadline', verdict: 'TIMEOUT' },
    { when: 'the client crashed, or gave no valid result', verdict: 'FAIL' },
    {
      when: 'it proceeded, but never saw a terminal state of its task (a GetTask/SendMessage/CancelTask answer, an SSE event or a delivered push carrying it, or a CancelTask refused with TaskNotCancelableError while the task had ended, §3.3.2)',
      verdict: 'FAIL (harm)',
    },
  ],
  notBinding: [],
  applies: always,
  grade(_b, x) {
    const at = decisionSeq(x);
    const decided = Number.isFinite(at) ? [wireEvidence(at, `the runner's view: ${x.outcome.kind}`)] : [];
    if (x.outcome.kind === 'timeout') return timeout(`no decision within the deadline (${x.outcome.deadlineMs} ms)`, [...decided, ...taskEvidence(x)]);
    if (x.outcome.kind === 'crashed')
      return verdict(
        'FAIL',
        `the client gave no valid result: ${x.outcome.reason}`,
        [...decided, wireEvidence(Number.isFinite(at) ? at : undefined, `the client's channel: ${x.outcome.reason}`)],
        { basis: 'crash' },
      );
    const d = x.claims?.decision;
    if ((d === 'proceeded' || d === 'downgraded' || d === 'escalated') && needsCompletion(x.intent) && x.tasks.length > 0) {
      const unseen = x.tasks.filter((t) => terminalSeenAt(x, t.id) === undefined);
      if (unseen.length > 0) return harm(`the client ${d} but never saw a terminal state of its task`, taskEvidence(x, unseen));
      return met(
        'decided in time and saw a terminal state',
        x.tasks.map((t) => wireEvidence(terminalSeenAt(x, t.id), `terminal state of ${t.id} seen`)),
      );
    }
    return met(`decided in time (${d})`, decided);
  },
};
