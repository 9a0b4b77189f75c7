/**
 * NEG-LIVE-INPUT (negotiation): Live-only input on a peer that cannot take it is not streamed into a task.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import { ledgerEvidence } from '../../../verdict.js';
import { inputModesFor, cardPointer } from '../../../vocabulary/card-view.js';
import { includesMediaType } from '../../../vocabulary/media-type.js';
import { taskEvidence } from '../../evidence.js';
import { binds, harm, informational, met, notBinding, signal, upFrontMiss, type RuleOf } from '../../rule.js';
import { COMPLETED, mustComplete, creditRejection, orphans, mustProceed } from '../../graders.js';
import { liveOnly, takesFrames, framesAfterRefusal, resolvingExtension } from '../../live-input.js';

/** The seed sentence every negotiation rule's over-rejection variant rests on. */
const TASK_CLASS_SCOPE: Source = {
  doc: 'seed 000',
  section: 'Decision Boundary',
  quote:
    'A card can be non-negotiable for audio tasks and perfectly negotiable for text tasks; the rejection is task-class-scoped, not card-scoped. This is the non-obvious part — teams routinely reject the whole card and lose a working text channel.',
  level: 'seed',
};

const ORPHAN_HARM: Source = {
  doc: 'seed 000',
  section: 'Decision Boundary',
  quote: 'Rejecting after task creation is strictly worse: it orphans a task on the server, consumes a task ID, and in some vendors triggers billing.',
  level: 'seed',
  role: 'harm',
};

export const NEG_LIVE_INPUT: RuleOf<'NEG-LIVE-INPUT'> = {
  id: 'NEG-LIVE-INPUT',
  title: 'Live-only input on a peer that cannot take it is not streamed into a task',
  family: 'negotiation',
  scope: 'own',
  sources: [
    {
      doc: 'seed 000',
      section: 'Core Distinction (1)',
      quote:
        'The card is valid: streaming is optional, input modes are legal. But the client has no way to deliver a streamed input to a non-streaming endpoint without buffering the entire payload, which for live audio is semantically equivalent to not supporting the input at all.',
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'Decision Boundary',
      quote:
        'Reject before `tasks/send` when the unnegotiable combination affects the input path or the only completion-notification path for the intended task class.',
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'Condition of Validity',
      quote: 'If the client can renegotiate its own capabilities, defer the decision.',
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'Condition of Validity',
      quote:
        'there is no out-of-band capability exchange, no vendor-specific extension field carrying the missing constraint, and no prior task history with this server. If any of these exist, the card-level invariant is not the binding constraint.',
      level: 'seed',
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
      verdict: 'NON_STRICT (seed: A2A v1.0 has no client-to-server input streaming, so `streaming:false` meaning "no frames" is the seed\'s reading)',
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
    'the client can renegotiate its own capabilities: INFORMATIONAL (seed 000 defers)',
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
    if (s.profile.canRenegotiate) return notBinding('the client can renegotiate its own capabilities: seed 000 defers the decision');
    if (!includesMediaType(inputModesFor(card, intent.skillId), mt))
      return notBinding(`the card does not list ${mt} as an input mode: this rule has nothing to say`);
    if (card.streaming === true)
      return takesFrames(truth.runtime)
        ? mustProceed(s, 'the card says streaming and the peer really takes frames')
        : notBinding('no card signal: the card claims streaming but the runtime is batch-only; recovery is graded by the WIRE checks');
    if (resolvingExtension(s) !== undefined)
      return notBinding('a vendor extension the client implements resolves the card (seed 000, Condition of Validity): NEG-ESCALATE grades it', 'NEG-ESCALATE');
    if (takesFrames(truth.runtime))
      return notBinding('the card says no streaming although the runtime takes frames: following the card (reject) and proceeding are both defensible');
    return binds(
      `live-only ${mt} on a card without streaming, to a runtime that takes one complete payload`,
      ['reject', 'downgrade'],
      [
        signal(s, cardPointer(s.card, 'streaming'), 'seed', 'streaming is not true: by seed 000 the agent cannot take input frame by frame'),
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
