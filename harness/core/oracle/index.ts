/**
 * The oracle: a pure function from (ground truth, profile, intent, wire evidence, claims) to checks
 * and a verdict (DESIGN.md §2). It never imports a client, and no client imports it.
 *
 * A scenario is graded by its own rule (and the rule that stands in where it does not bind), then
 * by every cross-cutting rule. The client's words never outrank the wire: `unsupported` replaces
 * only the verdict of the scenario's own rule, never harm, and every other check still runs.
 */
import { claimEvidence, scenarioVerdict, toCheck, verdict, wireEvidence, type Check, type Verdict, type VerdictKind } from '../verdict.js';
import { situationOf, type GradeInput } from './evidence.js';
import type { Rule } from './rule.js';
import { RULES, ruleById } from './rules.js';

export type { GradeInput, RunOutcome } from './evidence.js';
export { RULES, ruleById, CROSS_CUTTING, RULE_IDS, isRuleId, type Rule, type RuleId } from './rules.js';

export interface Grade {
  verdict: VerdictKind;
  checks: Check[];
}

/** Grades one scenario run: its own rule, then every cross-cutting check. */
export function grade(x: GradeInput): Grade {
  const s = situationOf(x);
  const checks: Check[] = [];
  const harnessErrors = x.events.filter((e) => e.kind === 'harness' && e.level === 'error');
  if (harnessErrors.length > 0)
    checks.push(toCheck('HARNESS', verdict('ERROR', 'the harness itself failed during this run; the client is not blamed', harnessErrors.map((e) => wireEvidence(e.seq, e.kind === 'harness' ? e.message : '')), { basis: 'harness' })));

  const declined = x.claims?.decision === 'unsupported' && x.tasks.length === 0;
  const graded = new Set<string>();
  const run = (rule: Rule, standsForPrimary: boolean): { b: ReturnType<Rule['applies']>; v: Verdict } => {
    graded.add(rule.id);
    const b = rule.applies(s);
    let v = rule.grade(b, x);
    if (standsForPrimary && declined && v.basis !== 'harm')
      v = verdict('UNSUPPORTED', `the client declined task class ${x.intent.taskClass} as unsupported and minted no task (without that, ${rule.id} would say ${v.kind}: ${v.reason})`, [claimEvidence('decision: unsupported'), ...v.evidence], { basis: 'unsupported' });
    checks.push(toCheck(rule.id, v, rule.sources));
    return { b, v };
  };

  const primary = ruleById(x.scenario.rule);
  if (!primary) checks.push(toCheck(x.scenario.rule, verdict('ERROR', `no rule ${x.scenario.rule}`, [], { basis: 'harness' })));
  else {
    const { b, v } = run(primary, true);
    const stand = !b.binds ? (b.gradedBy ?? primary.otherwise) : v.basis !== 'met' ? primary.otherwise : undefined;
    const other = stand && stand !== primary.id ? ruleById(stand) : undefined;
    if (other) run(other, true);
  }
  for (const rule of RULES) if (rule.scope === 'always' && !graded.has(rule.id)) run(rule, false);
  return { verdict: scenarioVerdict(checks, x.scenario.rule), checks };
}
