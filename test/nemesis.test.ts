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
    expect(problem({ faults: [{ kind: 'partition' }] })).toBe('fault 1: "kind" must be one of unavailable, slow, drop, stream-ends');
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
});
