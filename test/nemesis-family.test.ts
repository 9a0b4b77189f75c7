/**
 * The nemesis property family (issue 45): faults generated over the other families' clean stories.
 * The reference client passes 1,000 generated schedules; each naive mistake that mishandles a fault
 * is caught by the family alone, from its recorded counterexample replayed (test/helpers/
 * counterexamples.ts); one is found, shrunk, printed with its replay command and exported through
 * the CLI, and the exported scenario fails the same way as a plain scenario.
 */
import { describe, expect, it } from 'vitest';
import { BY_NAME_FAMILY_IDS, FAMILY_IDS } from '../harness/core/family-ids.js';
import { ALL_FAMILIES, BY_NAME_ONLY, FAMILIES } from '../harness/properties/families/index.js';
import { nemesisFamily } from '../harness/properties/families/nemesis.js';
import { caseScenario } from '../harness/properties/family.js';
import { generateCases } from '../harness/runner/properties/cases.js';
import { runProperties } from '../harness/runner/properties/run.js';
import { readCounterexamples } from './helpers/counterexamples.js';
import { runMain } from './helpers/main.js';
import { exportCheck, mutationCheck } from './helpers/property-mutants.js';
import { testTemp } from './helpers/tmp.js';

describe('the nemesis family', () => {
  it('is run only by name: not among a plain run’s families, nor the tiers’', () => {
    expect(BY_NAME_ONLY.map((f) => f.id)).toEqual([...BY_NAME_FAMILY_IDS]);
    expect(FAMILIES.map((f) => f.id)).toEqual([...FAMILY_IDS]);
    expect(ALL_FAMILIES.map((f) => f.id)).toEqual([...FAMILY_IDS, 'nemesis']);
  });

  it('lays its faults on clean stories of every other family, in both dialects, and grows the deadline by what they cost', () => {
    const cases = generateCases(nemesisFamily, 1, 200, ['a2a-v1', 'a2a-v0.3']);
    expect(cases.every((c) => c.drifts.length === 0 && (c.nemesis?.faults.length ?? 0) >= 1)).toBe(true);
    const stories = new Set(cases.map((c) => c.story));
    expect(stories.size).toBeGreaterThanOrEqual(12);
    expect(cases.some((c) => c.dialect === 'a2a-v0.3')).toBe(true);
    const kinds = new Set(cases.flatMap((c) => c.nemesis!.faults.map((f) => f.kind)));
    expect([...kinds].sort()).toEqual(['card-down', 'drop', 'push-fails', 'reset', 'slow', 'stall', 'stream-ends', 'unavailable']);
    // Laid: the scenario's runtime carries them, its deadline grew, and its description names them.
    const laid = cases.map((c) => ({
      c,
      s: caseScenario(nemesisFamily, c, 'x', c.rules[0]!),
      plain: caseScenario(nemesisFamily, { ...c, nemesis: undefined }, 'x', c.rules[0]!),
    }));
    const grew = laid.filter(({ s, plain }) => s.deadlineMs > plain.deadlineMs);
    expect(grew.length).toBeGreaterThan(150);
    for (const { s } of grew) expect(s.description).toMatch(/Faults laid: /);
    expect(grew.some(({ s }) => s.peer.runtime.drop && s.peer.runtime.unavailable)).toBe(true);
  });

  // About 80 s on a quiet machine: most of it waits (the refusals' Retry-After, stalled tasks held to the deadline), so many
  // lanes. Beside eight busy loops it took 574 s: the bound is twice that.
  it('the reference client passes 1,000 generated schedules (no FAIL, no TIMEOUT)', { timeout: 1_200_000 }, async () => {
    const run = await runProperties({ client: 'reference', families: [nemesisFamily], seed: 1, runs: 1000, lanes: 48 });
    const f = run.properties![0]!;
    const first = run.results[0];
    expect(f.failed, first ? `${first.id}: ${first.verdict} ${first.checks.find((c) => c.verdict === first.verdict)?.reason}` : '').toBe(false);
    expect(f.cases.length).toBe(1000);
    expect(f.cases.filter((c) => c.faults?.length).length).toBe(1000);
    expect(run.exitCode).toBe(0);
  });
});

describe('replay --without-faults', () => {
  it('runs a nemesis case with none of its faults: a recorded counterexample fails with them and not without; other families refuse it in one line', async () => {
    const ce = readCounterexamples()['nemesis/retries-blindly']!;
    const out = () => ['--out', testTemp('a2a-nemesis-replay-')];
    const args = ['replay', '--client', 'naive:retries-blindly', '--family', 'nemesis', '--seed', String(ce.seed), '--path', ce.path];
    expect((await runMain([...args, ...out()])).code).toBe(1);
    const bare = await runMain([...args, '--without-faults', ...out()]);
    expect(bare.code, bare.stderr).toBe(0);
    // A story that fails a client without any fault (an mTLS push receiver it registers and waits on alone): the replay
    // line it prints asks for no faults again.
    const story = await runMain([
      ...['replay', '--client', 'naive:registers-unusable-push', '--family', 'nemesis', '--seed', '1', '--path', '5', '--without-faults'],
      ...out(),
    ]);
    expect(story.code).toBe(1);
    expect(story.stdout).toMatch(
      /replay: npx a2a-conformance replay --client naive:registers-unusable-push --family nemesis --seed 1 --path 5 --without-faults/,
    );
    // The same case of another family: no faults to leave out.
    const wrong = await runMain([...args.filter((a) => a !== 'nemesis' && a !== '--family'), '--without-faults', ...out()]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trimEnd().split('\n')[0]).toBe('a2a-conformance: --without-faults: only the nemesis family lays faults; add --family nemesis');
  });
});

mutationCheck(['nemesis']);

// Blind retries found by the family, shrunk, printed with the replay command, exported and run as a plain scenario.
exportCheck('naive:retries-blindly', 'nemesis', 1);
