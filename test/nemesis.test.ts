/**
 * The nemesis as data (issue 45): a schedule of faults read from JSON, each a runtime incident, laid on
 * a scenario's peer where its story leaves room, the client's deadline grown by what the faults cost.
 */
import { describe, expect, it } from 'vitest';
import { delayMs, faultText, overlay, parseNemesis } from '../harness/core/scenario/nemesis.js';
import { scenario } from './helpers/scenarios.js';

describe('a nemesis schedule', () => {
  it('reads each fault kind, with its defaults', () => {
    const n = parseNemesis({
      faults: [{ kind: 'unavailable' }, { kind: 'slow', ms: 200, method: 'GetTask' }, { kind: 'drop', calls: 2 }, { kind: 'stream-ends' }],
    });
    expect(n.faults).toEqual([
      { kind: 'unavailable', status: 503, retryAfterSeconds: 1, calls: 1 },
      { kind: 'slow', ms: 200, method: 'GetTask' },
      { kind: 'drop', afterBytes: 0, calls: 2 },
      { kind: 'stream-ends', afterEvents: 1 },
    ]);
    // The list alone is a schedule too.
    expect(parseNemesis([{ kind: 'slow', ms: 5 }]).faults).toHaveLength(1);
    expect(n.faults.map(faultText)).toEqual([
      '503 with Retry-After: 1 for the first 1 call(s) of any method',
      'every answer on GetTask 200 ms late',
      'the first 2 answer(s) of any method cut after 0 bytes of the body',
      'every stream ended after 1 event(s), before its task',
    ]);
  });

  it('refuses what it cannot lay, in one line naming the fault and the field', () => {
    const problem = (v: unknown) => {
      try {
        parseNemesis(v);
        return 'no problem';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(problem({})).toMatch(/at least one fault/);
    expect(problem({ faults: [{ kind: 'partition' }] })).toBe(
      'fault 1: "kind" must be one of unavailable, slow, drop, reset, stream-ends, stall, card-down, push-fails',
    );
    expect(problem({ faults: [{ kind: 'reset', afterBytes: 3 }] })).toBe('fault 1 (reset): unknown field "afterBytes" (it takes calls, method)');
    expect(problem({ faults: [{ kind: 'slow' }] })).toBe('fault 1 (slow): "ms" must be a whole number from 1 to 5000');
    expect(problem({ faults: [{ kind: 'unavailable', status: 500 }] })).toBe('fault 1 (unavailable): "status" must be 503 or 429');
    expect(problem({ faults: [{ kind: 'drop', method: 'Get' }] })).toMatch(/^fault 1 \(drop\): "method" must be an A2A operation \(SendMessage, /);
    expect(problem({ faults: [{ kind: 'slow', ms: 1, when: 'now' }] })).toBe('fault 1 (slow): unknown field "when" (it takes ms, method)');
    expect(
      problem({
        faults: [
          { kind: 'slow', ms: 1 },
          { kind: 'slow', ms: 2 },
        ],
      }),
    ).toBe('fault 2: a second "slow" fault (a schedule lays one of each kind)');
    for (const v of [null, 'slow', [1], { faults: {} }]) expect(problem(v)).not.toBe('no problem');
  });

  it("lays its faults on a scenario's peer and grows the deadline by what they cost; a scenario that scripts the incident keeps its own", () => {
    const n = parseNemesis({ faults: [{ kind: 'unavailable', retryAfterSeconds: 2, calls: 1 }, { kind: 'stream-ends' }] });
    const plain = scenario('wire/message-reply');
    const { scenario: s, applied } = overlay(plain, n);
    expect(s.peer.runtime.unavailable).toEqual({ status: 503, retryAfterSeconds: 2, calls: 1 });
    expect(applied.laid.map((f) => f.kind)).toEqual(['unavailable']);
    // No stream to end on a peer that serves none.
    expect(plain.peer.runtime.streaming).toBe(false);
    expect(applied.left).toEqual([{ fault: n.faults[1], why: 'the peer serves no stream to end' }]);
    expect(s.deadlineMs).toBe(plain.deadlineMs + delayMs(n.faults[0]!));
    expect(applied.deadlineAddedMs).toBe(4000);
    // The scenario it came from is untouched.
    expect(plain.peer.runtime.unavailable).toBeUndefined();
    // A scenario about a 503 keeps its own: its story and its grading stand.
    const own = scenario('wire/rate-limited-poll');
    const kept = overlay(own, n);
    expect(kept.scenario.peer.runtime.unavailable).toEqual(own.peer.runtime.unavailable);
    expect(kept.applied.left[0]!.why).toMatch(/scripts runtime.unavailable itself/);
    // Real time, whatever --deadline-multiplier: added in the scenario's units so that the client gets all of it.
    expect(overlay(plain, n, 2).scenario.deadlineMs).toBe(plain.deadlineMs + 2000);
    expect(overlay(plain, n, 2).applied.deadlineAddedMs).toBe(4000);
  });

  it('leaves a stream fault off a scenario whose story is the course of its streams: it would take away what the rule grades', () => {
    const n = parseNemesis({ faults: [{ kind: 'stream-ends' }, { kind: 'drop' }] });
    for (const id of ['stream-framing/one-mib-line', 'stream-bounds/no-line-end', 'stream-refusal/plain-json-error']) {
      const { applied } = overlay(scenario(id), n);
      expect(applied.laid, id).toEqual([]);
      expect(applied.left.map((l) => l.why).join(' | '), id).toMatch(/the scenario's story is the course of its streams \(runtime\.\w+\)/);
    }
    // A stream rule's variant where it does not bind (the stream ends at the task's end): an early end would make it bind.
    expect(overlay(scenario('stream-recovery/ends-at-terminal'), n).applied.left[0]!.why).toMatch(
      /STREAM-RECOVERY's, whose story is the course of its streams/,
    );
    expect(() => parseNemesis({ faults: [{ kind: 'stream-ends', afterEvents: 0 }] })).toThrow('"afterEvents" must be a whole number from 1 to 100');
  });

  it('leaves a lost answer where no client could get over it, or where it would take away what the rule grades; the family lays a stream fault on a STREAM rule’s story', () => {
    const n = parseNemesis({ faults: [{ kind: 'reset', calls: 2 }] });
    expect(n.faults.map(faultText)).toEqual(['the connection closed before the answer to the first 2 call(s) of any method, each call taken']);
    expect(overlay(scenario('wire/message-reply'), n).scenario.peer.runtime.reset).toEqual({ calls: 2 });
    // Told in v0.3 (no tasks/list), the task a lost message answer named is out of the client's reach.
    expect(overlay(scenario('wire/message-reply.v03'), n).applied.left[0]!.why).toMatch(/^A2A v0\.3's JSON-RPC has no tasks\/list/);
    // A lost read is one any client can read again: laid, in v0.3 too.
    expect(overlay(scenario('wire/message-reply.v03'), parseNemesis([{ kind: 'drop', method: 'GetTask' }])).applied.laid).toHaveLength(1);
    expect(overlay(scenario('tolerant-decoding/future-state-polled'), n).applied.left[0]!.why).toMatch(/TOLERANT-DECODING's/);
    expect(overlay(scenario('push-receipt/genuine'), n).applied.left[0]!.why).toMatch(/course of its push deliveries/);
    // `run --nemesis` keeps a STREAM rule's non-binding variant as written; a family's case (which asks only for no FAIL) takes the fault.
    const ends = parseNemesis([{ kind: 'stream-ends' }]);
    expect(overlay(scenario('stream-recovery/ends-at-terminal'), ends, 1, false).applied.laid).toHaveLength(1);
  });

  it('a stall: only where no expect must stand (the family), never on a task that already waits on the client, and with no refusal of the cancel it ends in', () => {
    const n = parseNemesis([{ kind: 'stall' }, { kind: 'unavailable', retryAfterSeconds: 0 }, { kind: 'slow', ms: 10 }]);
    const plain = scenario('wire/message-reply');
    expect(overlay(plain, n).applied.left[0]!.why).toMatch(/^a task that never ends changes what the scenario's story grades/);
    const { scenario: s, applied } = overlay(plain, n, 1, false);
    expect(s.peer.runtime.stalls).toBe(true);
    expect(applied.laid.map((f) => f.kind)).toEqual(['stall', 'slow']);
    // The cancel a stalled task ends in comes at the deadline: a refusal then would leave no client time to send it again.
    expect(s.peer.runtime.unavailable).toBeUndefined();
    expect(applied.left.map((l) => l.why)).toEqual([expect.stringMatching(/^the task stalls: its cancel comes at the deadline/)]);
    // A refusal of another method stays.
    expect(overlay(plain, parseNemesis([{ kind: 'stall' }, { kind: 'unavailable', method: 'GetTask' }]), 1, false).applied.laid).toHaveLength(2);
    expect(faultText(n.faults[0]!)).toBe('every task stalled: held WORKING, never ended by the peer');
  });

  it('push deliveries lost or late: laid where the peer pushes and no delivery is its story; one line per problem', () => {
    const lost = parseNemesis([{ kind: 'push-fails' }]);
    expect(lost.faults).toEqual([{ kind: 'push-fails' }]);
    expect(faultText(lost.faults[0]!)).toBe('every push delivery never posted');
    const late = parseNemesis([{ kind: 'push-fails', deliveries: 2, lateMs: 1000 }]);
    expect(faultText(late.faults[0]!)).toBe('the first 2 push delivery(ies) posted 1000 ms late');
    const { scenario: s, applied } = overlay(scenario('hs-aspirational/push-works'), late);
    expect(s.peer.runtime.pushFails).toEqual({ deliveries: 2, lateMs: 1000 });
    // A second and a half to learn the end by a poll, however late the delivery.
    expect(applied.deadlineAddedMs).toBe(1500);
    expect(overlay(scenario('wire/message-reply'), lost).applied.left[0]!.why).toBe('the peer delivers no push');
    expect(overlay(scenario('push-receipt/genuine'), lost).applied.left[0]!.why).toMatch(/^the scenario is PUSH-RECEIPT's/);
    expect(overlay(scenario('push-receipt/genuine'), lost, 1, false).applied.laid).toHaveLength(1);
    expect(() => parseNemesis([{ kind: 'push-fails', lateMs: 0 }])).toThrow('fault 1 (push-fails): "lateMs" must be a whole number from 1 to 10000');
    expect(() => parseNemesis([{ kind: 'push-fails', calls: 1 }])).toThrow('fault 1 (push-fails): unknown field "calls" (it takes deliveries, lateMs)');
  });

  it('a stream reset mid-event: stream-ends with midEvent, laid as stream-ends is', () => {
    const n = parseNemesis([{ kind: 'stream-ends', afterEvents: 2, midEvent: true }]);
    expect(faultText(n.faults[0]!)).toBe("every stream reset mid-way through the event after its first 2, before its task's end");
    const { scenario: s } = overlay(scenario('hs-split-origin/same-origin'), n);
    expect(s.peer.runtime.streamEnds).toEqual({ afterEvents: 2, midEvent: true });
    expect(parseNemesis([{ kind: 'stream-ends', midEvent: false }]).faults).toEqual([{ kind: 'stream-ends', afterEvents: 1 }]);
    expect(() => parseNemesis([{ kind: 'stream-ends', midEvent: 'yes' }])).toThrow('fault 1 (stream-ends): "midEvent" must be true or false');
  });

  it("a card origin briefly down: the card's first fetches refused for now, the deadline grown by the waits", () => {
    const n = parseNemesis([{ kind: 'card-down', calls: 2 }]);
    expect(n.faults).toEqual([{ kind: 'card-down', retryAfterSeconds: 1, calls: 2 }]);
    expect(faultText(n.faults[0]!)).toBe("the card's origin down for its first 2 fetch(es): 503 with Retry-After: 1");
    const plain = scenario('wire/message-reply');
    const { scenario: s, applied } = overlay(plain, n);
    expect(s.peer.runtime.cardUnavailable).toEqual({ calls: 2, retryAfterSeconds: 1 });
    expect(applied.deadlineAddedMs).toBe(6000);
  });
});
