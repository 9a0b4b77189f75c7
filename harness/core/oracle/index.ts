/**
 * The oracle: a pure function from (ground truth, profile, intent, wire evidence, claims) to checks
 * and a verdict (docs/architecture.md). It never imports a client, and no client imports it.
 *
 * A scenario is graded by its own rule, by the rule that stands in for it where it does not bind (or
 * where the client did not take its way), then by every cross-cutting rule. The client's words never
 * outrank the wire: `unsupported` replaces only the verdict of the scenario's own rule (and its
 * stand-in), never harm, and every other check still runs.
 */
import { LIVE_ALSO, liveCheck, stalledCheck } from './live.js';
import { claimEvidence, scenarioVerdict, toCheck, verdict, wireEvidence, type Check, type Verdict, type VerdictKind } from '../verdict.js';
import type { TaskRecord } from '../transcript.js';
import { decisionSeq, jwksFetches, probeTasks, situationOf, type GradeInput, type Situation } from './evidence.js';
import { breachOf } from './rules/trust/shared.js';
import { contestedCanonicalForm } from '../card-canonical.js';
import type { Applicability } from './rule.js';
import { RULES, ruleById, type Rule } from './rules.js';
import { gradeAssertions } from './assertions.js';
import { levelRank, upFrontMissFails } from '../sources.js';

export type { GradeInput, RunOutcome } from './evidence.js';
export { RULES, ruleById, CROSS_CUTTING, RULE_IDS, isRuleId, type Rule, type RuleId } from './rules.js';

export interface Grade {
  verdict: VerdictKind;
  checks: Check[];
}

/** Grades one scenario run: its own rule (and its stand-in), then every cross-cutting check. */
export function grade(x: GradeInput): Grade {
  const s = situationOf(x);
  const checks: Check[] = [];
  const declined = x.claims?.decision === 'unsupported' && x.tasks.length === 0;
  const graded = new Set<string>();
  const run = (rule: Rule, standsForPrimary: boolean, sit: Situation = s, input: GradeInput = x): { b: Applicability; v: Verdict } => {
    graded.add(rule.id);
    const b = rule.applies(sit);
    // The cap bounds the scenario's own rule and its stand-in: the sources it speaks of are theirs.
    let v = standsForPrimary ? capped(rule.grade(b, input), x.scenario.levelCap) : rule.grade(b, input);
    if (standsForPrimary && declined && v.basis !== 'harm')
      v = verdict(
        'UNSUPPORTED',
        `the client declined task class ${x.intent.taskClass} as unsupported and minted no task (without that, ${rule.id} would say ${v.kind}: ${v.reason})`,
        [claimEvidence('decision: unsupported'), ...v.evidence],
        { basis: 'unsupported' },
      );
    checks.push(toCheck(rule.id, v, rule.sources));
    return { b, v };
  };

  let decidedBy = x.scenario.rule;
  const primary = ruleById(x.scenario.rule);
  if (!primary) checks.push(toCheck(x.scenario.rule, verdict('ERROR', `no rule ${x.scenario.rule}`, [], { basis: 'harness' })));
  else {
    const { b, v } = run(primary, true);
    if (!b.binds && b.gradedBy && b.gradedBy !== primary.id) {
      // The rule names the one that grades this scenario instead: its verdict is the scenario's.
      const other = ruleById(b.gradedBy);
      if (other) {
        run(other, true);
        decidedBy = other.id;
      }
    } else if (primary.otherwise && (b.binds ? v.basis !== 'met' : !b.final)) {
      // "Graded by the rule it would otherwise hit": as if the client had no extension to take this rule's way.
      const other = ruleById(primary.otherwise);
      if (other) {
        const without = { ...x.profile, knownExtensions: [] };
        const r = run(other, true, { ...s, profile: without }, { ...x, profile: without });
        if (!b.binds && r.b.binds) decidedBy = other.id;
      }
    }
  }
  for (const rule of RULES) if (rule.scope === 'always' && !graded.has(rule.id)) run(rule, false);
  // A live agent behind the proxy: a few rules more that its wire shows; afterwards only the measured ones grade.
  const live = !!x.scenario.peer.live;
  if (live) for (const id of LIVE_ALSO) if (!graded.has(id) && ruleById(id)) run(ruleById(id)!, false);
  // The scenario author's own assertions, each a check of its own.
  checks.push(...gradeAssertions(x, declined));
  const contested = contestedRejection(x);
  if (contested)
    for (const [i, c] of checks.entries())
      if (c.verdict === 'FAIL' && c.basis === 'over-rejection') checks[i] = { ...c, verdict: 'NON_STRICT', reason: `${c.reason}; ${contested}` };

  const shown = live ? checks.map(liveCheck) : x.scenario.peer.runtime.stalls ? checks.map(stalledCheck) : checks;
  return harnessFailure(x, shown) ?? { verdict: scenarioVerdict(shown, decidedBy), checks: shown };
}

/** A fault of the harness grades nothing of the client's: the checks stay visible, not graded (undefined where the harness did not fail). */
function harnessFailure(x: GradeInput, checks: Check[]): Grade | undefined {
  const harnessErrors = x.events.filter((e) => e.kind === 'harness' && e.level === 'error');
  if (harnessErrors.length === 0) return undefined;
  const notGraded = checks.map((c) => ({
    ...c,
    verdict: 'INFORMATIONAL' as const,
    reason: `not graded, the harness failed in this run (would be ${c.verdict}: ${c.reason})`,
  }));
  const error = toCheck(
    'HARNESS',
    verdict(
      'ERROR',
      'the harness itself failed during this run; the client is not blamed',
      harnessErrors.map((e) => wireEvidence(e.seq, e.kind === 'harness' ? e.message : '')),
      { basis: 'harness' },
    ),
  );
  return { verdict: 'ERROR', checks: [error, ...notGraded] };
}

/**
 * A soundly signed card whose canonical form the published readings of §8.4.1 disagree on (A2A #2122):
 * a client that verified it (a JWKS fetch before its decision, on the wire) and refused it followed a
 * published reading, so its refusal is at worst NON_STRICT, never FAIL (docs/rules.md, principle 8: a contested
 * source grades at its weaker reading). Returns the note that says so, or undefined.
 */
function contestedRejection(x: GradeInput): string | undefined {
  const signing = x.scenario.peer.signing;
  if (!signing || !Array.isArray(x.card.signatures)) return undefined;
  const s = situationOf(x);
  if (breachOf(signing, s.truth.vendorKeysTrusted === true)) return undefined;
  const where = contestedCanonicalForm(x.card);
  if (where.length === 0) return undefined;
  const decided = decisionSeq(x);
  if (!jwksFetches(x).some((e) => e.seq < decided)) return undefined;
  return `the card's canonical form is contested (A2A #2122): the harness signs ${where.slice(0, 3).join(', ')}, which the clean-empty reading of @a2a-js/sdk 1.3.0 and a2a-python leaves out, so a verifier that follows that published reading refuses this sound signature: NON_STRICT, not FAIL`;
}

/**
 * An up-front miss in a scenario that carries a source beyond its scope grades at the scenario's
 * cap (docs/rules.md, principle 8: a source grades at its weaker reading): by the level, as every up-front miss
 * does, never by a branch of its own. Harm, over-rejection and the rest are untouched.
 */
function capped(v: Verdict, cap: GradeInput['scenario']['levelCap']): Verdict {
  if (!cap || v.basis !== 'up-front' || !v.level || levelRank(cap.level) >= levelRank(v.level)) return v;
  return {
    ...v,
    kind: upFrontMissFails(cap.level) ? 'FAIL' : 'NON_STRICT',
    level: cap.level,
    reason: `${v.reason}; graded at level ${cap.level}: ${cap.why}`,
  } as Verdict;
}

/** The ledger with each probe task marked (docs/rules.md, "Probes": "The ledger in `results.json` marks a probe task"), as results.json and the report show it. */
export function markProbes(tasks: TaskRecord[], x: GradeInput): TaskRecord[] {
  const ids = new Set(probeTasks(x).map((t) => t.id));
  return tasks.map((t) => (ids.has(t.id) ? { ...t, probe: true } : t));
}
