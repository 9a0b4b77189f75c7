/**
 * A failure is the client's only where it does not rest on the harness's own delay (DESIGN.md §3).
 * A TIMEOUT or FAIL that a run got while the harness lagged (lag.ts) is run again on a drained lane,
 * where nothing else of the harness's runs: a failure that does not come back there is not graded as
 * the client's; one that does is, whatever the load. Every attempt is kept (`attempts`) with its
 * verdict and the lag it met, and the report shows them.
 */
import { checkBehind, type Attempt, type ScenarioResult } from '../core/results.js';

/** Attempts in all, the first included: the failure met while the harness lagged, and its re-run on a drained lane. */
export const MAX_ATTEMPTS = 2;

/** The verdicts a lagged run must confirm before they are reported. */
export const isFailure = (r: Pick<ScenarioResult, 'verdict'>) => r.verdict === 'FAIL' || r.verdict === 'TIMEOUT';

/** Whether a result must be confirmed: a failure, in a run during which the harness lagged. */
export function needsConfirmation(r: ScenarioResult, failing: (r: ScenarioResult) => boolean = isFailure): boolean {
  return failing(r) && r.lag?.lagged === true && r.outcome.kind !== 'unsupported' && r.outcome.kind !== 'error';
}

export function attemptOf(r: ScenarioResult): Attempt {
  const c = checkBehind(r);
  return { verdict: r.verdict, reason: c ? `${c.rule}: ${c.reason}`.slice(0, 500) : r.verdict, lag: r.lag!, durationMs: r.durationMs };
}

/**
 * The result to report: `first` where it needs no confirmation; otherwise its re-run (from `again`, on
 * a drained lane): a failure that does not come back there is not the client's, one that does is,
 * whatever the load (MAX_ATTEMPTS bounds it); the earlier attempt is kept on it.
 */
export async function confirm(first: ScenarioResult, again: () => Promise<ScenarioResult>, failing: (r: ScenarioResult) => boolean = isFailure): Promise<ScenarioResult> {
  if (!needsConfirmation(first, failing)) return first;
  const attempts: Attempt[] = [];
  let r = first;
  while (needsConfirmation(r, failing) && attempts.length + 1 < MAX_ATTEMPTS) {
    attempts.push(attemptOf(r));
    r = await again();
  }
  return { ...r, attempts };
}
