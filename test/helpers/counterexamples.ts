/**
 * The mutation check's counterexamples, recorded (issue 44: a sweep per naive mistake was a third of
 * `npm test`). For each naive mistake a property family covers, `npm run golden` sweeps that family
 * alone against the mistake (seed 1, 100 runs, shrunk within a second), as the check did live, and
 * writes what it found to test/golden/counterexamples.json: the path of the shrunk case and its
 * verdict. The check then replays each path live (one case, real TLS): the family's own generator
 * makes the case again from its seed and path, so a counterexample that still fails is one the family
 * still finds within its first 100 runs. A changed family or client whose recorded case no longer
 * fails is swept again by `npm run golden`; the CLI's own sweeps, shrinks and exports stay live
 * (exportCheck, three families).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult } from '../../harness/core/results.js';
import { MISTAKES, type MistakeInfo as NaiveMistake } from '../../clients/naive/index.js';
import { FAMILIES } from '../../harness/properties/families/index.js';
import type { Family } from '../../harness/properties/family.js';
import { runProperties } from '../../harness/runner/properties/run.js';
import { GOLDEN_DIR } from './golden.js';

/** Every naive mistake with the family that covers its rule (by the rules it names, or those it provokes). */
export const COVERED = MISTAKES.flatMap((m) => {
  const family = FAMILIES.find((f) => [...f.rules, ...(f.provokes ?? [])].includes(m.caughtBy as never));
  return family ? [[m.name, m, family] as const] : [];
});

export const COUNTEREXAMPLES_FILE = join(GOLDEN_DIR, 'counterexamples.json');

/** The sweep each counterexample comes from. */
export const SWEEP = { seed: 1, runs: 100, shrinkBudgetMs: 1000 } as const;

export interface Counterexample {
  family: string;
  seed: number;
  /** fast-check's path of the shrunk case: its first number is the case's index in the sweep. */
  path: string;
  /** The path of the sweep's first failure, before shrinking. */
  firstFailure: string;
  verdict: ScenarioResult['verdict'];
  /** The name on the case's card (the replay must make the same card). */
  card: string;
}

export type Counterexamples = Record<string, Counterexample>;

export const readCounterexamples = (): Counterexamples =>
  existsSync(COUNTEREXAMPLES_FILE) ? (JSON.parse(readFileSync(COUNTEREXAMPLES_FILE, 'utf8')) as Counterexamples) : {};

export function writeCounterexamples(all: Counterexamples): void {
  const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(COUNTEREXAMPLES_FILE, `${JSON.stringify(sorted, null, 1)}\n`);
}

const strictFor = (m: NaiveMistake) => m.atLeast === 'NON_STRICT';

/** The family alone swept against the mistake, as the mutation check did live (four lanes: the recorder runs beside nothing). */
export async function sweep(m: NaiveMistake, family: Family) {
  const run = await runProperties({ client: `naive:${m.name}`, families: [family], ...SWEEP, strict: strictFor(m), lanes: 4 });
  const f = run.properties![0]!;
  const ce = run.results[0];
  const found: Counterexample | undefined =
    f.failed && ce?.property
      ? {
          family: family.id,
          seed: SWEEP.seed,
          path: ce.property.path,
          firstFailure: ce.property.firstFailure,
          verdict: ce.verdict,
          card: String((ce.card as { name?: unknown }).name),
        }
      : undefined;
  return { run, found };
}

/** The recorded case replayed: one case, on one lane, generated again from the family's seed and path. */
export async function replay(m: NaiveMistake, family: Family, ce: Counterexample) {
  return runProperties({ client: `naive:${m.name}`, families: [family], seed: ce.seed, path: ce.path, strict: strictFor(m), lanes: 1 });
}
