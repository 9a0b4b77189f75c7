/**
 * Sharded property runs (issue 28, item 4): `properties --shard i/n` sweeps every n-th case of the
 * same seed, and `report` merges the shards into the whole run. A passing run's merge holds exactly
 * the whole run's cases and verdicts; a failing family's holds the same counterexample and the cases
 * up to the first failure (the whole run also shows those that were in flight when it failed).
 * In-process, four lanes: the CLI's own path is `report`'s (test/cli.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { PropertyCase, PropertyFamilyResult, RunResults } from '../harness/core/results.js';
import { FAMILIES } from '../harness/properties/families/index.js';
import { runProperties } from '../harness/runner/properties/run.js';
import { mergeResults } from '../harness/runner/judge/merge.js';

const families = FAMILIES.filter((f) => f.id === 'transport' || f.id === 'delivery');
const cases = (r: RunResults, family: string) =>
  r.properties!.find((f) => f.family === family)!.cases.map((c) => `${c.path} ${c.story} ${c.rule} ${c.verdict}`);

async function whole(client: string, runs: number, seed: number) {
  return runProperties({ client, families, runs, seed, lanes: 4 });
}
async function sharded(client: string, runs: number, seed: number, count: number) {
  const out: RunResults[] = [];
  for (let index = 1; index <= count; index++) out.push(await runProperties({ client, families, runs, seed, lanes: 4, shard: { index, count } }));
  return out;
}

/** A property run's results.json as a shard writes it, for the merge's own checks. */
const fam = (family: string, over: Partial<PropertyFamilyResult> = {}): PropertyFamilyResult => ({
  family,
  title: family,
  rules: [],
  seed: 1,
  runs: 4,
  ran: 0,
  verdicts: {},
  stories: {},
  labels: {},
  failed: false,
  cases: [],
  durationMs: 1,
  ...over,
});
const run = (shard: string, properties: PropertyFamilyResult[], results: unknown[] = [], exitCode = 0): RunResults =>
  ({
    schema: 'a2a-conformance/results@1',
    ruleset: 'r',
    client: { name: 'c', version: '1' },
    strict: false,
    shard,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    results,
    notRun: [],
    expectations: null,
    exitCode,
    properties,
  }) as unknown as RunResults;

describe('properties --shard i/n, merged by report', () => {
  it('a passing run: the merged shards hold exactly the whole run’s cases, paths and verdicts; each shard holds every n-th case', {
    timeout: 240_000,
  }, async () => {
    const all = await whole('reference', 24, 5);
    const shards = await sharded('reference', 24, 5, 3);
    expect(shards.map((s) => s.shard)).toEqual(['1/3', '2/3', '3/3']);
    for (const [k, s] of shards.entries()) for (const f of s.properties!) expect(f.cases.every((c) => Number(c.path) % 3 === k)).toBe(true);
    const merged = mergeResults(shards);
    for (const f of families) {
      expect(cases(merged, f.id)).toEqual(cases(all, f.id));
      expect(merged.properties!.find((x) => x.family === f.id)!.verdicts).toEqual(all.properties!.find((x) => x.family === f.id)!.verdicts);
    }
    expect(merged.exitCode).toBe(all.exitCode);
    expect(merged.exitCode).toBe(0);
    expect(merged.incomplete).toBeUndefined();
  });

  it('a failing family: the same first failure as the whole run (the earliest shard’s, whose counterexample alone is kept), the cases up to it, exit 1; a shard left out makes the merge incomplete', {
    timeout: 240_000,
  }, async () => {
    const client = 'naive:omits-a2a-version';
    const transport = FAMILIES.filter((f) => f.id === 'transport');
    // Shrinking is cut short (its budget is time, so where it stops is not compared): the first failure is.
    const o = { client, families: transport, runs: 30, seed: 1, lanes: 4, shrinkBudgetMs: 300 };
    const all = await runProperties(o);
    const shards: RunResults[] = [];
    for (let index = 1; index <= 2; index++) shards.push(await runProperties({ ...o, shard: { index, count: 2 } }));
    const merged = mergeResults(shards);
    const f = merged.properties![0]!;
    expect(f.failed).toBe(true);
    const first = (r: RunResults) => r.results.map((x) => [x.property!.firstFailure, x.verdict, x.rule]);
    expect(first(merged)).toEqual(first(all));
    expect(merged.results).toHaveLength(1);
    const upTo = Number(merged.results[0]!.property!.firstFailure);
    expect(cases(merged, 'transport')).toEqual(cases(all, 'transport').filter((c) => Number(c.split(' ')[0]) <= upTo));
    expect(merged.exitCode).toBe(1);
    const half = mergeResults([shards[0]!]);
    expect(half.incomplete?.shards).toEqual(['2/2']);
    expect(half.exitCode).toBe(1);
  });

  it('merges by what it keeps: no case run in any shard exits 1 as the whole run would; a dropped counterexample’s ERROR sets no exit 2; a merged file merges again; a missing shard is named per family', () => {
    // Neither shard ran a case (a fixed-profile client, say): each exits 0, the merge 1, as the whole run.
    expect(mergeResults([run('1/2', [fam('trust')]), run('2/2', [fam('trust')])]).exitCode).toBe(1);
    // Shard 2 failed later, with an ERROR: the whole run stops at shard 1's failure (a FAIL), exit 1.
    const ce = (path: string, verdict: string, id: string) => ({
      id,
      verdict,
      rule: 'X',
      checks: [],
      property: { family: 'trust', seed: 1, path, firstFailure: path },
    });
    const c = (path: string, verdict: PropertyCase['verdict']) => ({ path, story: 's', rule: 'X', verdict, durationMs: 1 });
    const merged = mergeResults([
      run('1/2', [fam('trust', { ran: 1, failed: true, counterexample: 'a', cases: [c('0', 'FAIL')] })], [ce('0', 'FAIL', 'a')], 1),
      run('2/2', [fam('trust', { ran: 1, failed: true, counterexample: 'b', cases: [c('1', 'ERROR')] })], [ce('1', 'ERROR', 'b')], 2),
    ]);
    expect(merged.results.map((r) => r.id)).toEqual(['a']);
    expect(merged.exitCode).toBe(1);
    // A merge of 1/3 and 2/3 merges again with 3/3; without it, incomplete, naming the family's own missing shard.
    const part = mergeResults([
      run('1/3', [fam('trust', { ran: 1, cases: [c('0', 'PASS')] })]),
      run('2/3', [fam('trust', { ran: 1, cases: [c('1', 'PASS')] })]),
    ]);
    expect(part.incomplete?.shards).toEqual(['3/3']);
    expect(part.incomplete?.missing).toEqual(["the trust family's cases in shard(s) 3/3"]);
    const whole = mergeResults([part, run('3/3', [fam('trust', { ran: 1, cases: [c('2', 'PASS')] })])]);
    expect(whole.incomplete).toBeUndefined();
    expect(whole.properties![0]!.cases.map((x) => x.path)).toEqual(['0', '1', '2']);
    expect(whole.exitCode).toBe(0);
  });

  it('refuses to merge shards of different seeds, or the same shard twice', async () => {
    const base = (shard: string, seed: number) => run(shard, [fam('transport', { seed, ran: 2 })]);
    expect(() => mergeResults([base('1/2', 1), base('2/2', 2)])).toThrow(/swept different cases/);
    expect(() => mergeResults([base('1/2', 1), base('1/2', 1)])).toThrow(/appears twice/);
    expect(() => mergeResults([base('1/2', 1), base('1/3', 1)])).toThrow(/cut differently/);
  });
});
