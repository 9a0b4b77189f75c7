/**
 * Baselines and filters as CI expects them (issue 25, item 4): shards balanced by cost, `list` with
 * the run's filters, `--last-failed` over the previous report, a stale expectation that says why.
 * In this process (runMain), one run at a time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';
import { estimatedCost, laneOrder, shardScenarios } from '../harness/runner/engine/lanes.js';
import { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue } from '../harness/runner/load/catalogue.js';
import { summaryText } from '../harness/cli/reporters.js';
import type { RunResults } from '../harness/core/results.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const builtin = async () => (await loadCatalogue(await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT))).map((e) => e.scenario);

describe('--shard: balanced by cost, the same split on every machine', () => {
  it('every scenario lands in exactly one shard, and no shard costs much more than its share', async () => {
    const all = await builtin();
    for (const n of [2, 3, 5]) {
      const shards = Array.from({ length: n }, (_, i) => shardScenarios(all, `${i + 1}/${n}`));
      const seen = shards.flatMap((s) => [...s]);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.sort()).toEqual(all.map((s) => s.id).sort());
      const cost = (ids: Set<string>) => all.filter((s) => ids.has(s.id)).reduce((t, s) => t + estimatedCost(s), 0);
      const total = all.reduce((t, s) => t + estimatedCost(s), 0);
      const largest = Math.max(...all.map(estimatedCost));
      // Greedy by cost, largest first: no shard exceeds its share by more than one scenario.
      for (const s of shards) expect(cost(s)).toBeLessThanOrEqual(total / n + largest);
      // The same input gives the same split, whatever order the catalogue came in.
      expect([...shardScenarios([...all].reverse(), `1/${n}`)].sort()).toEqual([...shards[0]!].sort());
    }
  });

  it('measured timings (--shard-timings) decide over the estimate', async () => {
    const all = (await builtin()).slice(0, 6);
    // One scenario measured as costly as the rest together: it gets a shard to itself.
    const heavy = all[3]!.id;
    const measured = new Map(all.map((s) => [s.id, s.id === heavy ? 100_000 : 1000]));
    const one = shardScenarios(all, '1/2', measured);
    const two = shardScenarios(all, '2/2', measured);
    expect([...one]).toEqual([heavy]);
    expect(two.size).toBe(5);
  });

  it('the estimate reads the waits a scenario scripts (work, a slow answer, Retry-After)', () => {
    const s = (runtime: object) => ({ deadlineMs: 20_000, peer: { runtime: { workMs: 100, ...runtime } } }) as unknown as Scenario;
    expect(estimatedCost(s({ slow: { ms: 1500 } }))).toBeGreaterThan(estimatedCost(s({})) + 1000);
    expect(estimatedCost(s({ unavailable: { status: 503, retryAfterSeconds: 2, calls: 2 } }))).toBeGreaterThan(estimatedCost(s({})) + 3000);
  });

  it('a key store that asks the client to wait counts as a wait', () => {
    const s = (signing?: object) => ({ deadlineMs: 20_000, peer: { runtime: {}, ...(signing ? { signing } : {}) } }) as unknown as Scenario;
    expect(estimatedCost(s({ key: 'published', jwksBusy: 1 }))).toBeGreaterThan(estimatedCost(s()) + 900);
  });

  it('the lanes take the cheapest scenario first, then the costliest, so a run does not end on a long one started last', async () => {
    const all = await builtin();
    const given = all.map((s) => s.id);
    const order = laneOrder(all);
    expect(all.map((s) => s.id)).toEqual(given);
    expect([...order].map((s) => s.id).sort()).toEqual(all.map((s) => s.id).sort());
    const costs = order.map(estimatedCost);
    expect(costs[0]).toBe(Math.min(...costs));
    for (let i = 2; i < costs.length; i++) expect(costs[i]).toBeLessThanOrEqual(costs[i - 1]!);
    // Ties keep the catalogue's order.
    const ties = order.slice(1).filter((s) => estimatedCost(s) === costs[1]);
    expect(ties.map((s) => all.indexOf(s))).toEqual([...ties.map((s) => all.indexOf(s))].sort((a, b) => a - b));
  });

  it('--shard-timings without --shard is an argument error', async () => {
    const r = await runMain(['run', '--client', 'reference', '--shard-timings', 'x.json', '--out', testTemp('a2a-st-')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard-timings balances the shards of --shard: give --shard too/);
  });
});

describe('list takes the run filters', () => {
  it('--rule, --dialect, --grep and --scenario narrow the list; one that selects nothing is exit 2 in one line', async () => {
    const r = await runMain(['list', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v0.3', '--json']);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as Array<{ id: string; rule: string; dialect: string; binding: string }>;
    const ids = listed.map((x) => x.id);
    expect(ids.length).toBeGreaterThan(1);
    for (const id of ids) expect(id).toMatch(/^spec-tls-verify\/.*\.v03$/);
    // Each scenario says the dialect its peer speaks and the binding of its card's main interface.
    for (const x of listed) expect([x.dialect, x.binding]).toEqual(['a2a-v0.3', 'JSONRPC']);
    const g = await runMain(['list', '--grep', '/^trust-alg\\//']);
    expect(g.code).toBe(0);
    expect(
      g.stdout
        .trim()
        .split('\n')
        .every((l) => l.startsWith('trust-alg/')),
    ).toBe(true);
    const none = await runMain(['list', '--grep', 'no-such-thing']);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    // The count is the catalogue's, as `list` gives it: no hand-kept number.
    const all = (JSON.parse((await runMain(['list', '--json'])).stdout) as unknown[]).length;
    expect(none.stderr.split('\n')[0]).toBe(
      `a2a-conformance: --grep "no-such-thing" selects no scenario of the ${all} in the catalogue (see \`a2a-conformance list\`)`,
    );
  });
});

describe('--last-failed', () => {
  it('reruns what the previous report in --out found unexpected; with nothing left it says so and leaves the report', async () => {
    const out = testTemp('a2a-lf-');
    const none = await runMain(['run', '--client', 'reference', '--last-failed', '--out', out]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--last-failed reads the previous report in --out, and .* holds none \(no results\.json\): run once without it first/);
    // A careless client: one FAIL among three scenarios.
    const pick = ['--scenario', 'neg-live-input/no-signal-card-claims-streaming,spec-tls-verify/expired,wire/message-reply'];
    const first = await runMain(['run', '--client', 'naive:never-cancels', ...pick, '--out', out]);
    expect(first.code, first.stderr).toBe(1);
    const before = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
    const failed = before.unexpected.map((u) => u.id);
    expect(failed).toEqual(['neg-live-input/no-signal-card-claims-streaming']);
    const again = await runMain(['run', '--client', 'naive:never-cancels', '--last-failed', '--out', out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('found 1 unexpected verdict(s); running 1 scenario(s) again');
    const after = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
    expect(after.results.map((r) => r.id)).toEqual(failed);
    // The reference passes it: the report now holds no unexpected verdict, and a further --last-failed runs nothing.
    const fixed = await runMain(['run', '--client', 'reference', '--last-failed', '--out', out]);
    expect(fixed.code).toBe(0);
    const kept = readFileSync(join(out, 'results.json'), 'utf8');
    const idle = await runMain(['run', '--client', 'reference', '--last-failed', '--out', out]);
    expect(idle.code).toBe(0);
    expect(idle.stderr).toMatch(/found 0 unexpected verdict\(s\); nothing to run again \(the report in .* is left as it is\)/);
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toBe(kept);
  });
});

describe('a stale expectation', () => {
  it('prints its reason on the console, and fails a testcase of its own in junit.xml', async () => {
    const dir = testTemp('a2a-stale-');
    const exp = join(dir, 'expectations.json');
    writeFileSync(
      exp,
      JSON.stringify({ schema: 'a2a-conformance/expectations@1', entries: [{ scenario: 'gone/renamed-scenario', verdict: 'FAIL', reason: 'known bug 12' }] }),
    );
    const out = join(dir, 'out');
    const r = await runMain(['run', '--client', 'reference', '--scenario', 'spec-tls-verify/expired', '--expectations', exp, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ FAIL       gone/renamed-scenario — stale expectation: it matches no scenario in the catalogue');
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toMatch(
      /<testcase name="gone\/renamed-scenario" classname="a2a-conformance\.expectations"[^>]*>\s*<failure message="stale expectation/,
    );
    // The summary's own text, from the results alone.
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
    expect(summaryText(results, { dir: out, html: '', results: '', junit: '', markdown: '' })).toContain('stale expectation');
  });
});
