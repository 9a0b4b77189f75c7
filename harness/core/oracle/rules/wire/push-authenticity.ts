/**
 * PUSH-AUTHENTICITY (wire): A delivery without the credentials the client registered does not move the client.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * §13.2 makes the receiver's check a MUST. A forgery is blamed only where the wire ties the client's
 * conduct to it: an act (a cancel, the intent started again) with the forgery for the last news of
 * the task, or a report about the task with no word of its end after a forged end its receiver took.
 * Where the receiver refused the forgery (a 4xx), or genuine word of the task came after it, a client
 * that still stopped following stopped for a reason the wire does not show: the reason says so and
 * the stop is graded by WIRE-DEADLINE and WIRE-NO-ORPHANS, not laid on a forgery. Where forgeries of
 * another kind (another task's id: PUSH-TASK-MATCH, at SHOULD) reached the receiver too, the wire
 * cannot tell which the client believed: the miss is graded at the weaker level, and the reason says so.
 */
import { upFrontMissFails, weakest } from '../../../sources.js';
import { verdict, wireEvidence } from '../../../verdict.js';
import { pushRegistrations } from '../../evidence.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';
import {
  answered,
  AUTHENTICITY,
  CREDENTIALS_FROM_CONFIG,
  decidedOn,
  forged,
  movedBy,
  spoofsSender,
  TASK_ID_SHOULD,
  noOutcome,
  untiedVerdict,
} from './push-shared.js';

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
      when: 'the client canceled its healthy task, or started the intent again, after a forged delivery (no credentials, wrong ones, or those of a config never given to this agent) with no genuine word since that the task had ended or waited for it',
      verdict: 'FAIL (MUST, §13.2: it acted on the forgery; the destroyed work is WIRE-NO-DESTROYED-WORK’s harm)',
    },
    {
      when: 'a forged end reached the receiver, which took it (no 4xx), and the client then reported about its task with no genuine word of its end after it (no answer, stream event or genuine push)',
      verdict: 'FAIL (MUST, §13.2)',
    },
    {
      when: 'the client reported with no word of the task’s end, but its receiver refused every forged end (4xx), or genuine word of the task came after the forgery: the wire does not tie the stop to a forgery',
      verdict: 'INFORMATIONAL (the reason says so; WIRE-DEADLINE and WIRE-NO-ORPHANS grade the stop)',
    },
    {
      when: 'the same, where a delivery naming another task (PUSH-TASK-MATCH) reached the receiver too: the wire cannot tell which the client believed',
      verdict: 'NON_STRICT (graded at the weaker duty, §13.2 SHOULD, said in the reason)',
    },
    {
      when: 'the forged deliveries were refused (any status: recorded, not graded) or reached it and were ignored: the client followed the task to its real end',
      verdict: 'PASS',
    },
  ],
  notBinding: [
    'no delivery with other credentials is scripted (`push.forge` with `credentials` none, wrong or foreign)',
    'fire-and-forget: the client follows nothing a forgery could move',
    'the client registered no push (nothing reached a receiver of its)',
    'another sender’s certificate with the genuine credentials: §13.2 names the credentials (a partner-mTLS receiver refuses it at the handshake; NEG-PUSH-MTLS reads mTLS callbacks, at level field)',
    'the client declined, gave up or timed out: the cross-cutting rules grade that',
  ],
  applies(s) {
    const forge = s.truth.runtime.push.forge ?? [];
    const spoof = forge.filter((f) => !f.duplicate && f.credentials !== undefined && f.credentials !== 'genuine');
    if (spoof.length === 0) return notBinding('no delivery without the registered credentials is forged here');
    if (s.intent.taskClass === 'fire-and-forget') return notBinding('fire-and-forget: nothing to move');
    return binds(
      `the peer forges ${spoof.length} deliver${spoof.length === 1 ? 'y' : 'ies'} without the credentials the client registers: its receiver must not let them decide the task`,
      ['proceed', 'downgrade'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const spoofs = forged(x, spoofsSender);
    if (spoofs.length === 0)
      return informational(
        pushRegistrations(x).length === 0
          ? 'the client registered no push: no forged delivery reached a receiver of its'
          : 'no forged delivery was sent before the run ended',
      );
    const none = noOutcome(x);
    if (none) return informational(none);
    const moved = movedBy(x, spoofsSender);
    if (moved && 'untied' in moved)
      return untiedVerdict(
        moved,
        spoofs.map((a) => wireEvidence(a.seq, `forged push (${a.forgery}) of ${a.state}, ${answered(a)}`)),
      );
    if (moved) {
      const level = moved.others.length ? (weakest([AUTHENTICITY.level, TASK_ID_SHOULD.level]) ?? 'SHOULD') : AUTHENTICITY.level;
      return verdict(upFrontMissFails(level) ? 'FAIL' : 'NON_STRICT', moved.reason, moved.evidence, { basis: 'duty', level });
    }
    return met(`forged deliveries: ${spoofs.map((a) => `#${a.seq} ${a.forgery} ${answered(a)}`).join('; ')}; ${decidedOn(x)}`, [
      ...spoofs.map((a) => wireEvidence(a.seq, `forged push (${a.forgery}) of ${a.state}, ${answered(a)}`)),
    ]);
  },
};
