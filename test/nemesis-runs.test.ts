/**
 * A nemesis over the whole catalogue (issue 45): the reference client, with a 503 and Retry-After laid
 * on the first call of every scenario's peer, gets the verdict each scenario expects, and every result
 * grades again the same from what results.json keeps (the faults laid included).
 */
import { describe, expect, it } from 'vitest';
import { parseNemesis } from '../harness/core/scenario/nemesis.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { regradeRun } from '../harness/runner/judge/regrade.js';
import { ALL_SCENARIOS, BUILTIN_FILES } from './helpers/scenarios.js';

describe('run --nemesis', () => {
  it('the reference under a one-call 503 with Retry-After on every peer: every scenario its expect, the faults kept and graded again the same', {
    timeout: 300_000,
  }, async () => {
    const nemesis = parseNemesis({ faults: [{ kind: 'unavailable', status: 503, retryAfterSeconds: 1, calls: 1 }] });
    const r = await runConformance({ client: 'reference', files: BUILTIN_FILES, lanes: 8, nemesis });
    expect(r.nemesis).toEqual(nemesis);
    const laid = r.results.filter((x) => x.nemesis?.laid.length);
    // Laid nearly everywhere: left only where a scenario scripts its own 503 or 429.
    expect(laid.length).toBeGreaterThan(r.results.length - 10);
    for (const x of r.results.filter((x) => !x.nemesis?.laid.length)) expect(x.nemesis?.left[0]?.why, x.id).toMatch(/scripts runtime\.unavailable itself/);
    // The fault was met on the wire: a 503 with Retry-After in most runs (a client that declines before any call meets none).
    const met = laid.filter((x) => x.transcript.some((e) => e.kind === 'http' && e.status === 503 && e.response?.retryAfter === '1'));
    expect(met.length).toBeGreaterThan(laid.length / 2);
    expect(r.results.filter((x) => x.verdict !== x.expect).map((x) => `${x.id}: ${x.expect} → ${x.verdict}`)).toEqual([]);
    expect(r.exitCode).toBe(0);
    const again = regradeRun(r, new Map(ALL_SCENARIOS.map((s) => [s.id, s])));
    expect(again.differences).toEqual([]);
  });
});
