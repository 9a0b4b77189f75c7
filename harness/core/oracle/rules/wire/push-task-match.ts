/**
 * PUSH-TASK-MATCH (wire): A delivery naming a task the client did not create, or another of its own, does not move the client's task.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * The level: §4.3.3 lists "Clients MUST validate the task ID matches an expected task" and §13.2 the
 * same duty as "Clients SHOULD verify the task ID in the payload matches an expected task they
 * created". The spec states one duty at two strengths; a verdict never claims more than its weakest
 * source, so a miss is graded at SHOULD (NON_STRICT), both sentences quoted. A task left working is
 * WIRE-NO-ORPHANS's harm.
 */
import { upFrontMissFails, weakest } from '../../../sources.js';
import { verdict, wireEvidence } from '../../../verdict.js';
import { pushRegistrations } from '../../evidence.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';
import {
  answered,
  CREDENTIALS_FROM_CONFIG,
  decidedOn,
  forged,
  movedBy,
  namesOtherTask,
  TASK_ID_MUST,
  TASK_ID_SHOULD,
  noOutcome,
  untiedVerdict,
} from './push-shared.js';

/** The task a delivery names, as the reason says it (a run's ids change from run to run). */
const named = (a: { forgery?: string }) => (a.forgery?.includes('task:foreign') ? 'a task the client never created' : 'another task of the client’s');

export const PUSH_TASK_MATCH: RuleOf<'PUSH-TASK-MATCH'> = {
  id: 'PUSH-TASK-MATCH',
  title: 'A push delivery naming another task than the config’s does not move the client’s task',
  family: 'wire',
  scope: 'own',
  // One duty, said twice: graded at the weaker (a verdict never claims more than its source).
  sources: [TASK_ID_SHOULD],
  limits: [
    // The same duty at MUST (§4.3.3): quoted, and graded at §13.2's SHOULD (the grades say why).
    { doc: TASK_ID_MUST.doc, section: TASK_ID_MUST.section, quote: TASK_ID_MUST.quote },
    CREDENTIALS_FROM_CONFIG,
  ],
  grades: [
    {
      when: 'a delivery with the config’s own credentials naming a task the client never created, in a terminal state, reached the receiver (whatever it answered), and the client then reported about its task with no answer, stream event or genuine push showing that task’s end',
      verdict: 'NON_STRICT (SHOULD, §13.2; §4.3.3 says MUST for the same duty: the weaker binds)',
    },
    { when: 'the delivery was refused, or reached the receiver and was ignored: the client followed its own task to its real end', verdict: 'PASS' },
  ],
  notBinding: [
    'no delivery naming a task the client never created is scripted (`push.forge` with `taskId: foreign`, the config’s own credentials)',
    'another task of the client’s own (`taskId: other-own`): a task "they created" (§13.2), not graded',
    'fire-and-forget',
    'the client registered no push',
    'the client declined, gave up or timed out: the cross-cutting rules grade that',
  ],
  applies(s) {
    const forge = s.truth.runtime.push.forge ?? [];
    const other = forge.filter((f) => !f.duplicate && f.taskId === 'foreign' && (f.credentials ?? 'genuine') === 'genuine');
    if (other.length === 0) return notBinding('no delivery naming another task is forged here');
    if (s.intent.taskClass === 'fire-and-forget') return notBinding('fire-and-forget: nothing to move');
    return binds('the peer posts, with the client’s own credentials, a delivery naming another task: the client must check the task id', [
      'proceed',
      'downgrade',
    ]);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const others = forged(x, namesOtherTask);
    if (others.length === 0)
      return informational(
        pushRegistrations(x).length === 0
          ? 'the client registered no push: no delivery reached a receiver of its'
          : 'no delivery naming another task was sent before the run ended',
      );
    const none = noOutcome(x);
    if (none) return informational(none);
    const moved = movedBy(x, namesOtherTask);
    if (moved && 'untied' in moved)
      return untiedVerdict(
        moved,
        others.map((a) => wireEvidence(a.seq, `push naming task ${a.taskId} (${a.forgery}), ${answered(a)}`)),
      );
    if (moved) {
      const level = weakest([TASK_ID_MUST.level, TASK_ID_SHOULD.level]) ?? 'SHOULD';
      return verdict(upFrontMissFails(level) ? 'FAIL' : 'NON_STRICT', `${moved.reason} (§13.2 SHOULD; §4.3.3 MUST: graded at the weaker)`, moved.evidence, {
        basis: 'duty',
        level,
      });
    }
    return met(
      `deliveries naming another task: ${others.map((a) => `#${a.seq} ${named(a)} in ${a.state}, ${answered(a)}`).join('; ')}; ${decidedOn(x)}`,
      others.map((a) => wireEvidence(a.seq, `push naming task ${a.taskId} (${a.forgery}), ${answered(a)}`)),
    );
  },
};
