/**
 * What a run against a live agent can measure (`proxy`, docs/live.md). The proxy records the wire
 * and the tasks the agent's answers name; it knows nothing the agent did not say. A rule whose grading
 * reads only those is measured; one that needs a scripted peer's truth (what the runtime would have
 * done, a drift it holds back, a signature it broke, a push it forged) is reported, not measured.
 */
import type { Check } from '../verdict.js';
import type { RuleId } from './rules.js';

/** The rules a live run grades, and what each reads there. */
export const LIVE_MEASURED: Partial<Record<RuleId, string>> = {
  'SPEC-INTERFACE-SELECTION': "the card's interfaces in the agent's order, and the interface each call went to",
  'SPEC-A2A-VERSION': 'the A2A-Version header on each call',
  'WIRE-NO-BLIND-RETRY': 'each failed call and what the client sent after it',
  'WIRE-HONEST-REPORT': "the client's report against the tasks the agent's answers named",
  'WIRE-NO-ORPHANS': "each task's last state: on the wire, or read from the agent once the client stopped",
  'WIRE-NO-TASK-AFTER-REJECT': 'the tasks minted before a rejection, and the cancels sent',
  'WIRE-DEADLINE': 'whether the client saw its task end before it stopped',
  'STREAM-RECOVERY': 'with --cut-streams: what the client did after a stream the proxy ended',
};

/** Rules a live run grades beside the scenario's own and the cross-cutting ones. */
export const LIVE_ALSO: RuleId[] = ['STREAM-RECOVERY'];

/**
 * Bases of a verdict that rest on the peer's course: a task that did not complete, a rejection of a
 * card the peer would have honoured. Against a live agent the proxy cannot tell the agent's part (a
 * task it failed, an answer too slow for the deadline, a refusal of its own) from the client's.
 */
const AGENT_COURSE = new Set(['incomplete', 'over-rejection']);

/** A check of a live run: as graded where the rule is measured and its verdict rests on the wire alone, else reported as not measured. */
export function liveCheck(c: Check): Check {
  if (c.rule.startsWith('VENDOR:') || c.rule === 'HARNESS') return c;
  if (!(c.rule in LIVE_MEASURED))
    return {
      ...c,
      verdict: 'INFORMATIONAL',
      reason: `not measured against a live agent: ${c.rule} reads what a scripted peer knows of its own runtime (would read ${c.verdict}: ${c.reason})`,
    };
  if (c.basis && AGENT_COURSE.has(c.basis) && c.verdict !== 'PASS' && c.verdict !== 'INFORMATIONAL')
    return {
      ...c,
      verdict: 'INFORMATIONAL',
      reason: `not measured against a live agent: whether the task could have completed, or the card was one to honour, is the agent's course, which the proxy cannot tell from the client's (would read ${c.verdict}: ${c.reason})`,
    };
  return c;
}

/**
 * A check of a run whose peer stalls its tasks (runtime.stalls, a nemesis fault): a task that did not
 * complete is the peer's doing, so a verdict that rests on it is not the client's; what the client did
 * instead (gave up in time, canceled, reported honestly) is graded by the other rules as usual.
 */
export function stalledCheck(c: Check): Check {
  if (c.basis !== 'incomplete' || c.verdict === 'PASS' || c.verdict === 'INFORMATIONAL') return c;
  return {
    ...c,
    verdict: 'INFORMATIONAL',
    reason: `the peer stalled the task (runtime.stalls): it never ends on its own, so its completion was out of the client's reach (would read ${c.verdict}: ${c.reason})`,
  };
}
