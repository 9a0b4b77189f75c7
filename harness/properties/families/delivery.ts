/**
 * The delivery family (issue 27; A2A v1.0.1 §3.1.3, §3.1.6, §3.5.2, §4.3.3, §13.2): how task updates
 * reach the client. Its stream story: a streaming card and a streaming client, whose streams the
 * runtime ends cleanly after a generated number of events while the task goes on for a generated
 * time (or, in the control, at the terminal state); shrinking finds the earliest end, and the
 * shortest task, that break a client. Its push story: a card with push, a plain or partner-mTLS
 * receiver, and a generated sequence of deliveries the peer's forger posts beside the genuine ones
 * (no, wrong or another config's credentials; another task's id; another sender's certificate; a
 * genuine delivery twice), each with a forged state and a delay; shrinking finds the shortest
 * sequence, and the plainest delivery, that moves a client. Its busy story: the first polls answered
 * 429 or 503 with Retry-After while the task goes on (issue 38).
 */
import fc from 'fast-check';
import type { Forgery } from '../../core/push.js';
import { agentCard } from '../agent-card.js';
import { clientProfile } from '../client-profile.js';
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

/**
 * One delivery the forger posts: the plainest first (fast-check shrinks toward the first of each
 * choice): no credentials, then wrong ones, another config's, another task's id with the genuine
 * credentials, a genuine delivery again, another sender (partner-mTLS receivers only: on a plain
 * receiver the credentials are all that authenticates, §13.2).
 */
const forgery = (partner: boolean): fc.Arbitrary<Forgery> =>
  fc
    .record({
      kind: fc.constantFrom<'none' | 'wrong' | 'foreign' | 'other-task' | 'duplicate' | 'other-sender'>(
        'none',
        'wrong',
        'foreign',
        'other-task',
        'duplicate',
        ...(partner ? (['other-sender'] as const) : []),
      ),
      state: fc.constantFrom<'COMPLETED' | 'FAILED' | 'WORKING'>('COMPLETED', 'FAILED', 'WORKING'),
      afterMs: fc.integer({ min: 0, max: 150 }),
    })
    .map(({ kind, state, afterMs }): Forgery => {
      if (kind === 'duplicate') return { duplicate: true, afterMs };
      const base = { after: 'registration' as const, afterMs, state };
      if (kind === 'other-task') return { ...base, taskId: 'foreign' };
      // Another CA's certificate: the handshake refuses it; the credentials it carries are wrong besides (§13.2 names the credentials).
      if (kind === 'other-sender') return { ...base, from: 'other', credentials: 'wrong' };
      return { ...base, credentials: kind };
    });

const pushDeliveries: fc.Arbitrary<GeneratedCase> = fc
  .record({
    partner: fc.boolean(),
    // Mostly push (the story), sometimes polling (the control: no receiver, nothing to forge to).
    poll: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ pushNotifications: true, security: k.partner ? 'mtls' : 'none' }),
        runtime: peerRuntime({
          streaming: false,
          rpcListener: k.partner ? 'mtls' : 'tls',
          push: { supported: true, delivery: k.partner ? 'partner-mtls' : 'plain' },
          // A forged end comes at most 150 ms in: at least 450 ms before the real one, however the client's report is delayed.
          workMs: { min: 600, max: 900 },
        }),
        forge: fc.array(forgery(k.partner), { minLength: 0, maxLength: 4 }),
        profileConstraints: clientProfile({ callbacks: [k.partner ? 'mtls' : 'https'] }),
        intent: taskIntent({
          taskClass: 'async-completion',
          input: { mediaType: 'text/plain' },
          completion: [k.poll ? 'poll' : 'push'],
          accepted: ['text/plain'],
        }),
      })
      .map(({ card, runtime, forge, profileConstraints, intent }): GeneratedCase => {
        const forged = forge.some((f) => !f.duplicate);
        return {
          story: 'push-deliveries',
          rules: ['PUSH-AUTHENTICITY', 'PUSH-TASK-MATCH', 'PUSH-RECEIPT'],
          drifts: [...(forged ? (['forged-push'] as const) : []), ...(forge.some((f) => f.duplicate) ? (['duplicate-push'] as const) : [])],
          card,
          signals: [
            {
              pointer: '/capabilities/pushNotifications',
              kind: 'MUST',
              note: 'push offered; the webhook is authenticated with the client-chosen credentials (§4.3.3)',
            },
            ...(k.partner
              ? [{ pointer: '/securityRequirements', kind: 'field' as const, note: 'partner mTLS for every call; by docs/duties.md §2 the callbacks too' }]
              : []),
          ],
          // The task's state is posted at registration: a genuine delivery before the end, which a duplicate repeats.
          runtime: { ...runtime, push: { ...runtime.push, announceOnRegister: true, ...(forge.length ? { forge } : {}) } },
          profileConstraints,
          intent,
          deadlineMs: 5000,
        };
      }),
  );

/**
 * The busy story: a gateway answers the first polls (GetTask) 429 or 503 with a Retry-After of a
 * second, while the task goes on behind it. A correct client waits and polls again; one that takes the
 * refusal for the task's failure cancels work the agent was doing (WIRE-NO-DESTROYED-WORK), and one
 * that polls again at once retries blindly (WIRE-NO-BLIND-RETRY). Shrinking finds the fewest refusals.
 */
const busyPolls: fc.Arbitrary<GeneratedCase> = fc
  .record({
    status: fc.constantFrom<429 | 503>(429, 503),
    calls: fc.integer({ min: 1, max: 2 }),
    card: agentCard({ streaming: false }),
    runtime: peerRuntime({ streaming: false, workMs: { min: 1200, max: 1800 } }),
    intent: taskIntent({ taskClass: 'async-completion', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted: ['text/plain'] }),
  })
  .map(
    ({ status, calls, card, runtime, intent }): GeneratedCase => ({
      story: 'busy-poll',
      rules: ['WIRE-NO-DESTROYED-WORK'],
      drifts: ['busy-answer'],
      card,
      signals: [],
      runtime: { ...runtime, unavailable: { status, retryAfterSeconds: 1, calls, method: 'GetTask' } },
      profileConstraints: {},
      intent,
      deadlineMs: 8000,
    }),
  );

export const deliveryFamily: Family = {
  id: 'delivery',
  title: 'Delivery (A2A v1.0.1 §3.1.3, §3.3.2, §3.5.2, §4.3.3, §13.2)',
  rules: ['STREAM-RECOVERY', 'PUSH-AUTHENTICITY', 'PUSH-TASK-MATCH', 'PUSH-RECEIPT', 'WIRE-NO-DESTROYED-WORK'],
  spec: 'A2A v1.0.1 §3.1.3 (GetTask after a stream has ended), §3.1.6 (Subscribe to Task: the Task first), §3.5.2 (a new stream after an interruption), §3.3.1; §3.3.2 (retry guidance for temporary failures); §4.3.3 and §13.2 (the client as webhook receiver)',
  arbitrary: fc.oneof(streamEnds, pushDeliveries, busyPolls),
};
