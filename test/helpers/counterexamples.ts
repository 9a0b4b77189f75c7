/**
 * The mutation check's counterexamples, recorded (issue 44: a sweep per naive mistake was a third of
 * `npm test`). For each naive mistake a property family covers, `npm run golden` sweeps that family
 * alone against the mistake (seed 1, 100 runs, shrunk within a second), as the check did live, and
 * writes what it found to test/golden/counterexamples.json: the path of the shrunk case and its
 * verdict. The check then replays live (one case each, real TLS) the sweep's first failing case and
 * the shrunk one: the family's own generator makes each again from its seed and path, so a first
 * failure that still fails is a case the family still finds within its first 100 runs, and the shrunk
 * one still gives the recorded verdict. A changed family or client whose recorded cases no longer hold
 * is swept again by `npm run golden`; sweeping, shrinking and exporting stay live in three sweeps of
 * their own through the CLI (exportCheck).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult } from '../../harness/core/results.js';
import { MISTAKES, type MistakeInfo as NaiveMistake } from '../../clients/naive/index.js';
import { FAMILIES } from '../../harness/properties/families/index.js';
import { nemesisFamily } from '../../harness/properties/families/nemesis.js';
import type { Family } from '../../harness/properties/family.js';
import { runProperties } from '../../harness/runner/properties/run.js';
import { severity } from '../../harness/core/verdict.js';
import { GOLDEN_DIR } from './golden.js';

/** Every naive mistake with the family that covers its rule (by the rules it names, or those it provokes), and the key its counterexample is recorded under. */
export const COVERED: ReadonlyArray<readonly [string, NaiveMistake, Family, string]> = MISTAKES.flatMap((m) => {
  const family = FAMILIES.find((f) => [...f.rules, ...(f.provokes ?? [])].includes(m.caughtBy as never));
  return family ? [[m.name, m, family, m.name] as const] : [];
});

/**
 * The naive mistakes that mishandle a fault (issue 45), each of which the nemesis family must catch on
 * clean stories by their faults alone: recorded under `nemesis/<name>` beside their own family's case.
 */
export const NEMESIS_MISTAKES = [
  'retries-blindly',
  'never-cancels',
  'resends-on-stream-drop',
  'cancels-on-transient-refusal',
  'resends-after-stream-drop-by-send',
];

export const NEMESIS_COVERED: ReadonlyArray<readonly [string, NaiveMistake, Family, string]> = NEMESIS_MISTAKES.map((name) => {
  const m = MISTAKES.find((x) => x.name === name);
  if (!m) throw new Error(`no naive mistake ${name}`);
  return [name, m, nemesisFamily, `nemesis/${name}`] as const;
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

/** A recorded case replayed: one case, on one lane, generated again from the family's seed and the path. */
export async function replay(m: NaiveMistake, family: Family, ce: Counterexample, path = ce.path, withoutFaults = false) {
  return runProperties({
    client: `naive:${m.name}`,
    families: [family],
    seed: ce.seed,
    path,
    strict: strictFor(m),
    lanes: 1,
    ...(withoutFaults ? { withoutFaults } : {}),
  });
}

/**
 * What no longer holds of a recorded counterexample (none: it stands). The test and the recorder ask the
 * same: the family that covers the mistake; the sweep's own case (`firstFailure`, an index under the
 * sweep's runs) still fails the family when replayed, so the family still finds the mistake by itself;
 * the shrunk case it came to (a path under that index) fails with the recorded verdict, at least the
 * mistake's floor, exit 1, on a card of the same name, and says how to replay it.
 */
export async function problems(m: NaiveMistake, family: Family, ce: Counterexample | undefined): Promise<string[]> {
  if (!ce) return [`no counterexample recorded for ${m.name}`];
  if (ce.family !== family.id) return [`${m.name} is covered by ${family.id} now, not ${ce.family}`];
  const out: string[] = [];
  const index = Number(ce.firstFailure);
  if (!Number.isInteger(index) || index < 0 || index >= SWEEP.runs) out.push(`its first failure ${ce.firstFailure} is not a case of the sweep's ${SWEEP.runs}`);
  if (ce.path.split(':')[0] !== ce.firstFailure) out.push(`its shrunk path ${ce.path} is not under its first failure ${ce.firstFailure}`);
  // At least what the mistake must get: FAIL or TIMEOUT where it does harm, NON_STRICT (with --strict) where it misses a duty below MUST.
  if (severity(ce.verdict) < severity(m.atLeast === 'FAIL' ? 'TIMEOUT' : 'NON_STRICT')) out.push(`${ce.verdict} is below what ${m.name} must get`);
  if (out.length) return out;
  // A path the family no longer makes (its generator changed) is a stale record, said, not thrown.
  const stale = (err: unknown) => [`its case cannot be made again: ${(err as Error).message}`];
  let first: Awaited<ReturnType<typeof replay>>;
  try {
    first = await replay(m, family, ce, ce.firstFailure);
  } catch (err) {
    return stale(err);
  }
  if (!first.properties![0]!.failed) out.push(`the sweep's case ${ce.firstFailure} no longer fails (${first.results[0]?.verdict ?? 'not run'})`);
  // Where shrinking found nothing smaller, the shrunk case is the first failure: replayed once.
  let again: Awaited<ReturnType<typeof replay>>;
  try {
    again = ce.path === ce.firstFailure ? first : await replay(m, family, ce);
  } catch (err) {
    return stale(err);
  }
  const r = again.results[0];
  if (!again.properties![0]!.failed || r?.verdict !== ce.verdict) out.push(`its shrunk case ${ce.path} gives ${r?.verdict ?? 'nothing'}, not ${ce.verdict}`);
  if (again.exitCode !== 1) out.push(`the replay exits ${again.exitCode}, not 1`);
  if (r && !r.property?.replay.includes(`--seed ${ce.seed} --path ${ce.path}`))
    out.push(`the replay command does not name seed ${ce.seed} and path ${ce.path}`);
  if (r && (r.card as { name?: unknown }).name !== ce.card) out.push(`the card is ${String((r.card as { name?: unknown }).name)}, not ${ce.card}`);
  // A nemesis counterexample fails on its faults: the same case with none laid does not fail.
  if (family.id === 'nemesis' && out.length === 0) {
    const bare = await replay(m, family, ce, ce.path, true);
    if (bare.properties![0]!.failed)
      out.push(`its shrunk case ${ce.path} fails without its faults too (${bare.results[0]?.verdict}): they are not what it fails on`);
  }
  return out;
}
