/**
 * Lanes on worker threads (issue 28, item 1): a property run spread across this thread and worker
 * threads gives the cases, verdicts and counterexamples of the same run on one thread; a worker
 * thread that cannot open leaves the run to the others, said in notRun; a stopped run leaves no
 * thread behind.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { RunInterrupted } from '../harness/faults.js';
import { FAMILIES } from '../harness/properties/families/index.js';
import { runProperties } from '../harness/runner/properties/run.js';
import { openLanePool } from '../harness/runner/engine/lanes.js';
import { openWorkerPool } from '../harness/runner/engine/worker-pool.js';
import { createBuiltinClient } from '../clients/index.js';
import { freshPki } from '../harness/runner/infrastructure/env.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCases } from '../harness/runner/properties/run.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { baselineVerdicts, differences } from './helpers/published.js';
import { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue } from '../harness/runner/load/catalogue.js';
import { caseId, caseScenario, labelCase } from '../harness/properties/family.js';
import { DEFAULT_PROFILE } from '../harness/core/protocol/types.js';

const families = FAMILIES.filter((f) => f.id === 'transport' || f.id === 'delivery');
const lines = (r: RunResults, family: string, below = Number.POSITIVE_INFINITY) =>
  r
    .properties!.find((f) => f.family === family)!
    .cases.filter((c) => Number(c.path) < below)
    .map((c) => `${c.path} ${c.story} ${c.rule} ${c.verdict}`);
const threads = () => readdirSync('/proc/self/task').length;

describe('worker threads', () => {
  it('a run on two threads gives the cases and verdicts of the same run on one', { timeout: 240_000 }, async () => {
    const one = await runProperties({ client: 'reference', families, runs: 24, seed: 5, lanes: 8, workers: 1 });
    const two = await runProperties({ client: 'reference', families, runs: 24, seed: 5, lanes: 8, workers: 2 });
    // Every lane opened: four on this thread, four on the worker thread.
    expect(two.lanes).toMatchObject({ start: 8 });
    expect(two.notRun).toEqual([]);
    for (const f of families) expect(lines(two, f.id)).toEqual(lines(one, f.id));
    expect(two.exitCode).toBe(one.exitCode);
  });

  it('a failing family: the same first failure and counterexample verdict, on two threads', { timeout: 240_000 }, async () => {
    const trust = FAMILIES.filter((f) => f.id === 'trust');
    const o = { client: 'naive:accepts-alg-none', families: trust, runs: 60, seed: 1, lanes: 6, shrinkBudgetMs: 1000 };
    const one = await runProperties({ ...o, workers: 1 });
    const two = await runProperties({ ...o, workers: 2 });
    const [a, b] = [one.results[0]!, two.results[0]!];
    expect(a.property!.firstFailure).toBeDefined();
    expect(b.property!.firstFailure).toBe(a.property!.firstFailure);
    expect(`${b.verdict} ${b.rule}`).toBe(`${a.verdict} ${a.rule}`);
    // How far shrinking gets in its time budget depends on the machine; that it shrinks from the same case does not.
    expect(b.property!.path.split(':')[0]).toBe(a.property!.firstFailure);
    expect(lines(two, 'trust', Number(a.property!.firstFailure))).toEqual(lines(one, 'trust', Number(a.property!.firstFailure)));
    expect(two.exitCode).toBe(1);
  });

  it('a worker thread that cannot open its lanes is said once; the run goes on, on the lanes that opened', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-workers-'));
    try {
      const pki = await freshPki(dir);
      const hello = await createBuiltinClient('reference').hello();
      const env = { pkiDir: pki.dir, hello, idSalt: 'w', deadlineMultiplier: 1 };
      const errors: string[] = [];
      const pool = await openWorkerPool({
        workers: 2,
        lanes: 4,
        env,
        // The worker thread makes its clients by name, and this name is none.
        choice: { client: 'no-such-client' },
        openLocal: (n) => openLanePool({ lanes: n, env, client: () => createBuiltinClient('reference') }),
        onError: (m) => errors.push(m),
      });
      try {
        expect(pool.size).toBe(2);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatch(/a worker thread could not open its lanes: .*no-such-client/);
        const family = FAMILIES.find((f) => f.id === 'transport')!;
        const c = generateCases(family, 3, 1)[0]!;
        const r = await pool.run(caseScenario(family, c, caseId(family.id, 3, '0'), labelCase(c, DEFAULT_PROFILE)));
        expect(r.verdict).not.toBe('ERROR');
      } finally {
        await pool.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a pool closed with runs in flight on every thread settles each of them (a result or an error), and its worker thread ends', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-workers-'));
    const before = threads();
    try {
      const pki = await freshPki(dir);
      const hello = await createBuiltinClient('reference').hello();
      const env = { pkiDir: pki.dir, hello, idSalt: 'c', deadlineMultiplier: 1 };
      const pool = await openWorkerPool({
        workers: 2,
        lanes: 4,
        env,
        choice: { client: 'reference' },
        openLocal: (n) => openLanePool({ lanes: n, env, client: () => createBuiltinClient('reference') }),
      });
      expect(pool.size).toBe(4);
      // A scenario that is not plain data (a function in it, as a vendor's module may hold) cannot cross
      // to a worker thread: it runs on this thread's lanes. With one run here already, the worker thread
      // is the least busy, so the scenario is sent there first.
      const transport = FAMILIES.find((f) => f.id === 'transport')!;
      const c = generateCases(transport, 3, 1)[0]!;
      const plain = caseScenario(transport, c, caseId(transport.id, 3, '0'), labelCase(c, DEFAULT_PROFILE));
      const withFunction = { ...caseScenario(transport, c, caseId(transport.id, 3, '1'), labelCase(c, DEFAULT_PROFILE)), note: () => 'not data' };
      expect(() => structuredClone(withFunction)).toThrow();
      const first = pool.run(plain);
      const second = await pool.run(withFunction);
      expect(second.verdict).toBe((await first).verdict);
      // Push stories: each case's task works for 600–900 ms, so all four are still running when the pool closes.
      const family = FAMILIES.find((f) => f.id === 'delivery')!;
      const runs = generateCases(family, 1, 40)
        .filter((c) => c.story === 'push-deliveries')
        .slice(0, 4)
        .map((c, i) => pool.run(caseScenario(family, c, caseId(family.id, 1, String(i)), labelCase(c, DEFAULT_PROFILE))));
      expect(runs).toHaveLength(4);
      await new Promise((r) => setTimeout(r, 150));
      await pool.close();
      const never = Symbol('never settled');
      const settled = await Promise.race([Promise.allSettled(runs), new Promise((r) => setTimeout(r, 30_000, never))]);
      expect(settled).not.toBe(never);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const deadline = Date.now() + 30_000;
    while (threads() > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(threads()).toBeLessThanOrEqual(before);
  });

  it('run: the built-in catalogue on two threads gives each scenario the verdict it gets on one (its baseline, which test/full-runs.test.ts holds the one-thread run to)', {
    timeout: 240_000,
  }, async () => {
    const files = await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT);
    const catalogue = await loadCatalogue(files);
    const two = await runConformance({ client: 'naive', files, catalogue, seed: 'w', workers: 2 });
    expect(two.lanes?.start).toBe(32);
    // Every scenario of the catalogue graded (under its own rule) or said not run; graded, those the baseline pins.
    const rules = Object.fromEntries(catalogue.map((e) => [e.scenario.id, e.scenario.rule]));
    expect([...two.results.map((x) => x.id), ...two.notRun.map((x) => x.id)].sort()).toEqual(Object.keys(rules).sort());
    for (const x of two.results) expect(x.rule, x.id).toBe(rules[x.id]);
    const published = baselineVerdicts('naive');
    expect(Object.keys(published).sort()).toEqual(two.results.map((x) => x.id).sort());
    expect(differences(two, published)).toEqual([]);
    expect(two.exitCode).toBe(1);
  });

  it('a run stopped by a signal ends its worker threads', { timeout: 120_000 }, async () => {
    const before = threads();
    const stop = new AbortController();
    const run = runProperties({
      client: 'reference',
      families,
      runs: 200,
      seed: 2,
      lanes: 8,
      workers: 2,
      signal: stop.signal,
      onCase: (_, done) => done === 5 && stop.abort(),
    });
    await expect(run).rejects.toBeInstanceOf(RunInterrupted);
    // The run's lanes close once the signal is seen; its worker thread ends with them.
    const deadline = Date.now() + 30_000;
    while (threads() > before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(threads()).toBeLessThanOrEqual(before);
  });
});
