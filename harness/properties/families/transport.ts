/**
 * The transport family (A2A v1.0.1 §7.2, §3.2.5): the card and the RPC on listeners whose certificate
 * is valid, from an untrusted CA, for another host or expired; every request is also graded for its
 * A2A-Version header.
 */
import fc from 'fast-check';
import type { ListenerKind } from '../../core/scenario/runtime.js';
import { agentCard } from '../agent-card.js';
import type { Family, GeneratedCase } from '../family.js';
import { peerRuntime } from '../peer-runtime.js';
import { taskIntent } from '../task-intent.js';

const LISTENERS: ListenerKind[] = ['tls', 'untrusted-ca', 'wrong-host', 'expired'];

const certificates: fc.Arbitrary<GeneratedCase> = fc
  .record({
    // Mostly valid origins, so the control is well represented; a bad certificate on the card or the RPC origin.
    card: fc.oneof({ arbitrary: fc.constant<ListenerKind>('tls'), weight: 2 }, { arbitrary: fc.constantFrom(...LISTENERS), weight: 1 }),
    rpc: fc.oneof({ arbitrary: fc.constant<ListenerKind>('tls'), weight: 2 }, { arbitrary: fc.constantFrom(...LISTENERS), weight: 1 }),
  })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ extraInputModes: ['application/json'] }),
        runtime: peerRuntime({ streaming: false, cardListener: k.card, rpcListener: k.rpc }),
        intent: taskIntent({ taskClass: 'text', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted: ['text/plain'] }),
      })
      .map(
        ({ card, runtime, intent }): GeneratedCase => ({
          story: 'certificates',
          rules: ['SPEC-TLS-VERIFY'],
          drifts: k.card !== 'tls' || k.rpc !== 'tls' ? ['bad-certificate'] : [],
          card,
          signals: [],
          runtime,
          profileConstraints: {},
          intent,
          deadlineMs: 3000,
        }),
      ),
  );

export const transportFamily: Family = {
  id: 'transport',
  title: 'Transport (A2A v1.0.1 §7.2)',
  rules: ['SPEC-TLS-VERIFY', 'SPEC-A2A-VERSION'],
  spec: 'A2A v1.0.1 §7.2 (TLS), §3.2.5 (A2A-Version)',
  arbitrary: certificates,
};
