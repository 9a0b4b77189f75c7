/**
 * The shards of a property run merged into the whole run (`properties --shard i/n`, then `report`).
 * Each shard swept every n-th case of the same seed, so a family's cases are the union of its
 * shards', by path. A family that failed stops at its first failure in the whole run: the merge keeps
 * the counterexample of the shard whose first failure comes first, and the cases up to it; the whole
 * run has exactly those (and, at most, a few later ones that were in flight when it failed).
 */
import { tallyCases, type PropertyFamilyResult, type RunResults, type ScenarioResult } from '../../core/results.js';
import { MergeError } from '../../faults.js';

export interface MergedProperties {
  properties: PropertyFamilyResult[];
  /** The counterexamples the merge keeps (one per failed family); the others' results are dropped. */
  keep: (r: ScenarioResult) => boolean;
  /** The shards each family misses (`2/4`). */
  missing?: Array<{ family: string; shards: string[] }>;
}

/** The shards a run holds: `2/4`, or a merge's `merged 1/4 + 3/4` (a merged file merges again); none for a whole run. */
const shardsOf = (r: RunResults): { indices: number[]; count: number } | undefined => {
  const all = [...(r.shard ?? '').matchAll(/(\d+)\/(\d+)/g)].map((m) => ({ index: Number(m[1]), count: Number(m[2]) }));
  if (all.length === 0) return undefined;
  const count = all[0]!.count;
  if (all.some((x) => x.count !== count)) throw new MergeError(`the run's shards were cut differently (${r.shard})`);
  return { indices: all.map((x) => x.index), count };
};

export function mergeProperties(runs: RunResults[]): MergedProperties {
  const groups = new Map<string, Array<{ f: PropertyFamilyResult; run: RunResults }>>();
  for (const run of runs) for (const f of run.properties ?? []) groups.set(f.family, [...(groups.get(f.family) ?? []), { f, run }]);
  const counterexamples = new Map(runs.flatMap((r) => r.results).map((x) => [x.id, x]));
  const dropped = new Set<string>();
  const properties: PropertyFamilyResult[] = [];
  const missing: Array<{ family: string; shards: string[] }> = [];
  for (const [id, parts] of groups) {
    const shards = parts.map((p) => shardsOf(p.run));
    if (parts.length === 1) {
      properties.push(parts[0]!.f);
      if (shards[0]) note(id, shards[0].count, shards[0].indices);
      continue;
    }
    if (shards.some((s) => !s))
      throw new MergeError(
        `the ${id} family appears in more than one run, and not every one of them is a shard (properties --shard i/n): nothing to merge it by`,
      );
    const count = shards[0]!.count;
    if (shards.some((s) => s!.count !== count))
      throw new MergeError(`the ${id} family's shards were cut differently (${parts.map((p) => p.run.shard).join(', ')})`);
    const indices = shards.flatMap((s) => s!.indices);
    if (new Set(indices).size !== indices.length)
      throw new MergeError(`the ${id} family's shard ${indices.find((x, i) => indices.indexOf(x) !== i)}/${count} appears twice`);
    const first = parts[0]!.f;
    for (const { f } of parts)
      if (f.seed !== first.seed || f.runs !== first.runs || (f.bindings ?? []).join() !== (first.bindings ?? []).join())
        throw new MergeError(
          `the ${id} family's shards swept different cases (seed ${f.seed} and ${first.seed}, ${f.runs} and ${first.runs} runs): merge shards of one run`,
        );
    note(id, count, indices);
    // The whole run's first failure: the smallest path at which a shard failed.
    const failedAt = (f: PropertyFamilyResult) => {
      const ce = f.counterexample ? counterexamples.get(f.counterexample) : undefined;
      return ce?.property ? Number(ce.property.firstFailure) : Number.POSITIVE_INFINITY;
    };
    const winner = parts.filter((p) => p.f.failed).sort((a, b) => failedAt(a.f) - failedAt(b.f))[0]?.f;
    const upTo = winner ? failedAt(winner) : Number.POSITIVE_INFINITY;
    for (const { f } of parts) if (f.counterexample && f !== winner) dropped.add(f.counterexample);
    const cases = parts
      .flatMap((p) => p.f.cases)
      .filter((c) => Number(c.path) <= upTo)
      .sort((a, b) => Number(a.path) - Number(b.path));
    properties.push({
      ...first,
      ...tallyCases(cases),
      failed: !!winner,
      ...(winner?.counterexample ? { counterexample: winner.counterexample } : {}),
      ...(winner?.shrinkMs !== undefined ? { shrinkMs: winner.shrinkMs } : {}),
      cases,
      durationMs: Math.max(...parts.map((p) => p.f.durationMs)),
    });
    if (!winner) delete properties.at(-1)!.counterexample;
  }
  return {
    properties,
    keep: (r) => !dropped.has(r.id),
    ...(missing.length ? { missing } : {}),
  };

  function note(family: string, count: number, have: number[]) {
    const lacking = Array.from({ length: count }, (_, k) => k + 1).filter((i) => !have.includes(i));
    if (lacking.length) missing.push({ family, shards: lacking.map((i) => `${i}/${count}`) });
  }
}
