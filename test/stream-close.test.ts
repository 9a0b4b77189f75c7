/**
 * STREAM-CLOSE (issue 40, streams closed after use): a peer that writes a task's terminal event and
 * keeps the stream open (runtime.streamsStayOpen). The listener records how each streaming answer
 * ended (the peer's end, or the client's close), over SSE and gRPC; the reference takes the event
 * for the end and closes the stream; a client that waits on the stream, or reports and leaves it
 * open, is graded NON_STRICT with the stream's and the event's sequence numbers; a stall is harm.
 */
import { describe, expect, it } from 'vitest';
import { scenarioOverBinding } from '../harness/core/card-binding.js';
import type { HttpEvent, WireEvent } from '../harness/core/transcript.js';
import { startHarness } from './helpers/harness.js';
import { recorder } from './helpers/regrade.js';
import { scenario } from './helpers/scenarios.js';

const streams = (events: WireEvent[]) => events.filter((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'SendStreamingMessage');
const { record, regrade, checkOf } = recorder();

describe('STREAM-CLOSE', () => {
  it('the reference reads the terminal event as the end and closes the stream itself, over JSON-RPC, HTTP+JSON and gRPC: PASS; on the control the peer ends it', {
    timeout: 120_000,
  }, async () => {
    const h = await startHarness('reference');
    try {
      for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const) {
        const base = scenario('stream-close/left-open-after-terminal');
        const r = await h.run(binding === 'JSONRPC' ? base : scenarioOverBinding(base, binding));
        const c = r.checks.find((x) => x.rule === 'STREAM-CLOSE')!;
        expect(c.verdict, `${binding}: ${c.reason}`).toBe('PASS');
        const [s] = streams(r.transcript);
        expect(s!.streamEnd?.by, binding).toBe('client');
      }
      const control = await h.run(scenario('stream-close/control'));
      expect(streams(control.transcript)[0]!.streamEnd).toMatchObject({ by: 'peer' });
      expect(control.checks.find((x) => x.rule === 'STREAM-CLOSE')!.verdict).toBe('INFORMATIONAL');
    } finally {
      await h.close();
    }
  });

  it('a client that closes the stream and reports only at its budget waited on the stream: NON_STRICT; the same, prompt, PASS', {
    timeout: 60_000,
  }, async () => {
    const r = await record('reference', 'stream-close/left-open-after-terminal');
    expect(checkOf(r, 'STREAM-CLOSE').verdict).toBe('PASS');
    const end = r.transcript.find((e) => e.kind === 'sse' && e.state === 'TASK_STATE_COMPLETED')!;
    // The same run, had the client closed its stream and reported 3.5 s after the event (the deadline is 6 s).
    const late = end.t + 3500;
    const waited = r.transcript.map((e) => {
      if (e.kind === 'decision') return { ...e, t: late + 5 };
      if (e.kind === 'http' && e.rpc?.method === 'SendStreamingMessage') return { ...e, streamEnd: { by: 'client' as const, t: late } };
      return e;
    });
    const c = checkOf(regrade(r, waited), 'STREAM-CLOSE');
    // It rests on time (basis deadline): met while the harness lagged, it is confirmed before it is reported.
    expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'convention', basis: 'deadline' });
    expect(c.reason).toMatch(/it waited on the stream, not on the event/);
  });

  it('naive:leaves-stream-open reports on the event and never closes the stream: NON_STRICT at convention, naming the stream and the event', {
    timeout: 60_000,
  }, async () => {
    const r = await record('naive:leaves-stream-open', 'stream-close/left-open-after-terminal');
    const c = checkOf(r, 'STREAM-CLOSE');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'convention', basis: 'duty' });
    const [s] = streams(r.transcript);
    expect(s!.streamEnd).toBeUndefined();
    expect(c.evidence.map((e) => e.seq)).toContain(s!.seq);
    expect(c.reason).toMatch(/left the stream #\d+ open/);
  });

  it('naive:waits-for-stream-end cancels at its budget a task it had seen end: NON_STRICT; had it never reported, a stall (FAIL, harm)', {
    timeout: 60_000,
  }, async () => {
    const r = await record('naive:waits-for-stream-end', 'stream-close/left-open-after-terminal');
    const c = checkOf(r, 'STREAM-CLOSE');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'convention' });
    expect(c.reason).toMatch(/canceled task .* after its stream #\d+ had carried the task's terminal event/);
    const stalled = r.transcript
      .filter((e) => !(e.kind === 'http' && e.rpc?.method === 'CancelTask'))
      .map((e) => {
        if (e.kind === 'decision') return { ...e, outcome: 'timeout' as const };
        // Never reported, and the stream still open at the deadline.
        if (e.kind === 'http' && e.rpc?.method === 'SendStreamingMessage') {
          const { streamEnd: _, ...open } = e;
          return open;
        }
        return e;
      });
    const g = checkOf(regrade(r, stalled), 'STREAM-CLOSE');
    expect(g).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(g.reason).toMatch(/waited for an end of stream the terminal event had already told/);
    // A crash is no wait on the stream, nor a timeout after the client closed the stream itself: WIRE-DEADLINE's.
    const crashed = stalled.map((e) => (e.kind === 'decision' ? { ...e, outcome: 'crashed' as const } : e));
    expect(checkOf(regrade(r, crashed), 'STREAM-CLOSE').verdict).toBe('INFORMATIONAL');
    const closed = stalled.map((e) =>
      e.kind === 'http' && e.rpc?.method === 'SendStreamingMessage' ? { ...e, streamEnd: { by: 'client' as const, t: e.t + 100 } } : e,
    );
    expect(checkOf(regrade(r, closed), 'STREAM-CLOSE').verdict).toBe('INFORMATIONAL');
  });
});
