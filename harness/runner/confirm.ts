/**
 * A failure is the client's only where it does not rest on the harness's own delay (DESIGN.md §3).
 * A TIMEOUT or FAIL that a run got while the harness lagged (lag.ts) is run again on a drained lane,
 * where nothing else of the harness's runs: a failure that does not come back there is not graded as
 * the client's; one that does is, whatever the load. Every attempt is kept (`attempts`) with its
 * verdict and the lag it met, and the report shows them.
 */
import { checkBehind, type Attempt, type ScenarioResult } from '../core/results.js';

/** Attempts in all, the first included: a re-run that lagged again and failed again gets one more. */
export const MAX_ATTEMPTS = 3;

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
 * The result to report: `first` where it needs no confirmation; otherwise the first re-run (each from
 * `again`, on a drained lane) that is not a failure, or that failed while the harness was quiet (the
 * failure reproduces), or the last of MAX_ATTEMPTS; the earlier attempts kept on it.
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
