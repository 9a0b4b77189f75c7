/**
 * The nemesis family (issue 45): faults over any story. A case is a case of one of the other
 * families (its card, runtime, profile and intent, told in either dialect as they are) with a
 * schedule of faults laid on its peer as `run --nemesis` lays them (harness/core/scenario/nemesis.ts):
 * calls refused for now with Retry-After, slow answers, answers cut mid-body, connections lost before
 * the answer, streams ended or reset mid-event before their task, tasks that stall, a card origin
 * briefly down, push deliveries withheld or late. The
 * story's own rule grades it as it would without the faults (a stalled task's completion aside), and
 * beside it every rule that reads the whole history: no second task for one intent, no task left
 * running, no blind retry, a report the ledger bears out, a decision within the deadline the faults
 * grew. Shrinking takes faults away, then makes each simplest (no wait, one call, any method), so a
 * counterexample names the fewest faults that break the client.
 *
 * Not among the families a plain `properties` runs: it is asked for by name (`--family nemesis`).
 */
import fc from 'fast-check';
import type { Fault } from '../../core/scenario/nemesis.js';
import type { Operation } from '../../core/scenario/runtime.js';
import type { Family, GeneratedCase } from '../family.js';
import { deliveryFamily } from './delivery.js';
import { handshakeFamily } from './handshake.js';
import { negotiationFamily } from './negotiation.js';
import { transportFamily } from './transport.js';
import { trustFamily } from './trust.js';
import { wireFamily } from './wire.js';

/** The operations a fault may name: those a task's course uses (the push configs' own are the delivery family's). */
const METHODS: Operation[] = ['SendMessage', 'SendStreamingMessage', 'GetTask', 'ListTasks', 'CancelTask', 'SubscribeToTask', 'GetExtendedAgentCard'];

/** Any method (what shrinking ends at), or one. */
const method = fc.option(fc.constantFrom(...METHODS), { nil: undefined, freq: 2 });
const on = (m: Operation | undefined) => (m ? { method: m } : {});

const unavailable = fc
  .record({ status: fc.constantFrom<503 | 429>(503, 429), retryAfterSeconds: fc.integer({ min: 0, max: 2 }), calls: fc.integer({ min: 1, max: 2 }), method })
  .map(({ method: m, ...f }): Fault => ({ kind: 'unavailable', ...f, ...on(m) }));
const slow = fc.record({ ms: fc.integer({ min: 20, max: 300 }), method }).map(({ method: m, ms }): Fault => ({ kind: 'slow', ms, ...on(m) }));
const drop = fc
  .record({ afterBytes: fc.constantFrom(0, 16, 64), calls: fc.integer({ min: 1, max: 2 }), method })
  .map(({ method: m, ...f }): Fault => ({ kind: 'drop', ...f, ...on(m) }));
const streamEnds = fc
  .record({ afterEvents: fc.integer({ min: 1, max: 3 }), midEvent: fc.boolean() })
  .map(({ afterEvents, midEvent }): Fault => ({ kind: 'stream-ends', afterEvents, ...(midEvent ? { midEvent } : {}) }));
const reset = fc.record({ calls: fc.integer({ min: 1, max: 2 }), method }).map(({ method: m, calls }): Fault => ({ kind: 'reset', calls, ...on(m) }));
const cardDown = fc
  .record({ retryAfterSeconds: fc.integer({ min: 0, max: 1 }), calls: fc.integer({ min: 1, max: 2 }) })
  .map((f): Fault => ({ kind: 'card-down', ...f }));
/** Deliveries never posted (what shrinking ends at), or posted late; every one, or the first few. */
const pushFails = fc
  .record({ deliveries: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }), lateMs: fc.option(fc.constantFrom(300, 1500), { nil: undefined }) })
  .map(({ deliveries, lateMs }): Fault => ({ kind: 'push-fails', ...(deliveries ? { deliveries } : {}), ...(lateMs ? { lateMs } : {}) }));

/**
 * Each kind's simplest value is the one fast-check shrinks to: no wait, one call, a short delay, the
 * first event and a clean end, every delivery lost. A stall holds its case to the whole deadline, so it is drawn a quarter as often.
 */
const fault: fc.Arbitrary<Fault> = fc.oneof(
  { arbitrary: unavailable, weight: 4 },
  { arbitrary: slow, weight: 4 },
  { arbitrary: drop, weight: 4 },
  { arbitrary: streamEnds, weight: 4 },
  { arbitrary: reset, weight: 4 },
  { arbitrary: cardDown, weight: 4 },
  { arbitrary: pushFails, weight: 4 },
  { arbitrary: fc.constant<Fault>({ kind: 'stall' }), weight: 1 },
);

/** A schedule: one to eight faults, one of each kind at most (as `run --nemesis` takes them). */
export const schedule: fc.Arbitrary<Fault[]> = fc.uniqueArray(fault, { minLength: 1, maxLength: 8, selector: (f) => f.kind });

/** The stories faults are laid over: every other family's. */
const STORIES = [negotiationFamily, handshakeFamily, trustFamily, transportFamily, deliveryFamily, wireFamily];

/** A family of one story (transport's certificates) would be a sixth of the cases, and mints a task in few: a third of another's weight. */
const stories = fc.oneof(...STORIES.map((f) => ({ arbitrary: f.arbitrary, weight: f === transportFamily ? 1 : 3 })));

/**
 * The stories' controls: a case whose runtime honours its card, no drift. A drift is a fault of its own
 * that its family already grades; on a clean story, what fails is the client's handling of the faults.
 */
const clean = stories.filter((c) => c.drifts.length === 0);

const faulted: fc.Arbitrary<GeneratedCase> = fc.tuple(clean, schedule).map(([c, faults]): GeneratedCase => ({ ...c, nemesis: { faults } }));

export const nemesisFamily: Family = {
  id: 'nemesis',
  title: 'Nemesis: faults over any story',
  rules: ['WIRE-NO-BLIND-RETRY', 'WIRE-NO-DESTROYED-WORK', 'WIRE-NO-ORPHANS', 'WIRE-HONEST-REPORT', 'WIRE-DEADLINE', 'STREAM-RECOVERY'],
  spec: 'A2A v1.0.1 §3.3.1 (idempotency), §3.3.2 (temporary failures, Retry-After), §3.1.2 and §3.1.6 (a stream that ends, a task followed)',
  arbitrary: faulted,
};
