/**
 * Merges the results of several runs of one client (shards) into one. Scenarios run in any shard
 * leave the not-run lists; verdict counts, unexpected verdicts and the exit code are recomputed.
 */
import type { RunResults } from '../core/results.js';
import { judge, type Expectations } from './expectations.js';
import { exitCode, summarize } from './policy.js';

export class MergeError extends Error {
  override readonly name = 'MergeError';
}

/**
 * Merges runs (one run is re-judged alone): counts and the exit code are always recomputed from the
 * verdicts, never taken from the files. A scenario left "in another shard" whose shard is missing
 * from the merge makes the merged run incomplete: unexpected, exit 1.
 */
export function mergeResults(runs: RunResults[]): RunResults {
  if (runs.length === 0) throw new MergeError('nothing to merge');
  const first = runs[0]!;
  if (runs.some((r) => !!r.properties) !== runs.every((r) => !!r.properties)) throw new MergeError('cannot merge a property run (a2a-conformance properties) with a scenario run');
  const properties = first.properties ? runs.flatMap((r) => r.properties ?? []) : undefined;
  for (const r of runs) {
    if (r.schema !== first.schema) throw new MergeError(`cannot merge ${r.schema} with ${first.schema}`);
    if (r.client.name !== first.client.name || r.client.version !== first.client.version)
      throw new MergeError(`cannot merge runs of different clients: ${first.client.name} ${first.client.version} and ${r.client.name} ${r.client.version}`);
    if (JSON.stringify(r.expectations ?? null) !== JSON.stringify(first.expectations ?? null))
      throw new MergeError('cannot merge runs judged with different expectations files');
    if (r.ruleset !== first.ruleset || Boolean(r.strict) !== Boolean(first.strict))
      throw new MergeError(`cannot merge runs with different rulesets or --strict (${first.ruleset}${first.strict ? ' strict' : ''} vs ${r.ruleset}${r.strict ? ' strict' : ''})`);
  }
  const byId = new Map<string, RunResults['results'][number]>();
  for (const r of runs) for (const s of r.results) {
    if (byId.has(s.id)) throw new MergeError(`scenario ${s.id} appears in more than one of the runs to merge`);
    byId.set(s.id, s);
  }
  const results = [...byId.values()];
  const notRun = new Map<string, string>();
  for (const r of runs) for (const n of r.notRun) if (!byId.has(n.id) && !notRun.has(n.id)) notRun.set(n.id, n.reason);
  // Re-judged from the verdicts, with the policy and expectations the runs were judged with.
  const catalogue = [...results.map((r) => r.id), ...notRun.keys()];
  const { unexpected } = judge(results, { strict: Boolean(first.strict) }, (first.expectations ?? undefined) as Expectations | undefined, catalogue);
  for (const [id, reason] of notRun)
    if (reason.startsWith('in another shard')) unexpected.push({ id, verdict: 'ERROR', why: 'its shard is missing from the merge: the report is incomplete' });
  const starts = runs.map((r) => Date.parse(r.startedAt));
  const ends = runs.map((r) => Date.parse(r.startedAt) + r.durationMs);
  const { control: _firstControl, lanes: _firstLanes, ...rest } = first;
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
    exitCode: properties ? Math.max(...runs.map((r) => r.exitCode), unexpected.length ? 1 : 0) : Math.max(exitCode(results, unexpected), unexpected.length ? 1 : 0),
    ...(properties ? { properties } : {}),
    ...(runs.some((r) => r.control?.length) ? { control: runs.flatMap((r) => r.control ?? []) } : {}),
    ...(lanes.length ? { lanes: { start: Math.max(...lanes.map((l) => l.start)), min: Math.min(...lanes.map((l) => l.min)), backoffs: lanes.reduce((n, l) => n + l.backoffs, 0) } } : {}),
  };
}
