/**
 * The delivery family (issue 27; A2A v1.0.1 §3.1.3, §3.1.6, §3.5.2): how task updates reach the
 * client. Its stream story: a streaming card and a streaming client, whose streams the runtime ends
 * cleanly after a generated number of events while the task goes on for a generated time (or, in
 * the control, at the terminal state). Shrinking finds the earliest end, and the shortest task, that
 * break a client. (Push deliveries come with the push forger.)
 */
import fc from 'fast-check';
import { agentCard } from '../agent-card.js';
import type { Family, GeneratedCase } from '../family.js';
import { peerRuntime } from '../peer-runtime.js';
import { taskIntent } from '../task-intent.js';

const streamEnds: fc.Arbitrary<GeneratedCase> = fc
  .record({
    // Mostly an early end (the story), sometimes none (the control, where the rule does not bind).
    endAfter: fc.option(fc.integer({ min: 1, max: 3 }), { freq: 4, nil: undefined }),
    taskClass: fc.constantFrom<'async-completion' | 'text'>('async-completion', 'text'),
  })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ streaming: true }),
        runtime: peerRuntime({ streaming: true, workMs: { min: 150, max: 900 } }),
        intent: taskIntent({ taskClass: k.taskClass, input: { mediaType: 'text/plain' }, completion: ['stream'], accepted: ['text/plain'] }),
      })
      .map(
        ({ card, runtime, intent }): GeneratedCase => ({
          story: 'stream-ends-early',
          rules: ['STREAM-RECOVERY'],
          drifts: k.endAfter !== undefined ? ['stream-ends-early'] : [],
          card,
          signals: [{ pointer: '/capabilities/streaming', kind: 'convention', note: 'the card offers streaming' }],
          runtime: { ...runtime, ...(k.endAfter !== undefined ? { streamEnds: { afterEvents: k.endAfter } } : {}) },
          profileConstraints: {},
          intent,
          deadlineMs: 6000,
        }),
      ),
  );

export const deliveryFamily: Family = {
  id: 'delivery',
  title: 'Delivery (A2A v1.0.1 §3.1.3, §3.5.2)',
  rules: ['STREAM-RECOVERY'],
  spec: 'A2A v1.0.1 §3.1.3 (GetTask after a stream has ended), §3.1.6 (Subscribe to Task: the Task first), §3.5.2 (a new stream after an interruption), §3.3.1',
  arbitrary: streamEnds,
};
