/**
 * What counts as unexpected, and the exit code (docs/ci.md). Computed from verdicts only,
 * never taken from a test runner.
 */
import type { ScenarioResult } from '../../core/results.js';
import type { VerdictKind } from '../../core/verdict.js';
import { VERDICT_KINDS } from '../../core/verdict.js';

export interface Policy {
  strict: boolean;
}

/** Why a verdict is unexpected under the default policy, or undefined when it is expected. */
export function unexpectedWhy(v: VerdictKind, p: Policy): string | undefined {
  if (v === 'FAIL' || v === 'TIMEOUT') return `${v} is never expected without an expectations file`;
  if (v === 'ERROR') return 'the harness failed';
  if (v === 'NON_STRICT' && p.strict) return 'NON_STRICT is unexpected with --strict';
  return undefined;
}

export function summarize(results: ReadonlyArray<Pick<ScenarioResult, 'verdict'>>): Record<VerdictKind, number> {
  const out = Object.fromEntries(VERDICT_KINDS.map((k) => [k, 0])) as Record<VerdictKind, number>;
  for (const r of results) out[r.verdict]++;
  return out;
}

/** 2: any ERROR (or bad arguments, decided by the CLI); 1: anything unexpected or nothing graded; 0 otherwise. */
export function exitCode(results: ReadonlyArray<Pick<ScenarioResult, 'verdict'>>, unexpected: readonly unknown[]): number {
  if (results.some((r) => r.verdict === 'ERROR')) return 2;
  const graded = results.filter((r) => r.verdict !== 'UNSUPPORTED').length;
  if (graded === 0 || unexpected.length > 0) return 1;
  return 0;
}
