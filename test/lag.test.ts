/**
 * A delay of the harness is never the client's fault (DESIGN.md §3; issue 23, item 7). The harness
 * measures its own event-loop delay and CPU starvation per run; a TIMEOUT or FAIL met while it lagged
 * runs again on a drained lane, and both attempts are kept; the lanes back off while it lags. The
 * lag here is made for real: a client in this process that blocks the event loop on a run, so every
 * timer of the harness fires late.
 */
import { describe, expect, it } from 'vitest';
import { createBuiltinClient } from '../clients/index.js';
import type { ScenarioResult } from '../harness/core/results.js';
import type { ClientAdapter } from '../harness/core/protocol/adapter.js';
import { confirm, MAX_ATTEMPTS, MAX_STRETCH, restsOnTime, stretched, stretchMs } from '../harness/runner/judge/confirm.js';
import { judgeLag, lagWindow, LAG_BLOCK_MS, patientTimer } from '../harness/net/lag.js';
import { runProperties } from '../harness/runner/properties/run.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { FAMILIES } from '../harness/properties/families/index.js';
import { BUILTIN_FILES, scenario } from './helpers/scenarios.js';

/** Holds the event loop for `ms`: the harness's timers (the sampler's among them) fire late by that much. */
const block = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

/**
 * The reference client, except that on the runs `spoil` picks it blocks the harness's event loop for
 * 400 ms and then gives up without reading the card, as a client whose own budget ran out would (a
 * FAIL that rests on time: a refusal of a completable intent): a failure that comes with the harness
 * lagging.
 */
function spoiling(spoil: (scenario: string, n: number) => boolean): () => ClientAdapter {
  const seen = new Map<string, number>();
  return () => {
    const inner = createBuiltinClient('reference');
    return {
      hello: async () => ({ ...(await inner.hello()), name: 'spoiling-reference' }),
      run: async (req, signal) => {
        const n = (seen.get(req.scenario) ?? 0) + 1;
        seen.set(req.scenario, n);
        if (spoil(req.scenario, n)) {
          await new Promise((r) => setTimeout(r, 20));
          block(400);
          return { decision: 'rejected', errorClass: 'unnegotiable-card', degradations: [], taskIds: [], notes: 'out of time' };
        }
        return inner.run(req, signal);
      },
      close: async () => {
        await inner.close?.();
      },
    };
  };
}

const ONE = 'neg-push-mtls/https-receiver-polls';

describe('the harness measures its own lag', () => {
  it('a window over a blocked event loop is lagged, saying by how much; a quiet one is not', async () => {
    const quiet = lagWindow();
    await new Promise((r) => setTimeout(r, 200));
    const q = quiet.end();
    const busy = lagWindow();
    await new Promise((r) => setTimeout(r, 50));
    block(400);
    await new Promise((r) => setTimeout(r, 50));
    const b = busy.end();
    expect(b.lagged).toBe(true);
    expect(b.loopDelayMaxMs).toBeGreaterThanOrEqual(300);
    expect(b.why).toMatch(/held up to \d+ ms at once/);
    // A quiet window can still see the odd late timer on a loaded test machine: it is never blamed for 400 ms.
    expect(q.loopDelayMaxMs).toBeLessThan(b.loopDelayMaxMs);
  });

  it('judges by what the harness owed the run: a long block of its loop, or its loop late or a core waited for over a share of the run', () => {
    expect(judgeLag({ loopDelayMaxMs: LAG_BLOCK_MS - 1, loopLostMs: 50, wallMs: 1000 }).lagged).toBe(false);
    expect(judgeLag({ loopDelayMaxMs: LAG_BLOCK_MS + 1, loopLostMs: 300, wallMs: 3000 })).toMatchObject({
      lagged: true,
      why: expect.stringMatching(/held up to \d+ ms at once/),
    });
    expect(judgeLag({ loopDelayMaxMs: 90, loopLostMs: 40, runQueueWaitMs: 300, wallMs: 1000 })).toMatchObject({
      lagged: true,
      why: expect.stringMatching(/owed 300 ms of 1000 ms \(waiting for a core/),
    });
    expect(judgeLag({ loopDelayMaxMs: 90, loopLostMs: 400, wallMs: 3000 })).toMatchObject({
      lagged: true,
      why: expect.stringMatching(/owed 400 ms of 3000 ms \(its event loop running late/),
    });
    // A harness idle and on time while a client hung owes it nothing, however long the run.
    expect(judgeLag({ loopDelayMaxMs: 120, loopLostMs: 150, runQueueWaitMs: 60, wallMs: 3000 }).lagged).toBe(false);
  });
});

describe('a wait the harness imposes gives back what it owed', () => {
  const waited = (ms: number, during?: () => void) =>
    new Promise<number>((resolve) => {
      const from = performance.now();
      patientTimer(ms, () => resolve(performance.now() - from));
      if (during) setTimeout(during, 10);
    });

  it('a 300 ms wait over which the harness held its loop for 400 ms ends about 300 ms after the loop came back (what it owed, at most the length of the wait, given back)', async () => {
    // Without the give-back it would end as soon as the loop came back (410 ms in): the receiver called slow for the harness's block.
    const held = await waited(300, () => block(400));
    expect(held).toBeGreaterThanOrEqual(400 + 280);
    expect(held).toBeLessThan(300 + 300 + 400 + 2000);
    const quiet = await waited(100);
    expect(quiet).toBeGreaterThanOrEqual(99);
  });

  it('cleared, it never expires', async () => {
    let expired = false;
    patientTimer(50, () => (expired = true)).clear();
    await new Promise((r) => setTimeout(r, 150));
    expect(expired).toBe(false);
  });
});

describe('a failure met while the harness lagged is confirmed on a drained lane', () => {
  const result = (verdict: ScenarioResult['verdict'], lagged: boolean, basis = 'incomplete') =>
    ({
      id: 'x',
      verdict,
      checks: [{ rule: 'R', verdict, reason: 'why', evidence: [], basis }],
      outcome: { kind: 'reported' },
      lag: { loopDelayMaxMs: lagged ? 500 : 5, wallMs: 900, lagged },
      durationMs: 900,
    }) as unknown as ScenarioResult;

  it('a failure that does not come back is not reported; both attempts are kept', async () => {
    const r = await confirm(result('TIMEOUT', true), async () => result('PASS', false));
    expect(r.verdict).toBe('PASS');
    expect(r.attempts).toEqual([expect.objectContaining({ verdict: 'TIMEOUT', reason: 'R: why' })]);
  });
  it("one that comes back while the harness is quiet is the client's, whatever the load before", async () => {
    const r = await confirm(result('FAIL', true), async () => result('FAIL', false));
    expect(r.verdict).toBe('FAIL');
    expect(r.attempts).toHaveLength(1);
  });
  it(`one that comes back while the harness lags again is the client's too: ${MAX_ATTEMPTS} attempts at most`, async () => {
    let runs = 0;
    const r = await confirm(result('FAIL', true), async () => (runs++, result('FAIL', true)));
    expect(r.verdict).toBe('FAIL');
    expect(runs).toBe(MAX_ATTEMPTS - 1);
    expect(r.attempts).toHaveLength(MAX_ATTEMPTS - 1);
  });
  it('a verdict that turns on two events the wire cannot order (basis order), met while the harness lagged, is sampled again whatever it was: the second is reported', async () => {
    const r = await confirm(result('INFORMATIONAL', true, 'order'), async () => result('FAIL', false, 'duty'));
    expect(r.verdict).toBe('FAIL');
    expect(r.attempts).toEqual([expect.objectContaining({ verdict: 'INFORMATIONAL' })]);
    // Not lagged: the wire's order is what it is, and the verdict stands.
    let runs = 0;
    expect((await confirm(result('INFORMATIONAL', false, 'order'), async () => (runs++, result('FAIL', false)))).verdict).toBe('INFORMATIONAL');
    expect(runs).toBe(0);
  });
  it('a failure while the harness was under its thresholds, a pass while it lagged, or a failure that does not rest on time, is not run again', async () => {
    let runs = 0;
    const again = async () => (runs++, result('PASS', false));
    expect((await confirm(result('FAIL', false), again)).attempts).toBeUndefined();
    expect((await confirm(result('PASS', true), again)).attempts).toBeUndefined();
    // A blind retry, an up-front miss, a crash: the wire shows them however fast the harness answers.
    expect((await confirm(result('FAIL', true, 'harm'), again)).attempts).toBeUndefined();
    expect((await confirm(result('FAIL', true, 'up-front'), again)).attempts).toBeUndefined();
    expect((await confirm(result('FAIL', true, 'crash'), again)).attempts).toBeUndefined();
    expect(runs).toBe(0);
    // A TIMEOUT always rests on time; so does a check of WIRE-DEADLINE or WIRE-NO-ORPHANS, whatever its basis.
    expect(restsOnTime(result('TIMEOUT', true, 'deadline'))).toBe(true);
    const check = (rule: string, basis: string, verdict = 'FAIL') => ({ rule, verdict, reason: '', evidence: [], basis }) as ScenarioResult['checks'][number];
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('WIRE-NO-ORPHANS', 'harm')] })).toBe(true);
    // An orphan seen by the primary rule too is the same task left open; a blind retry beside it is not time's.
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('NEG-LIVE-INPUT', 'harm'), check('WIRE-NO-ORPHANS', 'harm')] })).toBe(true);
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('WIRE-NO-BLIND-RETRY', 'harm'), check('WIRE-NO-ORPHANS', 'harm')] })).toBe(false);
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('WIRE-DEADLINE', 'crash')] })).toBe(false);
    // A claim the ledger contradicts beside an orphan: the client never heard of its task in time. Alone: the wire's.
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('WIRE-HONEST-REPORT', 'claims'), check('WIRE-NO-ORPHANS', 'harm')] })).toBe(true);
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('WIRE-HONEST-REPORT', 'claims')] })).toBe(false);
    // …unless the harness owed the run most of its time: then whatever the client did is confirmed.
    const starvedRun = { ...result('FAIL', true, 'claims'), lag: { loopDelayMaxMs: 500, loopLostMs: 2000, wallMs: 3000, lagged: true } } as ScenarioResult;
    let reruns = 0;
    expect((await confirm(starvedRun, async () => (reruns++, result('PASS', false)))).verdict).toBe('PASS');
    expect(reruns).toBe(1);
  });

  it('the re-run is given back the time the harness owed the attempt before it, on top of its deadline (at most two deadlines more)', async () => {
    const owing = (lag: Partial<NonNullable<ScenarioResult['lag']>>, deadlineMs: number) =>
      ({ ...result('TIMEOUT', true), deadlineMs, lag: { loopDelayMaxMs: 500, wallMs: deadlineMs, lagged: true, ...lag } }) as ScenarioResult;
    const asked: number[] = [];
    const again = async (ms: number) => (asked.push(ms), { ...result('PASS', false), deadlineMs: 15_000 + ms });
    // Its loop late for 2 s, its thread waiting for a core 13.4 s: the larger is what it owed.
    const r = await confirm(owing({ loopLostMs: 2000, runQueueWaitMs: 13_400 }, 15_000), again);
    expect(asked).toEqual([13_400]);
    expect(r.attempts).toEqual([expect.objectContaining({ verdict: 'TIMEOUT', deadlineMs: 15_000 })]);
    expect(r.deadlineMs).toBe(28_400);
    expect(stretchMs(owing({ runQueueWaitMs: 50_000 }, 5000))).toBe(5000 * MAX_STRETCH);
    expect(stretchMs({ deadlineMs: 5000 })).toBe(0);
    // The scenario a re-run gets: its deadline longer by what was owed, in the scenario's own units under --deadline-multiplier.
    const s = scenario(ONE);
    expect(stretched(s, 3000).deadlineMs).toBe(s.deadlineMs + 3000);
    expect(stretched(s, 3000, 2).deadlineMs).toBe(s.deadlineMs + 1500);
    expect(stretched(s, 0)).toBe(s);
  });

  it('a NON_STRICT that rests on time (a stream held into the deadline) is confirmed too; one the wire shows at any speed is not, even in a starved run', async () => {
    let runs = 0;
    const again = async () => (runs++, result('PASS', false));
    const late = await confirm(result('NON_STRICT', true, 'deadline'), again);
    expect(late.verdict).toBe('PASS');
    expect(late.attempts).toEqual([expect.objectContaining({ verdict: 'NON_STRICT' })]);
    expect(runs).toBe(1);
    const duty = { ...result('NON_STRICT', true, 'duty'), lag: { loopDelayMaxMs: 500, loopLostMs: 2000, wallMs: 3000, lagged: true } } as ScenarioResult;
    expect((await confirm(duty, again)).attempts).toBeUndefined();
    expect(runs).toBe(1);
    // A FAIL is decided by its FAIL checks: a NON_STRICT duty beside a timeout does not make it the wire's.
    const check = (verdict: string, basis: string) => ({ rule: 'R', verdict, reason: '', evidence: [], basis }) as ScenarioResult['checks'][number];
    expect(restsOnTime({ verdict: 'FAIL', checks: [check('FAIL', 'incomplete'), check('NON_STRICT', 'duty')] })).toBe(true);
    expect(restsOnTime({ verdict: 'NON_STRICT', checks: [check('NON_STRICT', 'deadline'), check('NON_STRICT', 'duty')] })).toBe(false);
  });
});

describe('through the runner, with the lag made for real', () => {
  it('run: a scenario that failed while its client held the harness up runs again alone and gets its true verdict; both attempts are in results.json', async () => {
    const r = await runConformance({ adapter: spoiling((_, n) => n === 1), files: BUILTIN_FILES, pick: { ids: [ONE] }, lanes: 1 });
    const [x] = r.results;
    expect(x!.verdict).toBe('PASS');
    expect(x!.attempts).toHaveLength(1);
    expect(x!.attempts![0]).toMatchObject({ verdict: 'FAIL', lag: { lagged: true } });
    expect(x!.attempts![0]!.lag.loopDelayMaxMs).toBeGreaterThanOrEqual(300);
    // The re-run's deadline: the first's and the time the harness owed it (the 400 ms its loop was held, at least).
    expect(x!.deadlineMs - x!.attempts![0]!.deadlineMs!).toBeGreaterThanOrEqual(300);
    expect(x!.deadlineMs - x!.attempts![0]!.deadlineMs!).toBe(stretchMs({ ...x!.attempts![0]!, deadlineMs: x!.attempts![0]!.deadlineMs! }));
    expect(r.exitCode).toBe(0);
  });

  it('run: a failure that comes back every time is reported, with its attempts', async () => {
    const r = await runConformance({ adapter: spoiling(() => true), files: BUILTIN_FILES, pick: { ids: [ONE] }, lanes: 1 });
    const [x] = r.results;
    expect(x!.verdict).toBe('FAIL');
    expect(x!.attempts).toHaveLength(MAX_ATTEMPTS - 1);
    expect(r.exitCode).toBe(1);
  });

  it('run: the lanes back off while the harness lags, and say so', async () => {
    const ids = [
      'neg-push-mtls/https-receiver-polls',
      'neg-push-mtls/https-receiver-wants-push',
      'neg-push-mtls/mtls-receiver',
      'neg-push-mtls/bearer-push-no-mtls-signal',
      'wire/message-reply',
    ];
    const r = await runConformance({ adapter: spoiling((_, n) => n === 1), files: BUILTIN_FILES, pick: { ids }, lanes: 5 });
    expect(r.lanes!.start).toBe(5);
    expect(r.lanes!.backoffs).toBeGreaterThan(0);
    expect(r.lanes!.min).toBeLessThan(5);
    // Every scenario still gets the reference's verdict, each failure confirmed away.
    expect(r.results.filter((x) => x.verdict !== x.expect)).toEqual([]);
  });

  it('run --bail: a failure met while the harness lagged holds the lanes; confirmed, the run bails after it; not confirmed, the rest run', async () => {
    const ids = ['neg-push-mtls/https-receiver-polls', 'neg-push-mtls/mtls-receiver', 'wire/message-reply'];
    const first = (s: string) => s === [...seenFirst][0];
    const seenFirst = new Set<string>();
    const always = spoiling((s, n) => (n === 1 && seenFirst.size === 0 && seenFirst.add(s), first(s)));
    const bailed = await runConformance({ adapter: always, files: BUILTIN_FILES, pick: { ids }, lanes: 1, bail: true });
    expect(bailed.results).toHaveLength(1);
    expect(bailed.results[0]!.attempts).toHaveLength(1);
    expect(bailed.notRun.filter((n) => n.reason.startsWith('not run: --bail'))).toHaveLength(2);
    let once = false;
    const flaky = spoiling((_, n) => n === 1 && !once && (once = true));
    const all = await runConformance({ adapter: flaky, files: BUILTIN_FILES, pick: { ids }, lanes: 1, bail: true });
    expect(all.results).toHaveLength(3);
    expect(all.results.filter((x) => x.verdict !== x.expect)).toEqual([]);
    expect(all.results.filter((x) => x.attempts?.length)).toHaveLength(1);
  });

  it('properties: a case that failed while the harness lagged runs again on the drained pool and does not fail its family', async () => {
    const family = FAMILIES.find((f) => f.id === 'transport')!;
    let spoiled = 0;
    const r = await runProperties({ adapter: spoiling((_, n) => n === 1 && spoiled++ < 2), families: [family], runs: 12, seed: 3, lanes: 4 });
    const f = r.properties![0]!;
    expect(f.failed).toBe(false);
    const again = f.cases.filter((c) => c.attempts?.length);
    expect(again.length).toBe(2);
    expect(again.every((c) => c.attempts![0]!.verdict === 'FAIL' && c.attempts![0]!.lag.lagged)).toBe(true);
    expect(r.exitCode).toBe(0);
  });
});
