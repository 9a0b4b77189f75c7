/**
 * Grade what the client does, not only what it reports (issue 38, DESIGN.md §3): every acting call is
 * read against what the client genuinely knew when it made it. A forged delivery, a refusal that asks
 * to wait, and a stream that ended early are no news of a task's end; a cancel or a second task on
 * one of them is harm (WIRE-NO-DESTROYED-WORK), acting on a forgery is PUSH-AUTHENTICITY's MUST, and
 * a report that claims more than the ledger is WIRE-HONEST-REPORT's. Real runs over TLS of the naive
 * mutants that make each mistake, and of the reference; edited transcripts where a case needs a
 * client none of them is.
 */
import { describe, expect, it } from 'vitest';
import { scenarioOverBinding } from '../harness/core/card-binding.js';
import type { HttpEvent, PushAttemptEvent, WireEvent } from '../harness/core/transcript.js';
import { startHarness } from './helpers/harness.js';
import { recorder } from './helpers/regrade.js';
import { scenario } from './helpers/scenarios.js';

const { record, regrade, checkOf } = recorder();
const attempts = (events: WireEvent[]) => events.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');
const calls = (events: WireEvent[], method: string) => events.filter((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === method);

describe('a forged delivery is no news of the task’s end', () => {
  it('naive:cancels-on-forged-push cancels its healthy task on a forged FAILED and starts again: PUSH-AUTHENTICITY FAIL at MUST, WIRE-NO-DESTROYED-WORK FAIL (harm), both citing the forgery and the cancel', async () => {
    const r = await record('naive:cancels-on-forged-push', 'push-auth/wrong-credentials-failed');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    const cancel = calls(r.transcript, 'CancelTask')[0]!;
    expect(forged.state).toBe('TASK_STATE_FAILED');
    const auth = checkOf(r, 'PUSH-AUTHENTICITY');
    expect(auth).toMatchObject({ verdict: 'FAIL', level: 'MUST' });
    expect(auth.reason).toMatch(/canceled task .* after the forged delivery .* with no genuine word since .* it acted on a forgery/);
    expect(auth.evidence.map((e) => e.seq)).toEqual(expect.arrayContaining([forged.seq, cancel.seq]));
    const work = checkOf(r, 'WIRE-NO-DESTROYED-WORK');
    expect(work).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(work.reason).toMatch(/forged delivery/);
    // The client's own CancelTask answer is its act, never news of the task's end.
    expect(r.verdict).toBe('FAIL');
  });

  it('a receiver that refused the forgery (4xx) and a client that still stopped following: PUSH-AUTHENTICITY says it cannot tie the stop to the forgery; WIRE-DEADLINE fails it', async () => {
    const r = await record('reference', 'push-auth/no-credentials-completed');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    expect([401, 404]).toContain(forged.status);
    // The same client, had it reported right after the forgery with nothing more on the wire: nothing after the forgery's
    // connection was up either (on a loaded machine a poll of the client's lands while the forgery is on its way, and the
    // wire cannot order the two).
    const decision = r.transcript.find((e) => e.kind === 'decision')!;
    const reachable = forged.openT ?? forged.sentT ?? forged.t;
    const before = r.transcript.filter((e) => e === forged || (e.seq <= forged.seq && e.kind !== 'decision' && e.t <= reachable));
    const early = [...before, { ...decision, seq: forged.seq + 0.5, t: forged.t + 1 }];
    const g = regrade(r, early);
    const auth = checkOf(g, 'PUSH-AUTHENTICITY');
    expect(auth.verdict).toBe('INFORMATIONAL');
    expect(auth.reason).toMatch(/refused every forged end .* WIRE-DEADLINE and WIRE-NO-ORPHANS grade the stop/);
    expect(checkOf(g, 'WIRE-DEADLINE')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    // Had the receiver taken it (200), the wire ties the stop to the forgery: FAIL at MUST.
    const taken = early.map((e) => (e === forged ? { ...forged, status: 200, outcome: 'delivered' as const } : e));
    expect(checkOf(regrade(r, taken), 'PUSH-AUTHENTICITY')).toMatchObject({ verdict: 'FAIL', level: 'MUST' });
  });

  it('the reference refuses the forgery and follows its task to the real end: PASS on every rule that reads acts', async () => {
    const r = await record('reference', 'push-auth/wrong-credentials-failed');
    expect(r.verdict).toBe('PASS');
    expect(checkOf(r, 'WIRE-NO-DESTROYED-WORK').verdict).toBe('PASS');
  });
});

describe('a refusal that asks to wait is no news of the task’s end', () => {
  it('naive:cancels-on-transient-refusal cancels its task on a 429 with Retry-After and reports proceeded: WIRE-NO-DESTROYED-WORK FAIL (harm), WIRE-HONEST-REPORT FAIL', async () => {
    const r = await record('naive:cancels-on-transient-refusal', 'wire/rate-limited-poll');
    const refused = calls(r.transcript, 'GetTask').find((e) => e.status === 429)!;
    expect(refused.response?.retryAfter).toBe('1');
    const work = checkOf(r, 'WIRE-NO-DESTROYED-WORK');
    expect(work).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(work.reason).toMatch(/transient refusal/);
    expect(work.evidence.map((e) => e.seq)).toContain(refused.seq);
    const honest = checkOf(r, 'WIRE-HONEST-REPORT');
    expect(honest.verdict).toBe('FAIL');
    expect(honest.reason).toMatch(/canceled its task .* itself .* while the agent was carrying it to its end/);
  });

  it('the reference waits the Retry-After and polls again on every binding it speaks: PASS, no blind retry', async () => {
    const r = await record('reference', 'wire/rate-limited-poll');
    expect(r.verdict).toBe('PASS');
    const polls = calls(r.transcript, 'GetTask');
    expect(polls[0]!.status).toBe(429);
    expect(polls[1]!.t - polls[0]!.t).toBeGreaterThanOrEqual(1000);
  });

  it('the reference honours Retry-After over HTTP+JSON and gRPC too (gRPC: UNAVAILABLE with retry-after)', async () => {
    const h = await startHarness('reference');
    try {
      for (const binding of ['HTTP+JSON', 'GRPC'] as const) {
        const r = await h.run(scenarioOverBinding(scenario('wire/rate-limited-poll'), binding));
        expect(r.verdict, `${binding}: ${r.checks.map((c) => `${c.rule} ${c.verdict} ${c.reason}`).join('; ')}`).toBe('PASS');
        const polls = calls(r.transcript, 'GetTask');
        expect(polls.every((e) => e.binding === binding)).toBe(true);
        expect(polls[0]!.status).toBe(429);
        expect(polls[1]!.t - polls[0]!.t, binding).toBeGreaterThanOrEqual(1000);
      }
    } finally {
      await h.close();
    }
  });

  it('a client that stays on the selected interface, is answered 503 with Retry-After and gives up saying so: not FAIL on interface/first-busy-once', async () => {
    // naive:cancels-on-transient-refusal never waits: its first SendMessage on gRPC gets 503 and it declines, saying so.
    const r = await record('naive:cancels-on-transient-refusal', 'interface/first-busy-once');
    expect(r.claims?.decision).toBe('rejected');
    expect(calls(r.transcript, 'SendMessage').every((e) => e.binding === 'GRPC')).toBe(true);
    const c = checkOf(r, 'SPEC-INTERFACE-SELECTION');
    expect(c.verdict).toBe('PASS');
    expect(c.reason).toMatch(/stayed on the selected interface .* gave up and said so/);
  });
});

describe('a stream that ends early is no news of the task’s end', () => {
  it('naive:resends-after-stream-drop-by-send cancels the task and starts again by SendMessage with a new messageId and metadata: STREAM-RECOVERY FAIL (harm), WIRE-NO-DESTROYED-WORK FAIL (harm)', async () => {
    const r = await record('naive:resends-after-stream-drop-by-send', 'stream-recovery/closed-after-first-event');
    const stream = calls(r.transcript, 'SendStreamingMessage')[0]!;
    const again = calls(r.transcript, 'SendMessage')[0]!;
    expect(again.paramsDigest).not.toBe(stream.paramsDigest);
    expect(checkOf(r, 'STREAM-RECOVERY')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(checkOf(r, 'WIRE-NO-DESTROYED-WORK')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    // Cut before any event named the task: the client could not cancel it, and the message sent again is a second task.
    const cut = await record('naive:resends-after-stream-drop-by-send', 'stream-recovery/cut-before-first-event');
    expect(cut.ledger).toHaveLength(2);
    expect(checkOf(cut, 'WIRE-NO-DESTROYED-WORK')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(checkOf(cut, 'WIRE-NO-DESTROYED-WORK').reason).toMatch(/a second task .* after an early stream end/);
  });

  it('following up counts calls about the client’s own task: a GetTask of another task is no recovery', async () => {
    const r = await record('reference', 'stream-recovery/closed-after-first-event');
    expect(checkOf(r, 'STREAM-RECOVERY').verdict).toBe('PASS');
    // The same run with every follow-up naming another task.
    const elsewhere = r.transcript.map((e) =>
      e.kind === 'http' && (e.rpc?.method === 'GetTask' || e.rpc?.method === 'SubscribeToTask')
        ? { ...e, taskId: 'task-of-someone-else', rpc: { ...e.rpc, params: { id: 'task-of-someone-else' } } }
        : e,
    );
    const c = checkOf(regrade(r, elsewhere), 'STREAM-RECOVERY');
    expect(c.verdict).toBe('NON_STRICT');
    expect(c.reason).toMatch(/did not follow the task up/);
  });

  it('a stream cut only after the client canceled its task itself owes no follow-up: the cancel’s answer told it the end', async () => {
    const r = await record('reference', 'stream-recovery/closed-after-first-event');
    const stream = calls(r.transcript, 'SendStreamingMessage')[0]!;
    const own = r.ledger[0]!.id;
    const follow = (e: WireEvent) => e.kind === 'http' && (e.rpc?.method === 'GetTask' || e.rpc?.method === 'SubscribeToTask');
    const first = r.transcript.find(follow) as HttpEvent;
    // The same run, its first follow-up a cancel of the task made at a given time, and no other follow-up.
    const canceledAt = (t: number, answer: Partial<HttpEvent> = {}) =>
      r.transcript.flatMap((e) =>
        e === first ? [{ ...first, t, taskId: own, rpc: { ...first.rpc!, method: 'CancelTask', params: { id: own } }, ...answer }] : follow(e) ? [] : [e],
      );
    const before = checkOf(regrade(r, canceledAt(stream.streamEnd!.t)), 'STREAM-RECOVERY');
    expect(before.verdict).toBe('INFORMATIONAL');
    expect(before.reason).toMatch(/cut after the client had canceled its task itself/);
    // Canceled after the cut: the cut was news it did not follow up.
    expect(checkOf(regrade(r, canceledAt(stream.streamEnd!.t + 1)), 'STREAM-RECOVERY').verdict).toBe('NON_STRICT');
    // A cancel refused for now, or one whose answer was lost, told the client nothing of the end.
    expect(checkOf(regrade(r, canceledAt(stream.streamEnd!.t, { status: 503 })), 'STREAM-RECOVERY').verdict).toBe('NON_STRICT');
    const lost = { status: undefined, note: 'scripted: connection dropped before the answer, the call taken (runtime.reset)' };
    expect(checkOf(regrade(r, canceledAt(stream.streamEnd!.t, lost)), 'STREAM-RECOVERY').verdict).toBe('NON_STRICT');
  });
});

describe('WIRE-HONEST-REPORT counts the task ids that reached the client', () => {
  it('a task whose only answer was cut before its body named it need not be reported; one whose id the client saw must be', async () => {
    const r = await record('reference', 'stream-recovery/cut-before-first-event');
    expect(checkOf(r, 'WIRE-HONEST-REPORT').verdict).toBe('PASS');
    // A client that could not find the task (no ListTasks) and reported it declined, naming no task.
    const stream = calls(r.transcript, 'SendStreamingMessage')[0]!;
    const blind = r.transcript.filter(
      (e) => e.kind === 'decision' || e.kind === 'task' || e.seq <= stream.seq || (e.kind === 'sse' && e.requestSeq === stream.seq),
    );
    const g = regrade(r, blind, { claims: { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds: [], notes: '' } });
    const c = checkOf(g, 'WIRE-HONEST-REPORT');
    expect(c.verdict).toBe('PASS');
    expect(c.reason).toMatch(/no answer, event or push ever carried its id to the client/);
    // The reference did find it (ListTasks): leaving it out of its report then is dishonest.
    const g2 = regrade(r, r.transcript, { claims: { ...r.claims!, taskIds: [] } });
    expect(checkOf(g2, 'WIRE-HONEST-REPORT').verdict).toBe('FAIL');
  });
});

describe('PUSH-RECEIPT counts acts per delivery', () => {
  it('naive:acts-on-each-duplicate answers the original and the duplicate alike: NON_STRICT at SHOULD; the reference acts once: PASS', async () => {
    const r = await record('naive:acts-on-each-duplicate', 'push-receipt/duplicate');
    expect(checkOf(r, 'PUSH-RECEIPT')).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD' });
    expect(checkOf(await record('reference', 'push-receipt/duplicate'), 'PUSH-RECEIPT').verdict).toBe('PASS');
  });
});

describe('a verdict that does not change with load', () => {
  it('a probe task that ends while the client’s cancel waits to be handled is still a probe (hs-split-origin/stale-no-extended-card.v03, the cancel held 400 ms)', async () => {
    // Under load the probe's cancel was recorded before the task ended and handled after: refused as not cancelable,
    // and the oracle, reading the ledger's order, took the probe for the first real attempt (NON_STRICT). Here the
    // peer holds every CancelTask 400 ms (the probe's work takes 200), so the order happens every time.
    const base = scenario('hs-split-origin/stale-no-extended-card.v03');
    const held = { ...base, peer: { ...base.peer, runtime: { ...base.peer.runtime, slow: { ms: 400, method: 'CancelTask' as const } } } };
    const h = await startHarness('reference');
    try {
      const r = await h.run(held);
      const cancel = calls(r.transcript, 'CancelTask')[0]!;
      const ended = r.transcript.find((e) => e.kind === 'task' && e.taskId === cancel.taskId && e.cause === 'runtime')!;
      // The order load makes: the cancel on record before the task's end, refused because the task had ended.
      expect(cancel.seq).toBeLessThan(ended.seq);
      expect(cancel.rpcError?.code).toBe(-32002);
      expect(checkOf(r, 'HS-SPLIT-ORIGIN').verdict).toBe('PASS');
      expect(r.verdict).toBe('PASS');
    } finally {
      await h.close();
    }
  });
});
