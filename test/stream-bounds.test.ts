/**
 * STREAM-BOUNDS (issue 40, hostile streams): after its first event the peer's stream sends a line, or
 * an event, that never ends (runtime.hostileStream). The listener counts the bytes it wrote and who
 * ended the stream; the rule tells a client that gave the stream up within a bound of its own from
 * one that had none, and a success taken from the stuck stream from one the client saw.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_STREAM_BYTES, type HttpEvent, type WireEvent } from '../harness/core/transcript.js';
import type { ScenarioResult } from '../harness/core/results.js';
import { summarize } from '../harness/runner/judge/policy.js';
import { regradeRun } from '../harness/runner/judge/regrade.js';
import { recorder } from './helpers/regrade.js';
import { scenario } from './helpers/scenarios.js';

const { record, regrade, checkOf } = recorder();
const stream = (events: WireEvent[]) => events.find((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'SendStreamingMessage')!;

describe('STREAM-BOUNDS', () => {
  it('the reference gives each hostile stream up past its 4 MiB bound, closes it, and follows the task to its end: PASS', { timeout: 120_000 }, async () => {
    for (const id of ['stream-bounds/no-line-end', 'stream-bounds/endless-event']) {
      const r = await record('reference', id);
      const s = stream(r.transcript);
      expect(s.streamEnd?.by, id).toBe('client');
      expect(s.streamBytes!, id).toBeGreaterThan(4 * 1024 * 1024);
      expect(s.streamBytes!, id).toBeLessThan(HOSTILE_STREAM_BYTES);
      expect(checkOf(r, 'STREAM-BOUNDS'), id).toMatchObject({
        verdict: 'PASS',
        reason: expect.stringMatching(/gave the stream #\d+ up after .* MiB .* saw task \S+ end/),
      });
      expect(r.verdict, id).toBe('PASS');
    }
  });

  it('no bound: all 24 MiB taken before the stream was closed, NON_STRICT at convention; a success reported without the task seen to end is harm', {
    timeout: 120_000,
  }, async () => {
    const r = await record('naive:buffers-without-bound', 'stream-bounds/no-line-end');
    expect(stream(r.transcript).streamBytes).toBeGreaterThanOrEqual(HOSTILE_STREAM_BYTES);
    // All of it taken: the wire's at any speed (basis duty).
    expect(checkOf(r, 'STREAM-BOUNDS')).toMatchObject({ verdict: 'NON_STRICT', level: 'convention', basis: 'duty' });
    // The reference's run, its follow-up taken away: a report of success with only the stuck stream behind it.
    const ok = await record('reference', 'stream-bounds/endless-event');
    const s = stream(ok.transcript);
    const cut = ok.transcript.filter((e) => e.kind !== 'http' || e.seq <= s.seq);
    const c = checkOf(regrade(ok, cut, { claims: { ...ok.claims!, decision: 'proceeded' } }), 'STREAM-BOUNDS');
    expect([c.verdict, c.basis]).toEqual(['FAIL', 'harm']);
    // Had the reference closed its stream only in the deadline's last quarter (with less than all of it taken): NON_STRICT
    // resting on time (basis deadline), confirmed on a drained lane when the harness lagged.
    const held = ok.transcript.map((e) => (e.kind === 'http' && e.seq === s.seq ? { ...e, streamEnd: { by: 'client' as const, t: ok.deadlineMs * 0.8 } } : e));
    expect(checkOf(regrade(ok, held), 'STREAM-BOUNDS')).toMatchObject({ verdict: 'NON_STRICT', basis: 'deadline' });
    // The deadline is the one the client was given: the same close, 12 s in, in a run whose deadline --deadline-multiplier 2
    // (or a re-run stretched by what the harness owed) made 30 s, is well before its last quarter. results.json keeps the
    // given deadline; grading the record again reads it, as the run's own grading did.
    const recorded = (deadlineMs: number): ScenarioResult => ({ ...ok, deadlineMs, transcript: held, verdict: 'NON_STRICT', checks: regrade(ok, held).checks });
    const scenarios = new Map([[ok.id, scenario(ok.id)]]);
    const again = (deadlineMs: number) => regradeRun({ results: [recorded(deadlineMs)], summary: summarize([recorded(deadlineMs)]) }, scenarios);
    expect(again(ok.deadlineMs).differences).toEqual([]);
    expect(again(ok.deadlineMs * 2).differences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rule: 'STREAM-BOUNDS', recorded: 'NON_STRICT (deadline, convention)', regraded: expect.stringMatching(/^PASS/) }),
      ]),
    );
    expect(c.reason).toMatch(/never ended its event, and the client reported proceeded without having seen the task end/);
    // The same report after a subscription refused as the task's end (UnsupportedOperationError, the task terminal, §9.4.6):
    // the client was told the task ended, so its report rests on that. A subscription refused for another reason tells nothing.
    const task = ok.ledger.find((t) => t.id === s.taskId) ?? ok.ledger[0]!;
    const refusal = (code: number) => ({
      ...s,
      seq: s.seq + 1,
      t: s.t + 1,
      rpc: { ...s.rpc!, method: 'SubscribeToTask' as const },
      rpcError: { code, message: 'refused' },
      taskId: task.id,
      taskState: 'TASK_STATE_COMPLETED',
      streamBytes: undefined,
      streamEnd: undefined,
    });
    const told = checkOf(regrade(ok, [...cut, refusal(-32004)], { claims: { ...ok.claims!, decision: 'proceeded' } }), 'STREAM-BOUNDS');
    expect(told.verdict).toBe('PASS');
    const other = checkOf(regrade(ok, [...cut, refusal(-32603)], { claims: { ...ok.claims!, decision: 'proceeded' } }), 'STREAM-BOUNDS');
    expect([other.verdict, other.basis]).toEqual(['FAIL', 'harm']);
  });
});
