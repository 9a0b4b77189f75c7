/**
 * Two faults of a nemesis (docs/nemesis.md) met by a client end to end, each with its control: push
 * deliveries lost or late (`push-fails`), and a stream reset mid-event (`stream-ends` with
 * `midEvent`). The reference gets the scenario's expect under each; a naive client that leans on what
 * the fault takes away passes without it and fails with it, so the fault is what it fails on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeInput } from '../harness/core/oracle/evidence.js';
import { alarms } from '../harness/core/oracle/knowledge.js';
import { overlay, parseNemesis } from '../harness/core/scenario/nemesis.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { HttpEvent, PushAttemptEvent, WireEvent } from '../harness/core/transcript.js';
import { type InProcessHarness, startHarness } from './helpers/harness.js';
import { scenario } from './helpers/scenarios.js';

const harnesses = new Map<string, InProcessHarness>();
async function run(client: string, s: Scenario) {
  let h = harnesses.get(client);
  if (!h) harnesses.set(client, (h = await startHarness(client)));
  return h.run(s);
}
/** The scenario with the faults laid as the family lays them. */
const under = (id: string, faults: unknown) => overlay(scenario(id), parseNemesis(faults), 1, false).scenario;
const notes = (t: WireEvent[]) => t.flatMap((e) => (e.kind === 'harness' ? [e.message] : []));
const pushes = (t: WireEvent[]) => t.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');

beforeAll(async () => {
  harnesses.set('reference', await startHarness('reference'));
});
afterAll(async () => {
  for (const h of harnesses.values()) await h.close();
});

describe('push-fails: deliveries lost on their way, or late', () => {
  const PUSH = 'hs-aspirational/push-works';

  it('lost: never posted, noted in the transcript; the reference learns the end by polling and passes', async () => {
    const r = await run('reference', under(PUSH, [{ kind: 'push-fails' }]));
    expect(r.verdict).toBe('PASS');
    expect(notes(r.transcript)).toEqual([
      expect.stringMatching(/^scripted: push of TASK_STATE_COMPLETED for task \S+ withheld, never posted \(runtime\.pushFails\)$/),
    ]);
    expect(pushes(r.transcript)).toEqual([]);
  });

  it('lost: a client that waits on push alone passes without the fault and finds no end with it (TIMEOUT)', async () => {
    const control = await run('naive:registers-unusable-push', scenario(PUSH));
    expect(control.verdict).toBe('PASS');
    expect(pushes(control.transcript).map((p) => p.outcome)).toContain('delivered');
    const faulted = await run('naive:registers-unusable-push', under(PUSH, [{ kind: 'push-fails' }]));
    expect(faulted.verdict).toBe('TIMEOUT');
  });

  it('late: posted that much later while the client still runs; the reference passes, and so does a client that waits on push alone', async () => {
    const r = await run('reference', under(PUSH, [{ kind: 'push-fails', lateMs: 300 }]));
    expect(r.verdict).toBe('PASS');
    expect(notes(r.transcript)[0]).toMatch(/held 300 ms/);
    // Posted late or, where the reference had its answer by polling first, not at all: never on time.
    const held = (t: WireEvent[]) => t.find((e) => e.kind === 'harness')!.t;
    expect(pushes(r.transcript).length).toBeLessThanOrEqual(1);
    for (const p of pushes(r.transcript)) expect(p.sentT!).toBeGreaterThanOrEqual(held(r.transcript) + 300 - 5);
    // A client that waits on push alone is still running when the held delivery is due: it is posted, late, and ends the wait.
    const alone = await run('naive:registers-unusable-push', under(PUSH, [{ kind: 'push-fails', lateMs: 300 }]));
    expect(alone.verdict).toBe('PASS');
    const [late] = pushes(alone.transcript);
    expect(late).toMatchObject({ state: 'TASK_STATE_COMPLETED', outcome: 'delivered' });
    expect(late!.sentT!).toBeGreaterThanOrEqual(held(alone.transcript) + 300 - 5);
  });
});

describe('stream-ends with midEvent: a stream reset half-way through an event', () => {
  const STREAM = 'hs-split-origin/same-origin';
  const cut = (t: WireEvent[]) => t.filter((e): e is HttpEvent => e.kind === 'http' && /runtime\.streamEnds\.midEvent/.test(e.note ?? ''));

  it('the reference follows the task up after the reset and passes; the early end is dated by the reset, not the last whole event', async () => {
    const s = under(STREAM, [{ kind: 'stream-ends', midEvent: true }]);
    const r = await run('reference', s);
    expect(r.verdict).toBe('PASS');
    const [stream] = cut(r.transcript);
    expect(stream).toBeDefined();
    // The stream stayed open after its one whole event until the next began: what the client knew before then was no end.
    const lastWhole = r.transcript.filter((e) => e.kind === 'sse' && e.requestSeq === stream!.seq).at(-1)!;
    expect(stream!.streamEnd!.t).toBeGreaterThan(lastWhole.t);
    const x = { scenario: s, events: r.transcript, tasks: r.ledger } as unknown as GradeInput;
    const end = alarms(x).find((a) => a.kind === 'early stream end' && a.seq === stream!.seq)!;
    expect(end.t).toBe(stream!.streamEnd!.t);
  });

  it('a client that sends its message again when a stream drops passes without the fault and fails with it', async () => {
    const control = await run('naive:resends-on-stream-drop', scenario(STREAM));
    expect(control.verdict).toBe('PASS');
    expect(cut(control.transcript)).toEqual([]);
    const faulted = await run('naive:resends-on-stream-drop', under(STREAM, [{ kind: 'stream-ends', midEvent: true }]));
    expect(cut(faulted.transcript)).toHaveLength(1);
    expect(faulted.verdict).toBe('FAIL');
    expect(faulted.ledger.length).toBeGreaterThanOrEqual(2);
  });
});
