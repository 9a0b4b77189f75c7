/**
 * Merges the results of several runs of one client (shards) into one. Scenarios run in any shard
 * leave the not-run lists; verdict counts, unexpected verdicts and the exit code are recomputed.
 */
import { inAnotherShard, type RunResults } from '../../core/results.js';
import { judge, type Expectations } from './expectations.js';
import { exitCode, summarize } from './policy.js';
import { MergeError } from '../../faults.js';
import { mergeProperties } from './merge-properties.js';

/**
 * Merges runs (one run is re-judged alone): counts and the exit code are always recomputed from the
 * verdicts, never taken from the files. A scenario left "in another shard" whose shard is missing
 * from the merge is not graded: the merged run says it is incomplete (`incomplete`), exit 1.
 */
export function mergeResults(runs: RunResults[]): RunResults {
  if (runs.length === 0) throw new MergeError('nothing to merge');
  const first = runs[0]!;
  if (runs.some((r) => !!r.properties) !== runs.every((r) => !!r.properties))
    throw new MergeError('cannot merge a property run (a2a-conformance properties) with a scenario run');
  // A property run's families, their shards merged (merge-properties.ts); its dropped counterexamples leave the results.
  const merged = first.properties ? mergeProperties(runs) : undefined;
  const properties = merged?.properties;
  for (const r of runs) {
    if (r.schema !== first.schema) throw new MergeError(`cannot merge ${r.schema} with ${first.schema}`);
    if (r.client.name !== first.client.name || r.client.version !== first.client.version)
      throw new MergeError(`cannot merge runs of different clients: ${first.client.name} ${first.client.version} and ${r.client.name} ${r.client.version}`);
    if (JSON.stringify(r.expectations ?? null) !== JSON.stringify(first.expectations ?? null))
      throw new MergeError('cannot merge runs judged with different expectations files');
    // A tier is for the capabilities a client declares: shards that declare differently are not one run.
    if (JSON.stringify(r.client.notImplemented ?? []) !== JSON.stringify(first.client.notImplemented ?? []))
      throw new MergeError('cannot merge runs whose clients declare different capabilities not implemented (hello.notImplemented)');
    if (JSON.stringify(r.nemesis ?? null) !== JSON.stringify(first.nemesis ?? null))
      throw new MergeError('cannot merge runs with different --nemesis schedules (or one with and one without)');
    if (r.ruleset !== first.ruleset || Boolean(r.strict) !== Boolean(first.strict))
      throw new MergeError(
        `cannot merge runs with different rulesets or --strict (${first.ruleset}${first.strict ? ' strict' : ''} vs ${r.ruleset}${r.strict ? ' strict' : ''})`,
      );
  }
  const byId = new Map<string, RunResults['results'][number]>();
  for (const r of runs)
    for (const s of r.results) {
      if (merged && !merged.keep(s)) continue;
      if (byId.has(s.id)) throw new MergeError(`scenario ${s.id} appears in more than one of the runs to merge`);
      byId.set(s.id, s);
    }
  const results = [...byId.values()];
  const notRun = new Map<string, string>();
  for (const r of runs) for (const n of r.notRun) if (!byId.has(n.id) && !notRun.has(n.id)) notRun.set(n.id, n.reason);
  // Re-judged from the verdicts, with the policy and expectations the runs were judged with.
  const catalogue = [...results.map((r) => r.id), ...notRun.keys()];
  const { unexpected } = judge(results, { strict: Boolean(first.strict) }, (first.expectations ?? undefined) as Expectations | undefined, catalogue);
  const missingScenarios = missingShards(runs, notRun);
  if (missingScenarios)
    for (const id of missingScenarios.missing)
      notRun.set(id, `in a shard missing from the merge${missingScenarios.shards?.length ? ` (${missingScenarios.shards.join(', ')})` : ''}: not graded`);
  // A property run's missing shards are its families' (no scenario id to list as not run).
  const incomplete =
    missingScenarios ??
    (merged?.missing
      ? {
          why: 'merge the results.json of the shards missing too',
          shards: [...new Set(merged.missing.flatMap((m) => m.shards))].sort(),
          missing: merged.missing.map((m) => `the ${m.family} family's cases in shard(s) ${m.shards.join(', ')}`),
        }
      : undefined);
  const starts = runs.map((r) => Date.parse(r.startedAt));
  const ends = runs.map((r) => Date.parse(r.startedAt) + r.durationMs);
  const { control: _firstControl, lanes: _firstLanes, incomplete: _firstIncomplete, ...rest } = first;
  const lanes = runs.flatMap((r) => (r.lanes ? [r.lanes] : []));
  return {
    ...rest,
    shard: runs.length > 1 ? `merged ${runs.map((r) => r.shard ?? 'full').join(' + ')}` : first.shard,
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    results,
    notRun: [...notRun].map(([id, reason]) => ({ id, reason })),
    summary: summarize(results),
    unexpected,
    // A property run's exit code is its families' (a passing one holds no result at all).
    // From what the merge keeps, as runProperties computes it: 2 for a harness ERROR, 1 for a failed family or
    // when no case ran at all (a shard that swept none is not a failure on its own; the merge decides).
    exitCode: properties
      ? results.some((r) => r.verdict === 'ERROR')
        ? 2
        : properties.some((f) => f.failed) || properties.reduce((n, f) => n + f.ran, 0) === 0 || unexpected.length || incomplete
          ? 1
          : 0
      : Math.max(exitCode(results, unexpected), unexpected.length || incomplete ? 1 : 0),
    ...(incomplete ? { incomplete } : {}),
    ...(properties ? { properties } : {}),
    ...(runs.some((r) => r.control?.length) ? { control: runs.flatMap((r) => r.control ?? []) } : {}),
    ...(lanes.length
      ? {
          lanes: {
            start: Math.max(...lanes.map((l) => l.start)),
            min: Math.min(...lanes.map((l) => l.min)),
            backoffs: lanes.reduce((n, l) => n + l.backoffs, 0),
          },
        }
      : {}),
  };
}

/**
 * The scenarios no merged run graded because their shard is not among the runs, and which shards
 * those are: each run's shard (`2/4`, or a merge's `merged 1/4 + 2/4`) names the ones present.
 */
function missingShards(runs: RunResults[], notRun: Map<string, string>): RunResults['incomplete'] {
  const missing = [...notRun].filter(([, reason]) => inAnotherShard(reason)).map(([id]) => id);
  if (missing.length === 0) return undefined;
  const present = new Map<number, Set<number>>();
  for (const r of runs)
    for (const m of (r.shard ?? '').matchAll(/(\d+)\/(\d+)/g)) {
      const [i, n] = [Number(m[1]), Number(m[2])];
      present.set(n, (present.get(n) ?? new Set()).add(i));
    }
  const shards = [...present].flatMap(([n, have]) =>
    Array.from({ length: n }, (_, k) => k + 1)
      .filter((i) => !have.has(i))
      .map((i) => `${i}/${n}`),
  );
  return {
    why: shards.length ? `merge the results.json of ${shards.length === 1 ? 'that shard' : 'those shards'} too` : 'their shards are not among the merged runs',
    ...(shards.length ? { shards } : {}),
    missing,
  };
}
