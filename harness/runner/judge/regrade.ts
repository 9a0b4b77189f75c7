/**
 * Grading a recorded run again, from what results.json keeps of it (the served card, the profile, the
 * transcript, the task ledger, the client's report) and the scenario's definition: the oracle is a pure
 * function of those, so a run's verdicts can be checked by anyone holding them (verify-bundle). Each
 * oracle check is compared whole (verdict, basis, level), and each scenario's verdict; the harness's
 * own checks (HARNESS, CLIENT-PROTOCOL, DIALECT) read what a transcript does not keep (the client's
 * stderr, the served signature as the harness read it) and are not graded again. What cannot be graded
 * again is a problem, never a pass: a result with no definition, a premise (intent, profile) that is
 * not its scenario's, a summary that does not count the results.
 */
import { grade, type GradeInput } from '../../core/oracle/index.js';
import type { RunOutcome } from '../../core/oracle/evidence.js';
import type { RunResults, ScenarioResult } from '../../core/results.js';
import { unmetConstraint } from '../../core/scenario/profile.js';
import { overlay } from '../../core/scenario/nemesis.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { VERDICT_KINDS } from '../../core/verdict.js';

/** Checks of the harness's own, not the oracle's: never graded again. */
const HARNESS_CHECKS = new Set(['HARNESS', 'CLIENT-PROTOCOL', 'DIALECT']);

export interface Regraded {
  /** Scenarios graded again, and those whose every oracle check and verdict came out as recorded. */
  regraded: number;
  same: number;
  /** Results not graded again for a reason that is no fault (a harness ERROR, a task class the client does not take). */
  skipped: Array<{ id: string; why: string }>;
  /** What does not hold: a check or verdict graded otherwise, a result that cannot be graded again, a summary that does not add up. */
  differences: Array<{ id: string; rule: string; recorded: string; regraded: string }>;
}

function outcomeOf(r: ScenarioResult): RunOutcome | undefined {
  if (r.outcome.kind === 'reported') return { kind: 'reported' };
  if (r.outcome.kind === 'timeout') return { kind: 'timeout', deadlineMs: r.deadlineMs };
  if (r.outcome.kind === 'crashed') return { kind: 'crashed', reason: r.outcome.reason ?? 'crashed' };
  return undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** A check as compared: what grades a client (its verdict, why, and at which level). */
const graded = (c: { verdict: string; basis?: string; level?: string }) => `${c.verdict}${c.basis ? ` (${c.basis}${c.level ? `, ${c.level}` : ''})` : ''}`;

/** One result graded again: its differences, or why it could not be. */
function regradeOne(r: ScenarioResult, s: Scenario | undefined, out: Regraded): void {
  const problem = (rule: string, recorded: string, regraded: string) => {
    out.differences.push({ id: r.id, rule, recorded, regraded });
  };
  if (!s) {
    problem('(definition)', 'a result', 'no scenario definition in the bundle: it cannot be graded again');
    return;
  }
  const outcome = outcomeOf(r);
  if (!outcome) {
    // Not graded by the oracle: a harness ERROR, or a task class the client does not take.
    const want = r.outcome.kind === 'unsupported' ? 'UNSUPPORTED' : 'ERROR';
    if (r.verdict !== want) {
      problem('(verdict)', r.verdict, `${want} (the run ended ${r.outcome.kind})`);
      return;
    }
    out.skipped.push({ id: r.id, why: `not graded by the oracle (${r.outcome.kind})` });
    return;
  }
  // The premise the oracle reads beside the transcript: the scenario's own intent, and a profile that meets its constraints.
  if (!same(r.intent, s.intent)) {
    problem('(intent)', 'the intent recorded', "not the scenario's intent");
    return;
  }
  // Not the ones a run fills in its own way: the trust anchors' URLs per run, and the dialects and extensions
  // as the client declared them (the harness never hands a client one it did not; docs/protocol.md). A
  // scenario names no bindings (ProfileConstraints).
  const { trustedJwks: _filledPerRun, dialects: _declared, knownExtensions: _implemented, ...constraints } = s.profileConstraints;
  const unmet = unmetConstraint(r.profile, constraints);
  if (unmet) {
    problem('(profile)', 'the profile recorded', `does not meet the scenario's constraints: ${unmet}`);
    return;
  }
  const input: GradeInput = {
    // The deadline the client was given (scaled by the run's --deadline-multiplier, or stretched on a re-run), as the run's oracle read it.
    scenario: { ...s, deadlineMs: r.deadlineMs },
    card: r.card,
    profile: r.profile,
    intent: r.intent,
    events: r.transcript,
    // The ledger as the oracle read it: before the run marked its probes.
    tasks: r.ledger.map(({ probe: _probe, ...t }) => t),
    claims: r.claims,
    outcome,
  };
  let g: ReturnType<typeof grade>;
  try {
    g = grade(input);
  } catch (err) {
    problem('(oracle)', r.verdict, `could not be graded again: ${(err as Error).message}`);
    return;
  }
  const before = out.differences.length;
  const now = new Map(g.checks.map((c) => [c.rule, c]));
  for (const c of r.checks) {
    if (HARNESS_CHECKS.has(c.rule)) continue;
    const n = now.get(c.rule);
    if (!n || graded(n) !== graded(c)) problem(c.rule, graded(c), n ? graded(n) : '(no such check)');
  }
  for (const [rule, c] of now) if (!r.checks.some((x) => x.rule === rule)) problem(rule, '(no such check)', graded(c));
  // The scenario's verdict: the oracle's, but ERROR where the harness's own check failed, and UNSUPPORTED where the run
  // credited nothing to a client that never spoke A2A (a PASS or INFORMATIONAL turned, docs/rules.md principle 5).
  const harnessError = r.checks.some((c) => c.rule === 'HARNESS' && c.verdict === 'ERROR');
  const verdictHolds =
    r.verdict === g.verdict ||
    (harnessError && r.verdict === 'ERROR') ||
    (r.verdict === 'UNSUPPORTED' && (g.verdict === 'PASS' || g.verdict === 'INFORMATIONAL'));
  if (!verdictHolds) problem('(verdict)', r.verdict, g.verdict);
  out.regraded++;
  if (out.differences.length === before) out.same++;
}

/**
 * Grades every result of a scenario run again with the scenarios given (by id), and checks what the
 * run says of its results: its summary counts them.
 */
export function regradeRun(run: Pick<RunResults, 'results' | 'summary'>, scenarios: ReadonlyMap<string, Scenario>): Regraded {
  const out: Regraded = { regraded: 0, same: 0, skipped: [], differences: [] };
  for (const r of run.results) {
    if (r.property) {
      out.differences.push({
        id: r.id,
        rule: '(property)',
        recorded: 'a property case',
        regraded: 'in a scenario run: replay it with `a2a-conformance replay`',
      });
      continue;
    }
    // A run's nemesis laid its faults on the scenario's peer (results keep which): graded again on that peer.
    const s = scenarios.get(r.id);
    regradeOne(r, s && r.nemesis?.laid.length ? overlay(s, { faults: r.nemesis.laid }).scenario : s, out);
  }
  for (const k of VERDICT_KINDS) {
    const n = run.results.filter((r) => r.verdict === k).length;
    if ((run.summary[k] ?? 0) !== n) out.differences.push({ id: '(summary)', rule: k, recorded: String(run.summary[k] ?? 0), regraded: String(n) });
  }
  return out;
}
