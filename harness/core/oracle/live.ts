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
  'CREDENTIAL-SCOPE': 'the origins each credential was sent to',
  'WIRE-NO-BLIND-RETRY': 'each failed call and what the client sent after it',
  'WIRE-HONEST-REPORT': "the client's report against the tasks the agent's answers named",
  'WIRE-NO-ORPHANS': "each task's last state: on the wire, or read from the agent once the client stopped",
  'WIRE-NO-TASK-AFTER-REJECT': 'the tasks minted before a rejection, and the cancels sent',
  'WIRE-DEADLINE': 'whether the client saw its task end before it stopped',
  'STREAM-RECOVERY': 'with --cut-streams: what the client did after a stream the proxy ended',
};

/** Rules a live run grades beside the scenario's own and the cross-cutting ones. */
export const LIVE_ALSO: RuleId[] = ['STREAM-RECOVERY'];

/** A check of a live run: as graded where the rule is measured, else reported as not measured. */
export function liveCheck(c: Check): Check {
  if (c.rule in LIVE_MEASURED || c.rule.startsWith('VENDOR:') || c.rule === 'HARNESS') return c;
  return {
    ...c,
    verdict: 'INFORMATIONAL',
    reason: `not measured against a live agent: ${c.rule} reads what a scripted peer knows of its own runtime (would read ${c.verdict}: ${c.reason})`,
  };
}
