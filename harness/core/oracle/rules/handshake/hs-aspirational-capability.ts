/**
 * HS-ASPIRATIONAL-CAPABILITY (handshake): A capability flag with no method behind it is found out per task and the task falls back to polling, never stalls on it.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { PeerRuntime } from '../../../scenario/runtime.js';
import type { Source } from '../../../sources.js';
import type { HttpEvent } from '../../../transcript.js';
import { claimEvidence, wireEvidence } from '../../../verdict.js';
import { cardPointer } from '../../../protocol/card-view.js';
import { rpcCalls, type GradeInput } from '../../evidence.js';
import { mustProceed as proceedBinding } from '../../graders.js';
import { binds, informational, met, missingRecord, notBinding, signal, timeout, upFrontMiss, type Binding, type RuleOf } from '../../rule.js';
import { SEED_PROBE, SEED_NOT_ABORT, SEED_RESIDUAL, residual, complete } from './shared.js';

const SEED_CAPABILITY: Source = {
  doc: 'docs/duties.md',
  section: '10 A capability the agent does not keep',
  quote: 'A capability flag set to true whose method is not reachable is a signal that the card claims more than the agent serves.',
  level: 'field',
};

const PUSH_METHODS = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/** Push registrations the peer refused: a push method answered -32003 or -32601, or a SendMessage with an inline config answered -32003. */
function refusedRegistrations(x: GradeInput): HttpEvent[] {
  return rpcCalls(x).filter(
    (e) =>
      (PUSH_METHODS.has(e.rpc!.method) && (e.rpcError?.code === -32003 || e.rpcError?.code === -32601)) ||
      (e.rpc!.method === 'SendMessage' && e.rpcError?.code === -32003),
  );
}

const pushMissing = (rt: PeerRuntime) => (rt.push.missing === 'method-not-found' ? 'do not exist (-32601; an inline config is dropped)' : 'answer -32003');

export const HS_ASPIRATIONAL_CAPABILITY: RuleOf<'HS-ASPIRATIONAL-CAPABILITY'> = {
  id: 'HS-ASPIRATIONAL-CAPABILITY',
  title: 'A capability flag with no method behind it is found out per task and the task falls back to polling, never stalls on it',
  family: 'handshake',
  scope: 'own',
  sources: [SEED_CAPABILITY, SEED_PROBE, SEED_NOT_ABORT],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.1.7', quote: 'Creates a push notification configuration for a task to receive asynchronous updates via webhook.' },
    {
      doc: 'A2A v1.0.1',
      section: '3.3.4',
      quote:
        'Push Notifications: If AgentCard.capabilities.pushNotifications is false or not present, operations related to push notification configuration (Create, Get, List, Delete) MUST return PushNotificationNotSupportedError.',
    },
    {
      doc: 'docs/duties.md',
      section: '10 A capability the agent does not keep',
      quote: 'When the probe fails, the client falls back to the least the card declares: its defaults, no skill overrides, no optional capabilities.',
    },
    SEED_RESIDUAL,
  ],
  grades: [
    { when: 'the push methods fail: waiting on a push that cannot come past the deadline', verdict: 'TIMEOUT (harm)' },
    { when: 'the push methods fail: the task completed by polling, and the client recorded push->polling', verdict: 'PASS' },
    { when: 'the same without the record, where the wire shows the registration refused', verdict: 'NON_STRICT (a missing record)' },
    {
      when: 'the push methods fail: the client stopped (and canceled what it minted) where polling works',
      verdict: 'NON_STRICT (field: not giving up, but using what card and agent both offer)',
    },
    { when: 'the push methods work (the control), or the intent does not ask for push: no task completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['a card that does not claim push', 'the residual risk: registration works, a payload over a ceiling no field shows fails (INFORMATIONAL)'],
  applies(s) {
    const rt = s.truth.runtime;
    if (s.card.pushNotifications !== true) return notBinding('the card does not claim push notifications');
    const res = residual(s);
    if (res) return res;
    if (s.intent.completion !== 'push' || s.profile.callback === 'none')
      return proceedBinding(
        s,
        `the intent ${s.intent.completion !== 'push' ? `prefers ${s.intent.completion}` : 'prefers push but the client has no receiver'}: the push flag costs it nothing; it must proceed`,
        ['proceed'],
      );
    if (rt.push.supported) return proceedBinding(s, 'the push methods work (the control): by push or by polling, the task must complete', ['proceed']);
    return binds(
      `capabilities.pushNotifications is true, but the push methods ${pushMissing(rt)}: register per task, see it fail, and poll`,
      ['downgrade'],
      [signal(s, cardPointer(s.card, 'pushNotifications'), 'field', 'a true capability flag with no method behind it')],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const done = complete(x, b.reason);
    if (b.acceptable.includes('proceed')) return done;
    const refused = refusedRegistrations(x);
    const refusedEvidence = refused.slice(0, 3).map((e) => wireEvidence(e.seq, `${e.rpc!.method} → ${e.rpcError!.code} ${e.rpcError!.message}`));
    if (done.kind === 'TIMEOUT')
      return timeout(
        `stalled: no terminal state seen by the deadline, although ${refused.length ? 'the push registration was refused and ' : ''}polling works`,
        [...done.evidence, ...refusedEvidence],
      );
    if (done.kind !== 'PASS') {
      // Stopping where polling works misses docs/duties.md §10's "not to give up" (level field); harm (an
      // orphan, a stall) is graded by the cross-cutting checks and above.
      if (done.basis === 'over-rejection' || done.basis === 'incomplete')
        return upFrontMiss(
          this,
          b as Binding,
          `stopped although polling works${refused.length ? ` (the push registration was refused at #${refused[0]!.seq})` : ''}: docs/duties.md §10: not to give up but to use what the card and the agent both offer`,
          [...done.evidence, ...refusedEvidence],
        );
      return { ...done, evidence: [...done.evidence, ...refusedEvidence] };
    }
    if (refused.length > 0 && !(x.claims?.degradations ?? []).includes('push->polling'))
      return missingRecord(this, `completed by polling after the push registration was refused at #${refused[0]!.seq}, but recorded no push->polling`, [
        ...refusedEvidence,
        claimEvidence(`degradations: ${JSON.stringify(x.claims?.degradations ?? [])}`),
      ]);
    return met(`${done.reason}${refused.length ? `; the registration refused at #${refused[0]!.seq}, polled instead (push->polling)` : '; polled'}`, [
      ...done.evidence,
      ...refusedEvidence,
    ]);
  },
};
