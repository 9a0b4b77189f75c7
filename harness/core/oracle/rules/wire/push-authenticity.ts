/**
 * PUSH-AUTHENTICITY (wire): A delivery without the credentials the client registered does not move the client.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * §13.2 makes the receiver's check a MUST. What the receiver answers a forged delivery is recorded,
 * not graded (a 401, a 404 or a 200 that is then ignored all keep the client where it was); what is
 * graded is whether the client then decided about its task with nothing but the forgery's word for its end.
 */
import { upFrontMissFails } from '../../../sources.js';
import { verdict, wireEvidence } from '../../../verdict.js';
import { pushRegistrations } from '../../evidence.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { answered, AUTHENTICITY, CREDENTIALS_FROM_CONFIG, decidedOn, forged, movedBy, partnerReceiver, spoofsSender } from './push-shared.js';

export const PUSH_AUTHENTICITY: RuleOf<'PUSH-AUTHENTICITY'> = {
  id: 'PUSH-AUTHENTICITY',
  title: 'A push delivery without the credentials the client registered does not move the client',
  family: 'wire',
  scope: 'own',
  sources: [AUTHENTICITY],
  limits: [
    CREDENTIALS_FROM_CONFIG,
    {
      doc: 'A2A v1.0.1',
      section: '3.1.3',
      quote:
        'This is typically used for polling the status of a task initiated with Send Message, or for fetching the final state of a task after being notified via a push notification or after a stream has ended.',
    },
  ],
  grades: [
    {
      when: 'a forged delivery (no credentials, wrong ones, another config’s, or, to a partner-mTLS receiver, another sender’s certificate) of an end the task never had was taken (2xx), and the client then decided about its task with no answer, stream event or genuine push showing the task’s end',
      verdict: 'FAIL (MUST, §13.2)',
    },
    {
      when: 'the forged deliveries were refused (any status: recorded, not graded) or taken and ignored: the client followed the task to its real end',
      verdict: 'PASS',
    },
    { when: 'the client declined the intent, which the peer would have completed', verdict: 'graded by the scenario’s own expectation and WIRE-NO-ORPHANS' },
  ],
  notBinding: [
    'no forged delivery is scripted (`push.forge` with other credentials or another sender)',
    'fire-and-forget: the client follows nothing a forgery could move',
    'the client registered no push (nothing reached a receiver of its)',
  ],
  applies(s) {
    const forge = s.truth.runtime.push.forge ?? [];
    const partner = s.truth.runtime.push.delivery === 'partner-mtls';
    const spoof = forge.filter((f) => !f.duplicate && ((f.credentials !== undefined && f.credentials !== 'genuine') || (partner && f.from === 'other')));
    if (spoof.length === 0) return notBinding('no delivery without the registered credentials is forged here');
    if (s.intent.taskClass === 'fire-and-forget') return notBinding('fire-and-forget: nothing to move');
    return binds(
      `the peer forges ${spoof.length} deliver${spoof.length === 1 ? 'y' : 'ies'} without the credentials the client registers: its receiver must not let them decide the task`,
      ['proceed', 'downgrade'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const spoofs = forged(x, spoofsSender(partnerReceiver(x)));
    if (spoofs.length === 0)
      return informational(
        pushRegistrations(x).length === 0
          ? 'the client registered no push: no forged delivery reached a receiver of its'
          : 'no forged delivery was sent before the run ended',
      );
    const listed = spoofs.map((a) => `#${a.seq} ${a.forgery} ${answered(a)}`).join('; ');
    const moved = movedBy(x, spoofs);
    if (moved) {
      const level = 'MUST' as const;
      return verdict(upFrontMissFails(level) ? 'FAIL' : 'NON_STRICT', moved.reason, moved.evidence, { basis: 'duty', level });
    }
    return met(`forged deliveries: ${listed}; ${decidedOn(x)}`, [
      ...spoofs.map((a) => wireEvidence(a.seq, `forged push (${a.forgery}) of ${a.state}, ${answered(a)}`)),
    ]);
  },
};
