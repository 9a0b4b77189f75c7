/**
 * A scenario author's own assertions (docs/scenarios.md): graded from the wire as checks
 * `VENDOR:<id>`, sourced to the author's words; and one that catches a naive mistake no built-in
 * rule fails.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../harness/core/results.js';
import type { Assertion } from '../harness/core/scenario/assertions.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import { gradeAssertions } from '../harness/core/oracle/assertions.js';
import { loadCatalogue, scenarioProblem } from '../harness/runner/load/catalogue.js';
import { ROOT } from './helpers/cli.js';
import { startHarness, type InProcessHarness } from './helpers/harness.js';
import { testTemp } from './helpers/tmp.js';

const FIXTURE = join(ROOT, 'test/fixtures/vendor-asserting/acme-probe.scenario.json');
let probe: Scenario;
const harnesses: InProcessHarness[] = [];
const runWith = async (client: string, s: Scenario) => {
  const h = await startHarness(client);
  harnesses.push(h);
  return h.run(s);
};
beforeAll(async () => {
  probe = (await loadCatalogue([FIXTURE]))[0]!.scenario;
});
afterAll(async () => {
  for (const h of harnesses) await h.close();
});

const vendorChecks = (r: ScenarioResult) => r.checks.filter((c) => c.rule.startsWith('VENDOR:'));

/** Grades `assertions` against a recorded run, as the oracle would. */
const regrade = (r: ScenarioResult, assertions: Assertion[]) =>
  gradeAssertions({
    scenario: { ...probe, assertions },
    card: r.card,
    profile: r.profile,
    intent: r.intent,
    events: r.transcript,
    tasks: r.ledger,
    claims: r.claims,
    outcome: r.outcome as never,
  });

describe('scenario assertions', () => {
  let good: ScenarioResult;
  let naive: ScenarioResult;
  beforeAll(async () => {
    [good, naive] = [await runWith('reference', probe), await runWith('naive:skips-origin-probe', probe)];
  });

  it("the reference client meets every assertion: four VENDOR checks PASS, each sourced to the author's words at level vendor", () => {
    expect(good.verdict).toBe('PASS');
    expect(vendorChecks(good).map((c) => [c.rule, c.verdict])).toEqual([
      ['VENDOR:own-card-first', 'PASS'],
      ['VENDOR:one-task', 'PASS'],
      ['VENDOR:version-header', 'PASS'],
      ['VENDOR:saw-completion', 'PASS'],
    ]);
    const source = vendorChecks(good)[0]!.sources![0]!;
    expect(source).toMatchObject({ doc: 'scenario acme/probe-before-task', section: 'assertion own-card-first', level: 'vendor' });
    expect(source.quote).toContain('Acme incident 2026-07');
    expect(vendorChecks(good).every((c) => c.evidence.length > 0)).toBe(true);
  });

  it('catches naive:skips-origin-probe, which no built-in rule fails here (HS-SPLIT-ORIGIN: NON_STRICT only)', () => {
    expect(naive.verdict).toBe('FAIL');
    expect(naive.checks.filter((c) => c.verdict === 'FAIL').map((c) => c.rule)).toEqual(['VENDOR:own-card-first']);
    expect(naive.checks.find((c) => c.rule === 'HS-SPLIT-ORIGIN')?.verdict).toBe('NON_STRICT');
    const miss = vendorChecks(naive)[0]!;
    expect(miss).toMatchObject({ basis: 'assertion', level: 'vendor' });
    // The first task start counts, whichever operation it was (`before` lists both).
    expect(miss.reason).toBe('SendStreamingMessage was called, and GetExtendedAgentCard never');
    expect(miss.evidence[0]!.seq).toBeGreaterThan(0);
  });

  it('each kind is judged from the wire; onMiss NON_STRICT softens a miss; a check over calls holds vacuously where there is no call, saw-state does not', () => {
    const judge = (a: Record<string, unknown>) => regrade(good, [{ id: 'x', because: 'b', ...a } as Assertion])[0]!.verdict;
    expect(judge({ kind: 'no-task' })).toBe('FAIL');
    expect(judge({ kind: 'no-task', onMiss: 'NON_STRICT' })).toBe('NON_STRICT');
    expect(judge({ kind: 'max-tasks', max: 0 })).toBe('FAIL');
    expect(judge({ kind: 'max-tasks', max: 1 })).toBe('PASS');
    expect(judge({ kind: 'never-calls', method: 'SendMessage' })).toBe('FAIL');
    expect(judge({ kind: 'never-calls', method: 'SubscribeToTask' })).toBe('PASS');
    expect(judge({ kind: 'calls', method: 'CancelTask' })).toBe('FAIL');
    expect(judge({ kind: 'calls', method: 'SendMessage', before: 'GetExtendedAgentCard' })).toBe('FAIL');
    expect(judge({ kind: 'header', name: 'A2A-Version', equals: '0.3' })).toBe('FAIL');
    expect(judge({ kind: 'header', name: 'A2A-Extensions' })).toBe('FAIL');
    expect(judge({ kind: 'saw-state', state: 'TASK_STATE_CANCELED' })).toBe('FAIL');
    // The same assertions on a transcript without the client's calls: what needed a call is missed.
    const silent = { ...good, transcript: good.transcript.filter((e) => !(e.kind === 'http' && e.rpc)) };
    const onSilent = (a: Record<string, unknown>) => regrade(silent, [{ id: 'x', because: 'b', ...a } as Assertion])[0]!;
    expect(onSilent({ kind: 'saw-state', state: 'TASK_STATE_COMPLETED' }).verdict).toBe('FAIL');
    expect(onSilent({ kind: 'calls', method: 'GetTask' }).verdict).toBe('FAIL');
    // Documented (docs/scenarios.md): nothing to hold them against, so they hold.
    expect(onSilent({ kind: 'header', name: 'A2A-Version' })).toMatchObject({ verdict: 'PASS', reason: 'no A2A call to carry A2A-Version' });
    expect(onSilent({ kind: 'calls', method: 'GetExtendedAgentCard', before: ['SendMessage', 'SendStreamingMessage'] }).verdict).toBe('PASS');
  });

  it('declined as unsupported with no task: an assertion that asks the client to act reads UNSUPPORTED, one that asks it to refrain is graded as ever', () => {
    const declined = { ...good, transcript: good.transcript.filter((e) => !(e.kind === 'http' && e.rpc)), ledger: [] };
    const grade = (a: Record<string, unknown>) =>
      gradeAssertions(
        {
          scenario: { ...probe, assertions: [{ id: 'x', because: 'b', ...a } as Assertion] },
          card: declined.card,
          profile: declined.profile,
          intent: declined.intent,
          events: declined.transcript,
          tasks: [],
          claims: declined.claims,
          outcome: declined.outcome as never,
        },
        true,
      )[0]!;
    expect(grade({ kind: 'saw-state', state: 'TASK_STATE_COMPLETED' })).toMatchObject({ verdict: 'UNSUPPORTED', basis: 'unsupported' });
    expect(grade({ kind: 'calls', method: 'GetTask' }).verdict).toBe('UNSUPPORTED');
    expect(grade({ kind: 'no-task' }).verdict).toBe('PASS');
    expect(
      gradeAssertions(
        {
          scenario: { ...probe, assertions: [{ id: 'x', because: 'b', kind: 'max-tasks', max: 0 }] },
          card: good.card,
          profile: good.profile,
          intent: good.intent,
          events: good.transcript,
          tasks: good.ledger,
          claims: good.claims,
          outcome: good.outcome as never,
        },
        true,
      )[0]!.verdict,
    ).toBe('FAIL');
  });

  it('an assertion id used twice in a scenario is a load error', async () => {
    const { writeFile } = await import('node:fs/promises');
    const file = join(testTemp('a2a-assert-'), 'twice.scenario.json');
    const a = { id: 'same', because: 'b', kind: 'no-task' };
    await writeFile(file, JSON.stringify([{ ...probe, assertions: [a, a] }]));
    await expect(loadCatalogue([file])).rejects.toThrow(/assertions: the id "same" is used twice/);
  });

  it('the scenario schema takes the assertion vocabulary and refuses what is not in it', () => {
    const withA = (a: unknown) => scenarioProblem({ ...probe, assertions: [a] });
    expect(withA({ id: 'a', because: 'b', kind: 'max-tasks', max: 2 })).toBeUndefined();
    expect(withA({ id: 'a', because: 'b', kind: 'calls', method: 'GetTask', before: ['SendMessage', 'SendStreamingMessage'] })).toBeUndefined();
    expect(withA({ id: 'a', because: 'b', kind: 'calls', method: 'SendMesage' })).toMatch(/assertions\.0/);
    expect(withA({ id: 'a', because: 'b', kind: 'eventually-works' })).toMatch(/assertions\.0/);
    expect(withA({ id: 'a', kind: 'no-task' })).toMatch(/assertions\.0/);
  });
});
