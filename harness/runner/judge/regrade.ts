/**
 * Grading a recorded run again, from what results.json keeps of it (the served card, the profile, the
 * transcript, the task ledger, the client's report) and the scenario's definition: the oracle is a pure
 * function of those, so a run's verdicts can be checked by anyone holding them (verify-bundle). Only
 * the oracle's checks are compared: the harness's own (HARNESS, CLIENT-PROTOCOL, DIALECT) read what a
 * transcript does not keep (the client's stderr, the served signature as the harness read it).
 */
import { grade, type GradeInput } from '../../core/oracle/index.js';
import type { RunResults, ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario.js';
import type { RunOutcome } from '../../core/oracle/evidence.js';

/** Checks of the harness's own, not the oracle's: never re-graded. */
const HARNESS_CHECKS = new Set(['HARNESS', 'CLIENT-PROTOCOL', 'DIALECT']);

export interface Regraded {
  /** Scenarios graded again, and those whose every oracle check got the same verdict. */
  regraded: number;
  same: number;
  /** Results that could not be graded again, with why (no definition, not graded at all). */
  skipped: Array<{ id: string; why: string }>;
  /** Where a verdict differs: the scenario, the check, what results.json says and what the oracle says now. */
  differences: Array<{ id: string; rule: string; recorded: string; regraded: string }>;
}

function outcomeOf(r: ScenarioResult): RunOutcome | undefined {
  if (r.outcome.kind === 'reported') return { kind: 'reported' };
  if (r.outcome.kind === 'timeout') return { kind: 'timeout', deadlineMs: r.deadlineMs };
  if (r.outcome.kind === 'crashed') return { kind: 'crashed', reason: r.outcome.reason ?? 'crashed' };
  return undefined;
}

/** Grades every result of `run` again with the scenarios given (by id), and compares each oracle check's verdict. */
export function regradeRun(run: Pick<RunResults, 'results'>, scenarios: ReadonlyMap<string, Scenario>): Regraded {
  const out: Regraded = { regraded: 0, same: 0, skipped: [], differences: [] };
  for (const r of run.results) {
    const s = scenarios.get(r.id);
    const outcome = outcomeOf(r);
    if (r.property) {
      out.skipped.push({ id: r.id, why: 'a property case: replay it with `a2a-conformance replay`' });
      continue;
    }
    if (!s) {
      out.skipped.push({ id: r.id, why: 'its scenario definition is not in the bundle' });
      continue;
    }
    if (!outcome) {
      out.skipped.push({ id: r.id, why: `not graded by the oracle (${r.outcome.kind})` });
      continue;
    }
    const input: GradeInput = {
      scenario: s,
      card: r.card,
      profile: r.profile,
      intent: r.intent,
      events: r.transcript,
      // The ledger as the oracle read it: before the run marked its probes.
      tasks: r.ledger.map(({ probe: _probe, ...t }) => t),
      claims: r.claims,
      outcome,
    };
    const now = new Map(grade(input).checks.map((c) => [c.rule, c.verdict]));
    const diffs: Regraded['differences'] = r.checks
      .filter((c) => !HARNESS_CHECKS.has(c.rule))
      .flatMap((c) => (now.get(c.rule) === c.verdict ? [] : [{ id: r.id, rule: c.rule, recorded: c.verdict, regraded: now.get(c.rule) ?? '(no such check)' }]));
    for (const [rule, verdict] of now)
      if (!r.checks.some((c) => c.rule === rule)) diffs.push({ id: r.id, rule, recorded: '(no such check)', regraded: verdict });
    out.regraded++;
    if (diffs.length) out.differences.push(...diffs);
    else out.same++;
  }
  return out;
}
