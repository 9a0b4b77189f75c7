/**
 * Negotiation rules (seed 000): a valid card is a claim, not a contract; the contract is the
 * intersection of the card and the client's transport profile, scoped to the task class. None of
 * their up-front duties is an A2A MUST: each rule says which seed sentence it rests on and which
 * spec sentence bounds it.
 */
import type { PeerRuntime } from '../scenario.js';
import type { Source } from '../sources.js';
import { TERMINAL_STATES } from '../transcript.js';
import { absentEvidence, claimEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef, type Verdict } from '../verdict.js';
import { dialectOfVersion, inputModesFor, outputModesFor, type CardView } from '../vocabulary/card-view.js';
import { RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../vocabulary/extensions.js';
import { includesMediaType } from '../vocabulary/media-type.js';
import type { TaskIntent } from '../vocabulary/types.js';
import {
  canceledByClient,
  cardReadEvidence,
  cardReads,
  failed,
  https,
  messageReplies,
  needsCompletion,
  optsInto,
  pushAttempts,
  pushRegistrations,
  rpcCalls,
  situationOf,
  taskEvidence,
  terminalSeenAt,
  wireTrail,
  type GradeInput,
  probeTasks,
} from './evidence.js';
import {
  binds,
  harm,
  informational,
  met,
  missingRecord,
  notBinding,
  finalNotBinding,
  signal,
  timeout,
  upFrontMiss,
  type Behaviour,
  type Rule,
  type Situation,
} from './rule.js';

const COMPLETED = 'TASK_STATE_COMPLETED';

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

/**
 * The intent was completable (the harness scripted the runtime): the client must proceed and see it
 * completed. Not completing it is over-rejection, whatever the level of the rule.
 */
export function mustComplete(x: GradeInput, why: string): Verdict {
  const done = x.tasks.find((t) => t.state === COMPLETED);
  if (done) return met(`proceeded and completed (${why})`, [ledgerEvidence(done.mintedSeq, `task ${done.id} minted at #${done.mintedSeq}, completed`)]);
  const msg = messageReplies(x)[0];
  if (msg && x.tasks.length === 0)
    return met(`proceeded; the agent answered with a direct Message (spec §3.1.1) (${why})`, [
      wireEvidence(msg.seq, 'SendMessage answered with a Message, no task'),
    ]);
  if (x.outcome.kind === 'timeout') return timeout(`no completed task by the deadline although ${why}`, [...taskEvidence(x), ...wireTrail(x)]);
  if (x.tasks.length === 0)
    return verdict(
      'FAIL',
      `over-rejection: no task was minted although ${why}`,
      [...cardReadEvidence(x), ...wireTrail(x), claimEvidence(`decision: ${x.claims?.decision ?? 'none'}${x.claims?.notes ? ` — ${x.claims.notes}` : ''}`)],
      { basis: 'over-rejection' },
    );
  const refused = https(x).filter(failed);
  // The client proceeded: whatever stopped the task short (a refusal, its own budget), it did not decline the intent.
  return verdict(
    'FAIL',
    `proceeded, but the task did not complete before the client stopped, although ${why}`,
    [
      ...taskEvidence(x),
      ...refused.map((e) => wireEvidence(e.seq, `${e.rpc?.method ?? e.path} failed (${e.status}${e.rpcError ? `, ${e.rpcError.code}` : ''})`)),
    ],
    { basis: 'incomplete' },
  );
}

/** A rejection the binding allows: credited only when the client could have read the card. */
export function creditRejection(x: GradeInput, what: string): Verdict {
  if (x.outcome.kind === 'timeout') return timeout('no decision by the deadline', cardReadEvidence(x));
  if (cardReads(x).length === 0)
    return verdict(
      'FAIL',
      `${what}, but the client never read the card, so the rejection cannot be credited`,
      [...cardReadEvidence(x), claimEvidence(`decision: ${x.claims?.decision ?? 'none'}`)],
      { basis: 'no-credit' },
    );
  return met(what, [
    ...cardReadEvidence(x),
    claimEvidence(`decision: ${x.claims?.decision ?? 'none'}${x.claims?.errorClass ? ` (${x.claims.errorClass})` : ''}`),
  ]);
}

/** Tasks the client left neither terminal nor canceled: harm at every level. */
function orphans(x: GradeInput): Verdict | undefined {
  const left = x.tasks.filter((t) => !TERMINAL_STATES.has(t.state));
  if (left.length === 0) return undefined;
  return harm(`${left.length} task(s) left ${left.map((t) => t.state).join(', ')} at the end`, taskEvidence(x, left));
}

/**
 * Whether the intent can be completed here, as the card says it and the runtime really does it:
 * a JSON-RPC 1.x interface, the input mode listed (a skill's list overrides the card's), an
 * accepted output mode the card offers and the runtime emits where the client can get it. Only
 * then is not completing it over-rejection; otherwise another rule, or none, grades the intent.
 */
export function completable(s: Situation): { ok: true } | { ok: false; why: string } {
  const { card, intent, truth } = s;
  const rt = truth.runtime;
  const dialects = s.profile.dialects ?? ['a2a-v1'];
  if (!card.interfaces.some((i) => i.protocolBinding === 'JSONRPC' && dialects.some((d) => d === dialectOfVersion(i.protocolVersion))))
    return { ok: false, why: `the card offers no JSON-RPC interface in a dialect the client speaks (${dialects.join(', ')})` };
  if (!includesMediaType(inputModesFor(card, intent.skillId), intent.input.mediaType))
    return { ok: false, why: `the card does not list ${intent.input.mediaType} as an input mode` };
  if (intent.taskClass === 'live-input' && liveOnly(s) && !s.profile.canRenegotiate && card.streaming !== true && resolvingExtension(s) === undefined)
    return { ok: false, why: `the card gives live-only ${intent.input.mediaType} no way in (no streaming, no extension the client implements)` };
  const asked = intent.requiredOutputMode ? [intent.requiredOutputMode] : intent.acceptedOutputModes;
  // A client that consumes artifacts completes only with an output its registry decodes (seed 001's consumption profile).
  const decodes = (m: string) => !s.profile.consumesArtifacts || includesMediaType(s.profile.mediaTypes, m);
  if (asked.length > 0 && !asked.some(decodes))
    return { ok: false, why: `the client cannot decode any of ${asked.join(', ')} (its registry: ${s.profile.mediaTypes.join(', ')})` };
  const wanted = asked.filter(decodes);
  if (wanted.length > 0) {
    const offered = outputModesFor(card, intent.skillId);
    const reachable = rt.outputs.filter((o) => o.channel === 'task' || rt.streaming || rt.pollFallback).map((o) => o.mediaType);
    if (!wanted.some((m) => includesMediaType(offered, m))) return { ok: false, why: `the card offers none of ${wanted.join(', ')}` };
    const marked =
      card.streaming === true
        ? []
        : card.extensions
            .filter((e) => e.uri === RESUBSCRIBE_ONLY_OUTPUTS_EXT)
            .flatMap((e) => (Array.isArray(e.params.modes) ? (e.params.modes as unknown[]).map(String) : []));
    const open = wanted.filter((m) => includesMediaType(offered, m) && !includesMediaType(marked, m));
    if (open.length === 0) return { ok: false, why: `the card marks every one of ${wanted.join(', ')} it offers resubscribe-only` };
    if (!open.some((m) => includesMediaType(reachable, m)))
      return { ok: false, why: `the runtime emits none of ${wanted.join(', ')} where the client can get it` };
  }
  return { ok: true };
}

/** A binding whose duty is to proceed and complete, where the intent is completable; otherwise not binding. */
export function mustProceed(s: Situation, reason: string, acceptable: Behaviour[] = ['proceed', 'downgrade']) {
  const c = completable(s);
  return c.ok ? binds(reason, acceptable) : notBinding(`${c.why}: this rule has nothing to say about the intent`);
}

// ---------------------------------------------------------------------------------------------
// NEG-LIVE-INPUT

const liveOnly = (s: Situation) => {
  const mt = s.intent.input.mediaType;
  return includesMediaType(s.profile.liveOnlyInputModes, mt) && !includesMediaType(s.profile.bufferableInputModes, mt);
};
const takesFrames = (rt: PeerRuntime) => !rt.input || rt.input.acceptsFrames;

/** A SendMessage to a task after one to the same task failed: the refused frame sent again. */
function framesAfterRefusal(x: GradeInput): EvidenceRef[] {
  const sends = rpcCalls(x, 'SendMessage').filter((e) => e.taskId);
  for (const first of sends) {
    if (!failed(first)) continue;
    const again = sends.filter((e) => e.seq > first.seq && e.taskId === first.taskId);
    if (again.length > 0)
      return [
        wireEvidence(first.seq, `SendMessage to ${first.taskId} refused (${first.status}${first.rpcError ? `, ${first.rpcError.code}` : ''})`),
        ...again.map((e) => wireEvidence(e.seq, `SendMessage to ${e.taskId} again`)),
      ];
  }
  return [];
}

export const NEG_LIVE_INPUT: Rule = {
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
        signal(s, '/capabilities/streaming', 'seed', 'streaming is not true: by seed 000 the agent cannot take input frame by frame'),
        signal(s, '/defaultInputModes', 'MUST', `${mt} is an input mode`),
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

// ---------------------------------------------------------------------------------------------
// NEG-PUSH-MTLS

/** Every alternative of `securityRequirements` names an mTLS scheme. */
export function mtlsRequired(card: CardView): boolean {
  return card.securityRequirements.length > 0 && card.securityRequirements.every((alt) => alt.some((n) => card.securitySchemes[n] === 'mtlsSecurityScheme'));
}

export const NEG_PUSH_MTLS: Rule = {
  id: 'NEG-PUSH-MTLS',
  title: 'Push the client cannot receive is not registered; the task is polled to a terminal state',
  family: 'negotiation',
  scope: 'own',
  sources: [
    {
      doc: 'seed 000',
      section: 'Core Distinction (2)',
      quote:
        "But the client's push receiver is a plain HTTPS listener; it cannot complete the mTLS handshake the server's own security scheme mandates for outbound callbacks.",
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'Operational Effect',
      quote:
        "the client compares the server's `securitySchemes` against its own callback listener profile and refuses to register a `pushNotificationConfig` it cannot honor, falling back to polling with an explicit degradation record.",
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'Condition of Validity',
      quote: 'For fire-and-forget `tasks/send` with no polling, the push-notification invariant does not bind.',
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'What Was Observed',
      quote: "the task sat in `working` until the client's own timeout fired 40 minutes later.",
      level: 'seed',
      role: 'harm',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '4.3.3',
      quote: 'The agent MUST include authentication credentials in the request headers as specified in the PushNotificationConfig.authentication field.',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.5.1',
      quote:
        'Regardless of the protocol binding being used by the agent, WebHook calls use plain HTTP and the JSON payloads as defined in the HTTP protocol binding',
    },
  ],
  grades: [
    {
      when: 'binding: push registered (inline or CreateTaskPushNotificationConfig)',
      verdict:
        'NON_STRICT (seed: in v1.0 the agent authenticates to the webhook with the client-chosen `authentication`; "an mTLS card means mTLS callbacks" is the seed\'s inference)',
    },
    { when: 'waiting on push past the deadline, or stopping without seeing a terminal state', verdict: 'TIMEOUT / FAIL (harm)' },
    { when: 'binding, push preferred: no `push->polling` degradation record', verdict: 'NON_STRICT' },
    { when: 'no task at all although polling completes the task', verdict: 'FAIL (over-rejection)' },
    {
      when: 'push registered to a receiver that can take it, and no delivery arrived before the client saw the terminal state (a delivery lost after that is moot)',
      verdict: "FAIL (harm: the client's own receiver lost it)",
    },
  ],
  notBinding: [
    'fire-and-forget: INFORMATIONAL (seed 000, Condition of Validity)',
    'an mTLS-capable receiver: may register; the task must reach a terminal state the client saw',
    'push with `authentication` credentials to an https receiver on a card without an mTLS signal: must complete (PASS)',
    'no mTLS signal on the card while the runtime still calls back over partner mTLS: INFORMATIONAL (recovery is graded by the WIRE checks)',
  ],
  applies(s) {
    const { card, profile, truth, intent } = s;
    if (!needsCompletion(intent)) return notBinding('fire-and-forget: the push invariant does not bind (seed 000, Condition of Validity)');
    const c = completable(s);
    if (!c.ok) return notBinding(`${c.why}: this rule has nothing to say about the intent`);
    if (profile.callback === 'mtls') return binds('the receiver can do partner mTLS: push may be registered, and must really arrive', ['proceed', 'downgrade']);
    if (card.pushNotifications === true && mtlsRequired(card))
      // Polling is always there (GetTask is a core operation): push is never the only completion path, so rejecting is
      // over-rejection. `downgrade` here: no push registered, the task polled (whatever completion the intent preferred).
      return binds(
        `push is offered on a card that requires mTLS, and the client's receiver is ${profile.callback}`,
        ['downgrade'],
        [
          signal(s, '/capabilities/pushNotifications', 'MUST', 'push notifications offered'),
          signal(s, s.card.dialect === 'a2a-v0.3' ? '/security' : '/securityRequirements', 'seed', 'every call needs mTLS; by seed 000 the callbacks do too'),
        ],
      );
    if (!truth.runtime.push.supported || truth.runtime.push.delivery === 'plain' || intent.completion !== 'push' || profile.callback === 'none')
      return binds('nothing on the card or in the runtime stands in the way of completing this task', ['proceed', 'downgrade']);
    return notBinding('no card signal of mTLS-only push: recovery is graded by the WIRE checks');
  },
  grade(b, x) {
    const regs = pushRegistrations(x);
    const regEvidence = regs.map((r) => wireEvidence(r.requestSeq, `push registered (${r.via}) for task ${r.taskId} → ${r.url}`));
    const lost = pushAttempts(x).filter((a) => a.outcome !== 'delivered');
    const lostEvidence = lost.map((a) => wireEvidence(a.seq, `push dispatched and lost: ${a.outcome} ${a.error ?? ''}`.trim()));
    if (!b.binds) return informational(b.reason, regEvidence);
    if (x.tasks.length === 0) {
      if (x.outcome.kind === 'timeout') return timeout('no task and no decision by the deadline', wireTrail(x));
      return verdict(
        'FAIL',
        'over-rejection: no task was minted although polling completes this task',
        [...cardReadEvidence(x), ...wireTrail(x), claimEvidence(`decision: ${x.claims?.decision ?? 'none'}`)],
        { basis: 'over-rejection' },
      );
    }
    // Driven to a terminal state the runtime reached: the client's own cancel of a task the peer would have completed does not count.
    // Probe tasks (canceled before the real one, docs/rules.md "Probes") are not the task.
    const probes = new Set(probeTasks(x).map((t) => t.id));
    const seen = x.tasks.filter((t) => !probes.has(t.id)).map((t) => ({ t, at: canceledByClient(t, x) ? undefined : terminalSeenAt(x, t.id) }));
    const notDriven = seen.filter((r) => r.at === undefined);
    if (notDriven.length > 0) {
      const ev = [
        ...taskEvidence(
          x,
          notDriven.map((r) => r.t),
        ),
        ...lostEvidence,
      ];
      if (x.outcome.kind === 'timeout') return timeout('the task was not driven to a terminal state before the deadline', ev);
      // Canceling a task the runtime would have completed loses it (over-rejection); leaving it unseen and live is harm.
      return notDriven.every((r) => canceledByClient(r.t, x))
        ? verdict('FAIL', 'the client canceled a task that polling would have completed', ev, { basis: 'incomplete' })
        : harm('the client stopped without seeing a terminal state its task reached', ev);
    }
    const terminalEvidence = seen.map((r) => wireEvidence(r.at, `terminal state of ${r.t.id} seen by the client`));
    if (!b.acceptable.includes('proceed') || b.signals.length > 0) {
      if (regs.length > 0)
        return upFrontMiss(this, b, `push registered although the card requires mTLS and the receiver is ${x.profile.callback}`, [
          ...regEvidence,
          ...lostEvidence,
          ...terminalEvidence,
        ]);
      if (x.intent.completion === 'push' && !x.claims?.degradations.includes('push->polling'))
        return missingRecord(this, 'polled to completion but reported no push->polling degradation', [
          ...terminalEvidence,
          claimEvidence(`degradations: ${JSON.stringify(x.claims?.degradations ?? [])}`),
        ]);
      return met('no push registered; the task was polled to a terminal state', terminalEvidence);
    }
    // A delivery lost to a receiver that should take it (partner mTLS to an mTLS receiver, plain HTTPS to an
    // https one) is the client's own receiver failing; a delivery the receiver could never take is not its harm.
    const rt = x.scenario.peer.runtime;
    const receivable =
      (x.profile.callback === 'mtls' && rt.push.delivery === 'partner-mtls') || (x.profile.callback === 'https' && rt.push.delivery === 'plain');
    // A delivery that ends after the client saw its task's terminal state tells the client nothing it lacks:
    // lost, it is moot (seed 000's harm is a client left not knowing, "the task sat in `working`").
    const seenAt = new Map(seen.map((r) => [r.t.id, r.at!]));
    const attempts = pushAttempts(x);
    const live = attempts.filter((a) => !(seenAt.get(a.taskId)! < a.seq));
    if (receivable && regs.length > 0 && live.length > 0 && !live.some((a) => a.outcome === 'delivered'))
      return harm('push was registered to a receiver that should take it, but no delivery reached it before the client knew the outcome', [
        ...regEvidence,
        ...lostEvidence,
      ]);
    const moot = attempts.filter((a) => a.outcome !== 'delivered' && !live.includes(a));
    const mootNote = moot.length > 0 ? `; ${moot.length} delivery(ies) lost after the client had seen the terminal state (moot)` : '';
    return met(`the task reached a terminal state the client saw (${b.reason})${mootNote}`, [
      ...regEvidence,
      ...terminalEvidence,
      ...moot.map((a) => wireEvidence(a.seq, `push of ${a.state} lost after the terminal state was seen: ${a.outcome}`)),
    ]);
  },
};

// ---------------------------------------------------------------------------------------------
// NEG-RESUB-ONLY-OUTPUT

interface ResubFacts {
  /** The modes the application needs: its required mode, else every mode it accepts. */
  wanted: string[];
  /** Of those, the ones the card offers. */
  offeredWanted: string[];
  /** The card marks every offered wanted mode resubscribe-only, on a card without streaming. */
  cardSaysUnreachable: boolean;
  /** The runtime emits none of the wanted modes where the client can get them, and some only on SubscribeToTask. */
  truthUnreachable: boolean;
  /** Index in `capabilities.extensions` of the convention extension that marks an accepted mode, or -1. */
  signalIndex: number;
}

function resubFacts(s: Situation): ResubFacts {
  const rt = s.truth.runtime;
  const intent = s.intent;
  // What the application needs and, where the client consumes artifacts, can decode (seed 001's consumption profile).
  const wanted = (intent.requiredOutputMode ? [intent.requiredOutputMode] : intent.acceptedOutputModes).filter(
    (m) => !s.profile.consumesArtifacts || includesMediaType(s.profile.mediaTypes, m),
  );
  const offered = outputModesFor(s.card, intent.skillId);
  const offeredWanted = wanted.filter((m) => includesMediaType(offered, m));
  const signalIndex =
    s.card.streaming === true ? -1 : s.card.extensions.findIndex((e) => e.uri === RESUBSCRIBE_ONLY_OUTPUTS_EXT && Array.isArray(e.params.modes));
  const marked = signalIndex < 0 ? [] : (s.card.extensions[signalIndex]!.params.modes as unknown[]).map(String);
  const reachable = rt.outputs.filter((o) => o.channel === 'task' || rt.streaming || rt.pollFallback).map((o) => o.mediaType);
  const subscribeOnly = rt.outputs.filter((o) => o.channel === 'subscribe-only').map((o) => o.mediaType);
  const marksAccepted = intent.acceptedOutputModes.some((m) => includesMediaType(offered, m) && includesMediaType(marked, m));
  return {
    wanted,
    offeredWanted,
    cardSaysUnreachable: offeredWanted.length > 0 && offeredWanted.every((m) => includesMediaType(marked, m)),
    truthUnreachable: wanted.length > 0 && !wanted.some((m) => includesMediaType(reachable, m)) && wanted.some((m) => includesMediaType(subscribeOnly, m)),
    signalIndex: marksAccepted ? signalIndex : -1,
  };
}

export const NEG_RESUB_ONLY_OUTPUT: Rule = {
  id: 'NEG-RESUB-ONLY-OUTPUT',
  title: 'An output mode only reachable on a disabled resubscribe channel is not waited for',
  family: 'negotiation',
  scope: 'own',
  sources: [
    {
      doc: 'seed 000',
      section: 'Core Distinction (3)',
      quote:
        'The server can produce the output, and the card says so; but the only channel that emits it is a streaming resubscription the server has disabled. The output mode is declared reachable and is in fact unreachable.',
      level: 'seed',
    },
    {
      doc: 'seed 000',
      section: 'Decision Boundary',
      quote:
        'Accept when the unnegotiable field combination affects only optional lifecycle paths (e.g., a streaming-only output mode on a task the client will drive to `completed` via polling). The client proceeds and records a capability-degradation note.',
      level: 'seed',
    },
    {
      doc: 'docs/extensions.md',
      section: 'urn:a2a-conformance:ext:resubscribe-only-outputs:v1',
      quote: 'The listed output modes are only emitted on `SubscribeToTask` (seed 000, invariant 3). On a card with `streaming:false` they are unreachable.',
      level: 'convention',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.3.4',
      quote:
        'If `AgentCard.capabilities.streaming` is `false` or not present, attempts to use `SendStreamingMessage` or `SubscribeToTask` operations MUST return UnsupportedOperationError.',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.3.4',
      quote: 'Clients SHOULD validate capability support by examining the Agent Card before attempting operations that require optional capabilities.',
    },
  ],
  grades: [
    {
      when: 'binding: a task minted for an intent whose only acceptable output is marked unreachable',
      verdict: 'NON_STRICT (convention: no A2A v1.0 field says a mode is resubscribe-only)',
    },
    { when: 'SubscribeToTask repeated after -32004', verdict: 'FAIL (harm)' },
    { when: 'still waiting for that mode at the deadline after the task was seen terminal', verdict: 'FAIL (harm)' },
    { when: 'no decision at the deadline otherwise', verdict: 'TIMEOUT' },
    { when: 'another accepted mode is reachable: not completed', verdict: 'FAIL (over-rejection)' },
    { when: 'another accepted mode is reachable and the mode is marked: no `resubscribe->polling` record', verdict: 'NON_STRICT' },
  ],
  notBinding: [
    'the mode is reachable through a fallback the card omits: INFORMATIONAL',
    'no card signal marks the mode unreachable: INFORMATIONAL (harm still FAIL)',
    'the card offers none of the accepted modes: INFORMATIONAL (another rule grades it)',
  ],
  applies(s) {
    const f = resubFacts(s);
    if (s.truth.runtime.pollFallback) return notBinding('the mode is reachable through a polling fallback the card omits: the rule does not bind');
    if (f.offeredWanted.length === 0) return notBinding('the card offers none of the output modes the application needs: another rule grades this intent');
    const marks =
      f.signalIndex >= 0
        ? [signal(s, `/capabilities/extensions/${f.signalIndex}`, 'convention', `${RESUBSCRIBE_ONLY_OUTPUTS_EXT} marks an accepted mode resubscribe-only`)]
        : [];
    if (f.cardSaysUnreachable && f.truthUnreachable)
      return binds(
        `the output the application needs (${f.wanted.join(', ')}) is marked resubscribe-only on a card without streaming`,
        ['reject'],
        [signal(s, '/capabilities/streaming', 'MUST', 'streaming is not true: SubscribeToTask is refused (§3.3.4)'), ...marks],
      );
    if (f.cardSaysUnreachable)
      return notBinding('the card marks the mode unreachable although the runtime emits it: following the card and proceeding are both defensible');
    if (f.truthUnreachable) return notBinding('no card signal marks the mode unreachable: recovery is graded by the WIRE checks');
    const c = completable(s);
    if (!c.ok) return notBinding(`${c.why}: this rule has nothing to say about the intent`);
    return binds('an output mode the application needs is reachable by polling', ['proceed', 'downgrade'], marks);
  },
  grade(b, x) {
    const subs = rpcCalls(x, 'SubscribeToTask');
    const refusal = subs.find((e) => e.rpcError?.code === -32004);
    const repeats = refusal ? subs.filter((e) => e.seq > refusal.seq) : [];
    if (refusal && repeats.length > 0)
      return harm(`SubscribeToTask repeated ${repeats.length} time(s) after the peer refused it with -32004`, [
        wireEvidence(refusal.seq, 'SubscribeToTask → -32004 UnsupportedOperation'),
        ...repeats.map((e) => wireEvidence(e.seq, 'SubscribeToTask again')),
      ]);
    const f = resubFacts(situationOf(x));
    if (x.outcome.kind === 'timeout') {
      const seen = x.tasks.map((t) => ({ t, at: terminalSeenAt(x, t.id) })).filter((r) => r.at !== undefined);
      if (f.truthUnreachable && seen.length > 0)
        return harm(
          `still waiting at the deadline for ${f.wanted.join(', ')}, only emitted on a disabled channel, after the task was seen terminal`,
          seen.map((r) => wireEvidence(r.at, `terminal state of ${r.t.id} seen by the client`)),
        );
      if (b.binds) return timeout('no decision by the deadline', [...taskEvidence(x), ...wireTrail(x)]);
    }
    if (!b.binds) return informational(b.reason, taskEvidence(x));
    if (b.acceptable.includes('reject')) {
      if (x.tasks.length === 0) return creditRejection(x, 'no task minted for an intent whose only acceptable output is unreachable');
      return upFrontMiss(
        this,
        b,
        `a task was minted although the output the application needs (${f.wanted.join(', ')}) is marked resubscribe-only`,
        taskEvidence(x),
      );
    }
    const v = orphans(x) ?? mustComplete(x, b.reason);
    if (v.kind !== 'PASS') return v;
    if (b.signals.length > 0 && !x.claims?.degradations.includes('resubscribe->polling'))
      return missingRecord(this, 'completed by polling but reported no resubscribe->polling degradation', [
        ...v.evidence,
        claimEvidence(`degradations: ${JSON.stringify(x.claims?.degradations ?? [])}`),
      ]);
    return v;
  },
};

// ---------------------------------------------------------------------------------------------
// NEG-ESCALATE

function contradictoryForLiveInput(s: Situation, intent: TaskIntent): boolean {
  return (
    intent.taskClass === 'live-input' &&
    liveOnly(s) &&
    !s.profile.canRenegotiate &&
    s.card.streaming !== true &&
    !takesFrames(s.truth.runtime) &&
    includesMediaType(inputModesFor(s.card, intent.skillId), intent.input.mediaType)
  );
}

/**
 * The extension that resolves a contradictory live-input card for this client, as the card says it:
 * one the card declares, the client declared in its hello, and whose documented `params.inputModes`
 * (docs/extensions.md) list the input. Whether the runtime honours it is the truth NEG-ESCALATE reads.
 */
function resolvingExtension(s: Situation): string | undefined {
  if (!contradictoryForLiveInput(s, s.intent)) return undefined;
  const mt = s.intent.input.mediaType;
  return s.card.extensions.find(
    (e) =>
      s.profile.knownExtensions.includes(e.uri) && Array.isArray(e.params.inputModes) && includesMediaType((e.params.inputModes as unknown[]).map(String), mt),
  )?.uri;
}

export const NEG_ESCALATE: Rule = {
  id: 'NEG-ESCALATE',
  title: 'A contradictory card with an extension the client implements is resolved through that extension',
  family: 'negotiation',
  scope: 'own',
  otherwise: 'NEG-LIVE-INPUT',
  sources: [
    {
      doc: 'seed 000',
      section: 'Decision Boundary',
      quote:
        'Escalate to out-of-band negotiation when the card is internally contradictory but the server is known to honor a vendor extension that resolves it. This is the only case where a structurally valid card is neither accepted nor rejected outright.',
      level: 'seed',
    },
    {
      doc: 'docs/extensions.md',
      section: 'urn:contoso:a2a:ext:audio-session:v1',
      quote: 'A client that implements the extension opts in on the message that starts the live task; the peer then takes the audio frame by frame.',
      level: 'convention',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '4.6.1',
      quote:
        'Clients indicate their desire to opt into the use of specific extensions through binding-specific mechanisms such as HTTP headers, gRPC metadata, or JSON-RPC request parameters that identify the extension identifiers they wish to utilize during the interaction.',
    },
    { doc: 'A2A v1.0.1', section: '3.2.6', quote: 'Comma-separated list of extension URIs that the client wants to use for the request' },
  ],
  grades: [
    { when: 'binding: opted in (`A2A-Extensions` header or `Message.extensions`) and the live task completed', verdict: 'PASS' },
    {
      when: 'binding: the extension declared in hello but never used',
      verdict: 'NON_STRICT (convention), and NEG-LIVE-INPUT grades what the client did instead',
    },
    { when: 'opted in, and the task left non-terminal', verdict: 'FAIL (harm)' },
  ],
  notBinding: [
    'the client did not declare the extension in its hello (the harness never assigns one): graded by NEG-LIVE-INPUT',
    'the card is not contradictory for this intent: graded by NEG-LIVE-INPUT',
    'the card declares the extension but the runtime does not honour it: INFORMATIONAL, and NEG-LIVE-INPUT does not grade it either (recovery is graded by the WIRE checks)',
  ],
  applies(s) {
    if (!contradictoryForLiveInput(s, s.intent)) return notBinding('the card is not contradictory for this intent', 'NEG-LIVE-INPUT');
    const ext = resolvingExtension(s);
    if (!ext) {
      const offered = s.card.extensions.map((e) => e.uri).filter((u) => !s.profile.knownExtensions.includes(u));
      return notBinding(
        `${offered.length ? `the client did not declare ${offered.join(', ')} in its hello` : 'the card declares no extension that resolves it'}: graded by the rule it would otherwise hit`,
        'NEG-LIVE-INPUT',
      );
    }
    // The card's way was the one to take; the runtime broke it. Nothing grades the up-front decision (not even NEG-LIVE-INPUT).
    if (s.truth.runtime.input?.sessionExtension !== ext)
      return finalNotBinding(`the card declares ${ext}, but the runtime does not honour it: recovery is graded by the WIRE checks`);
    const c = completable(s);
    if (!c.ok) return notBinding(`${c.why}: the live session would not complete the intent`);
    const i = s.card.extensions.findIndex((e) => e.uri === ext);
    return binds(
      `live-only ${s.intent.input.mediaType} on a card without streaming; ${ext}, which the client implements, resolves it`,
      ['escalate'],
      [signal(s, `/capabilities/extensions/${i}`, 'convention', `${ext} opens a live session`)],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const ext = x.scenario.peer.runtime.input!.sessionExtension!;
    const opted = rpcCalls(x).filter((e) => optsInto(e, ext));
    if (opted.length === 0) {
      // What the client did instead is graded too: harm stays FAIL, and a blind rejection earns no credit.
      const again = framesAfterRefusal(x);
      if (again.length > 0) return harm('a refused frame was sent again to the same task (the client never opted into the session)', again);
      const left = orphans(x);
      if (left) return left;
      if (x.tasks.length === 0 && x.outcome.kind !== 'timeout' && cardReads(x).length === 0)
        return verdict(
          'FAIL',
          `the client declined without reading the card, so nothing shows it could have taken ${ext}`,
          [...cardReadEvidence(x), claimEvidence(`decision: ${x.claims?.decision ?? 'none'}`)],
          { basis: 'no-credit' },
        );
    }
    if (opted.length === 0)
      return upFrontMiss(this, b, `the client declared ${ext}, which resolves this card, but never opted into it`, [
        ...cardReadEvidence(x),
        ...taskEvidence(x),
        absentEvidence('wire', `no request carried ${ext} in A2A-Extensions or Message.extensions`),
      ]);
    const first = opted[0]!;
    const left = orphans(x);
    if (left) return left;
    const done = x.tasks.find((t) => t.state === COMPLETED);
    if (done)
      return met(`opted into ${ext} at #${first.seq}; the live task completed`, [
        wireEvidence(first.seq, `${first.rpc?.method} with ${ext}`),
        ledgerEvidence(done.mintedSeq, `task ${done.id} completed`),
      ]);
    if (x.outcome.kind === 'timeout')
      return timeout('opted in, but no completed task by the deadline', [wireEvidence(first.seq, `${first.rpc?.method} with ${ext}`), ...taskEvidence(x)]);
    return verdict(
      'FAIL',
      `opted into ${ext} at #${first.seq}, but the live task did not complete`,
      [wireEvidence(first.seq, `${first.rpc?.method} with ${ext}`), ...taskEvidence(x)],
      { basis: 'incomplete' },
    );
  },
};

export const NEGOTIATION_RULES: Rule[] = [NEG_LIVE_INPUT, NEG_PUSH_MTLS, NEG_RESUB_ONLY_OUTPUT, NEG_ESCALATE];
