/**
 * `peerRuntime`: how a generated peer really behaves. By default it honours its card: it streams when
 * the card says so, emits what the card offers on the task, takes push where the card claims it. A
 * story then names the drifts it applies, each one a way the rules know a runtime departs from its
 * card (`DRIFTS`), and the case records which it applied: the oracle knows them, the client sees
 * only the wire.
 */
import fc from 'fast-check';
import type { ListenerKind, PeerRuntime } from '../core/scenario/runtime.js';

/** The ways a runtime departs from its card that the rules know (issue 13; docs/duties.md; issue 27's streams that end before their task, and deliveries forged or posted twice to the client's receiver; issue 38's calls answered "busy, come back in a second"; issue 40's framings, refused streams, unknown members, streams left open and credentials over several origins). */
const DRIFTS = [
  'hidden-ceiling',
  'lost-callbacks',
  'resubscribe-only-outputs',
  'media-type-drift',
  'skill-narrowing',
  'auth-challenge',
  'missing-methods',
  'stale-card',
  'refuses-frames',
  'bad-certificate',
  'stream-ends-early',
  'forged-push',
  'duplicate-push',
  'busy-answer',
  'sse-framing',
  'stream-refused',
  'unknown-fields',
  'stream-stays-open',
  'split-credentials',
  'hostile-stream',
] as const;
export type Drift = (typeof DRIFTS)[number];

export interface PeerRuntimeConstraints {
  cardListener?: ListenerKind;
  rpcListener?: ListenerKind;
  streaming: boolean;
  /** What the runtime emits on the task (default `text/plain`). */
  outputs?: PeerRuntime['outputs'];
  push?: PeerRuntime['push'];
  /** Bounds of the time a task spends WORKING (default 60–250 ms). */
  workMs?: { min: number; max: number };
}

export function peerRuntime(c: PeerRuntimeConstraints): fc.Arbitrary<PeerRuntime> {
  const work = c.workMs ?? { min: 60, max: 250 };
  if (work.min < 0 || work.max < work.min) throw new Error('peerRuntime: workMs needs 0 <= min <= max');
  return fc.integer(work).map((workMs) => ({
    cardListener: c.cardListener ?? 'tls',
    rpcListener: c.rpcListener ?? 'tls',
    workMs,
    streaming: c.streaming,
    push: c.push ?? { supported: false, delivery: 'plain' },
    outputs: c.outputs ?? [{ mediaType: 'text/plain', channel: 'task' }],
  }));
}
