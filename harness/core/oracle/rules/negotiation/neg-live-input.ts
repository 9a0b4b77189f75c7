/**
 * NEG-LIVE-INPUT (negotiation): Live-only input on a peer that cannot take it is not streamed into a task.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import { ledgerEvidence } from '../../../verdict.js';
import { inputModesFor, cardPointer } from '../../../protocol/card-view.js';
import { includesMediaType } from '../../../protocol/media-type.js';
import { taskEvidence } from '../../evidence.js';
import { binds, harm, informational, met, notBinding, signal, upFrontMiss, type RuleOf } from '../../rule.js';
import { COMPLETED, mustComplete, creditRejection, orphans, mustProceed } from '../../graders.js';
import { liveOnly, takesFrames, framesAfterRefusal, resolvingExtension } from '../../live-input.js';

/** The sentence of docs/duties.md §1 every negotiation rule's over-rejection variant rests on. */
const TASK_CLASS_SCOPE: Source = {
  doc: 'docs/duties.md',
  section: '1 Live input',
  quote:
    'A refusal is scoped to the task class the card cannot serve, never to the whole card: the same card may serve a text task perfectly well, and rejecting it whole loses that channel.',
  level: 'field',
};

const ORPHAN_HARM: Source = {
  doc: 'docs/duties.md',
  section: '1 Live input',
  quote: 'Declining after a task exists is worse than declining before: the task is left on the agent, its id spent, and with some vendors it is billed.',
  level: 'field',
  role: 'harm',
};

export const NEG_LIVE_INPUT: RuleOf<'NEG-LIVE-INPUT'> = {
  id: 'NEG-LIVE-INPUT',
  title: 'Live-only input on a peer that cannot take it is not streamed into a task',
  family: 'negotiation',
  scope: 'own',
  sources: [
    {
      doc: 'docs/duties.md',
      section: '1 Live input',
      quote:
        'A card can be valid and still offer no way to deliver live input: an agent without streaming can take a live audio source only as one buffered upload, which for live audio is the same as not taking it.',
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '1 Live input',
      quote:
        'When a card rules out the input path, or the only way the client could learn that the task ended, the client declines before it sends the first message.',
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '1 Live input',
      quote: 'A client that can change its own capabilities for this task decides after doing so, not before.',
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '1 Live input',
      quote:
        'The card binds this decision only where nothing else tells the client more: no out-of-band capability exchange, no vendor extension carrying the missing constraint, no earlier tasks with this agent.',
      level: 'field',
    },
    TASK_CLASS_SCOPE,
    ORPHAN_HARM,
  ],
  limits: [
    { doc: 'A2A v1.0.1 proto', section: 'AgentCapabilities.streaming', quote: 'Indicates if the agent supports streaming responses.' },
    { doc: 'A2A v1.0.1', section: '3.1.2', quote: 'Similar to Send Message but with real-time streaming of updates during processing.' },
  ],
  grades: [
    {
      when: 'binding: a task minted to take the live input frame by frame',
      verdict: 'NON_STRICT (field: A2A v1.0 has no client-to-server input streaming, so `streaming:false` meaning "no frames" is docs/duties.md §1\'s reading)',
    },
    { when: 'binding: the whole input sent as one complete payload, and the task completed', verdict: 'PASS (a downgrade the wire shows)' },
    { when: 'binding: no task, the card read before the decision', verdict: 'PASS' },
    { when: 'binding: no task and the card never read', verdict: 'FAIL (no credit for a rejection made blind)' },
    { when: 'a refused frame sent again to the same task, or the task left non-terminal', verdict: 'FAIL (harm)' },
    { when: 'must proceed (text task, bufferable input, a peer that takes frames): not completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: [
    'a text task on the same card, or an input the client can buffer: must proceed and complete (reject = FAIL)',
    'the card says streaming and the peer takes frames: must proceed (frames are fine)',
    'the client can renegotiate its own capabilities: INFORMATIONAL (docs/duties.md §1 defers)',
    'the card claims streaming but the runtime is batch-only: INFORMATIONAL (no signal; recovery is graded by the WIRE checks)',
    'the card says no streaming but the runtime takes frames: INFORMATIONAL (following the card and proceeding are both defensible)',
    'a vendor extension the client declared resolves the card: INFORMATIONAL, graded by NEG-ESCALATE',
    'the card itself rules the intent out (the input mode not listed, no accepted output offered): INFORMATIONAL',
  ],
  applies(s) {
    const { intent, card, truth } = s;
    const mt = intent.input.mediaType;
    if (intent.taskClass !== 'live-input') return mustProceed(s, `a ${intent.taskClass} task is negotiable on this card (the rejection is task-class scoped)`);
    if (!liveOnly(s)) return mustProceed(s, `the client can buffer ${mt} into one complete payload`);
    if (s.profile.canRenegotiate) return notBinding('the client can renegotiate its own capabilities: docs/duties.md §1 defers the decision');
    if (!includesMediaType(inputModesFor(card, intent.skillId), mt))
      return notBinding(`the card does not list ${mt} as an input mode: this rule has nothing to say`);
    if (card.streaming === true)
      return takesFrames(truth.runtime)
        ? mustProceed(s, 'the card says streaming and the peer really takes frames')
        : notBinding('no card signal: the card claims streaming but the runtime is batch-only; recovery is graded by the WIRE checks');
    if (resolvingExtension(s) !== undefined)
      return notBinding('a vendor extension the client implements resolves the card (docs/duties.md §1): NEG-ESCALATE grades it', 'NEG-ESCALATE');
    if (takesFrames(truth.runtime))
      return notBinding('the card says no streaming although the runtime takes frames: following the card (reject) and proceeding are both defensible');
    return binds(
      `live-only ${mt} on a card without streaming, to a runtime that takes one complete payload`,
      ['reject', 'downgrade'],
      [
        signal(s, cardPointer(s.card, 'streaming'), 'field', 'streaming is not true: by docs/duties.md §1 the agent cannot take input frame by frame'),
        signal(s, cardPointer(s.card, 'defaultInputModes'), 'MUST', `${mt} is an input mode`),
      ],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (!b.acceptable.includes('reject')) return orphans(x) ?? mustComplete(x, b.reason);
    const mt = x.intent.input.mediaType;
    if (x.tasks.length === 0) return creditRejection(x, `no task minted for live-only ${mt} on a non-streaming card`);
    const again = framesAfterRefusal(x);
    if (again.length > 0) return harm('a refused frame was sent again to the same task', again);
    const left = orphans(x);
    if (left) return left;
    const done = x.tasks.find((t) => t.state === COMPLETED);
    if (done)
      return met(`the whole ${mt} input went as one complete payload and the task completed (a downgrade the wire shows)`, [
        ledgerEvidence(done.mintedSeq, `task ${done.id} completed`),
      ]);
    return upFrontMiss(this, b, `a task was minted to take live-only ${mt} although the card does not offer streaming`, taskEvidence(x));
  },
};
