/**
 * A failure is the client's only where it does not rest on the harness's own delay (docs/rules.md, principle 7).
 * A TIMEOUT, or a FAIL or NON_STRICT that rests on time (restsOnTime), that a run got while the harness lagged
 * (lag.ts) is run again on a drained lane,
 * where nothing else of the harness's runs, with the time the harness owed the first attempt added to
 * the client's deadline (stretchMs): a failure that does not come back there is not graded as
 * the client's; one that does is, whatever the load. So is a run whose verdict turns on two events the
 * wire cannot order (basis `order`) that crossed while the harness lagged, whatever its verdict: the
 * second sample is reported. Every attempt is kept (`attempts`) with its
 * verdict and the lag it met, and the report shows them.
 */
import { checkBehind, type Attempt, type ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { owedMs } from '../../net/lag.js';

/** Attempts in all, the first included: the failure met while the harness lagged, and its re-run on a drained lane. */
export const MAX_ATTEMPTS = 2;

/** The verdicts a lagged run must confirm before they are reported: a NON_STRICT that rests on time too (a stream held into the deadline). */
const isFailure = (r: Pick<ScenarioResult, 'verdict'>) => r.verdict === 'FAIL' || r.verdict === 'TIMEOUT' || r.verdict === 'NON_STRICT';

/** The checks that decided a verdict: those at its grade (a FAIL's FAIL and TIMEOUT checks, a NON_STRICT's NON_STRICT ones). */
const deciding = (r: Pick<ScenarioResult, 'verdict' | 'checks'>) =>
  r.checks.filter((c) => (r.verdict === 'NON_STRICT' ? c.verdict === 'NON_STRICT' : c.verdict === 'FAIL' || c.verdict === 'TIMEOUT'));

/**
 * Why a check can rest on time: no decision by the deadline, a task started and not seen through, a
 * refusal a client's own budget running out looks like, a rejection made before the card arrived;
 * and the cross-cutting checks of a client that stopped at its budget (a stall, a task left open).
 * What cannot: an up-front miss, a duty missed on a request, a blind retry, a certificate accepted,
 * a crash of the client's own: the wire shows them however fast the harness answers. A claim the
 * ledger contradicts, a task after a reported rejection, or a rule's harm counts as time's only beside
 * a failing stall or orphan check (it is the same task, left open by a client that never heard of it
 * in time); alone, it is the wire's.
 */
const TIMING_BASES = new Set(['deadline', 'incomplete', 'over-rejection', 'no-credit']);
const TIMING_RULES = new Set(['WIRE-DEADLINE', 'WIRE-NO-ORPHANS']);
const EVIDENT_BASES = new Set(['up-front', 'duty', 'record', 'crash', 'assertion']);
const EVIDENT_RULES = new Set(['WIRE-NO-BLIND-RETRY', 'SPEC-A2A-VERSION', 'SPEC-TLS-VERIFY']);

/**
 * Whether a failure rests on time: a TIMEOUT or a deciding check of a kind a slow harness can cause,
 * and no deciding check the wire shows whatever the speed (that one is reported as it came).
 */
export function restsOnTime(r: Pick<ScenarioResult, 'verdict' | 'checks'>): boolean {
  const failing = deciding(r);
  const timed = (c: (typeof failing)[number]) =>
    c.verdict === 'TIMEOUT' || TIMING_BASES.has(c.basis ?? '') || (TIMING_RULES.has(c.rule) && c.basis !== 'crash');
  const stall = failing.some((c) => TIMING_RULES.has(c.rule) && c.basis !== 'crash');
  // A claim the ledger contradicts, a task after a reported rejection, a rule's harm: beside a stall or
  // an orphan they are that same task, which the client never heard of in time; alone, the wire's.
  const evident = failing.some((c) => !timed(c) && (EVIDENT_BASES.has(c.basis ?? '') || EVIDENT_RULES.has(c.rule) || !stall));
  return !evident && (r.verdict === 'TIMEOUT' || failing.some(timed));
}

/**
 * A run during which the harness owed the client at least this share of its time barely ran: whatever
 * the client did there (its own requests timing out on its side, its budget spent waiting for us)
 * is confirmed, whichever check failed.
 */
const STARVED_SHARE = 0.5;

/** Whether the harness owed the run most of its time. */
export const starved = (r: Pick<ScenarioResult, 'lag'>) => !!r.lag && owedMs(r.lag) >= r.lag.wallMs * STARVED_SHARE;

/**
 * Whether a result must be confirmed: a failure in a run during which the harness lagged, that rests
 * on time, or of any kind where the harness owed the run most of its time.
 */
export function needsConfirmation(r: ScenarioResult, failing: (r: ScenarioResult) => boolean = isFailure): boolean {
  if (r.lag?.lagged !== true || r.outcome.kind === 'unsupported' || r.outcome.kind === 'error') return false;
  // Two events the verdict turns on crossed while the harness lagged (basis `order`): whatever the verdict, a
  // second sample on a drained lane, where they need not cross, is the one reported (a lenient verdict is a flake too).
  if (crossed(r)) return true;
  // A starved run's NON_STRICT is confirmed only where it rests on time: a duty missed on a request is the wire's however slow the run.
  const timed = restsOnTime(r) || (starved(r) && r.verdict !== 'NON_STRICT');
  return failing(r) && timed;
}

/** Whether a check's verdict turns on two events the wire cannot order (basis `order`). */
const crossed = (r: Pick<ScenarioResult, 'checks'>) => r.checks.some((c) => c.basis === 'order');

function attemptOf(r: ScenarioResult): Attempt {
  const c = checkBehind(r);
  return {
    verdict: r.verdict,
    reason: c ? `${c.rule}: ${c.reason}`.slice(0, 500) : r.verdict,
    lag: r.lag!,
    durationMs: r.durationMs,
    deadlineMs: r.deadlineMs,
  };
}

/** A re-run's deadline is stretched by at most this many deadlines of the attempt it confirms. */
export const MAX_STRETCH = 2;

/**
 * What the re-run adds to the client's deadline: the time the harness owed the attempt it confirms
 * (its loop running late, or its thread waiting for a core, whichever is more), at most MAX_STRETCH
 * deadlines. On a machine that starves the harness on every attempt, a drained lane alone gives the
 * client none of that time back: a peer that writes at the harness's pace writes less by the deadline
 * (an endless stream line that never reaches the client's own bound, say). A client that holds out to
 * its deadline whatever it is given still does so on the longer one.
 */
export function stretchMs(r: Pick<ScenarioResult, 'lag' | 'deadlineMs'>): number {
  if (!r.lag) return 0;
  return Math.round(Math.min(owedMs(r.lag), r.deadlineMs * MAX_STRETCH));
}

/** The scenario with its deadline stretched by `ms` of the client's time (`multiplier`: the run's --deadline-multiplier, which scales it first). */
export function stretched(s: Scenario, ms: number, multiplier = 1): Scenario {
  return ms > 0 ? { ...s, deadlineMs: s.deadlineMs + Math.round(ms / multiplier) } : s;
}

/**
 * The result to report: `first` where it needs no confirmation; otherwise its re-run (from `again`, on
 * a drained lane, its deadline stretched by `stretchMs` of the attempt before it): a failure that does
 * not come back there is not the client's, one that does is, whatever the load (MAX_ATTEMPTS bounds
 * it); the earlier attempt is kept on it.
 */
export async function confirm(
  first: ScenarioResult,
  again: (stretchMs: number) => Promise<ScenarioResult>,
  failing: (r: ScenarioResult) => boolean = isFailure,
): Promise<ScenarioResult> {
  if (!needsConfirmation(first, failing)) return first;
  const attempts: Attempt[] = [];
  let r = first;
  while (needsConfirmation(r, failing) && attempts.length + 1 < MAX_ATTEMPTS) {
    attempts.push(attemptOf(r));
    r = await again(stretchMs(r));
  }
  return { ...r, attempts };
}
