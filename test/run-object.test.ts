/**
 * A run is an object, not process state (issue 44 item 4): a run changes nothing of the process (its
 * environment, its temp folder), so two runs in one process stand apart, and a run a test abandoned
 * (as a test that timed out abandons its own) makes no later test fail.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from '../harness/runner/engine/run.js';
import { BUILTIN_FILES, scenario } from './helpers/scenarios.js';

const abandoned: Array<Promise<unknown>> = [];
afterAll(async () => {
  // What the abandoned runs leave is theirs to clean up: each ends and removes its folder.
  await Promise.allSettled(abandoned);
});

const one = (id: string, client = 'reference') => runConformance({ client, files: BUILTIN_FILES, pick: { ids: [id] }, lanes: 1 });

describe('a run is an object', () => {
  it('changes neither TMPDIR nor the run mark of the process while it runs', async () => {
    const before = { tmp: process.env.TMPDIR, mark: process.env.A2A_CONFORMANCE_RUN };
    const run = one('hs-challenge/token-expires-mid-task');
    await new Promise((r) => setTimeout(r, 300));
    expect({ tmp: process.env.TMPDIR, mark: process.env.A2A_CONFORMANCE_RUN }).toEqual(before);
    expect((await run).results[0]?.verdict).toBe(scenario('hs-challenge/token-expires-mid-task').expect);
  });

  it('a run left running (as a timed-out test leaves it) does not stop the next one', async () => {
    // Started and not awaited here: the test that started it has "timed out".
    abandoned.push(one('stream-bounds/endless-event'));
    await new Promise((r) => setTimeout(r, 200));
    const next = await one('spec-tls-verify/valid-certificate-control');
    expect(next.results.map((r) => r.verdict)).toEqual(['PASS']);
  });

  it('two runs at once in one process, with different clients, each get their own verdicts', async () => {
    const [a, b] = await Promise.all([one('spec-tls-verify/expired'), one('spec-tls-verify/expired', 'naive:skips-tls-verify')]);
    expect(a.results[0]?.verdict).toBe('PASS');
    expect(b.results[0]?.verdict).toBe('FAIL');
  });
});
