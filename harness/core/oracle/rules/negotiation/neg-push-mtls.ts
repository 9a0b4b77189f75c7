/**
 * NEG-PUSH-MTLS (negotiation): Push the client cannot receive is not registered; the task is polled to a terminal state.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { TaskRecord } from '../../../transcript.js';
import { claimEvidence, verdict, wireEvidence, type EvidenceRef, type Verdict } from '../../../verdict.js';
import { type CardView, cardPointer } from '../../../protocol/card-view.js';
import {
  canceledByClient,
  cardReadEvidence,
  needsCompletion,
  pushAttempts,
  pushRegistrations,
  taskEvidence,
  terminalSeenAt,
  wireTrail,
  probeTasks,
  type GradeInput,
} from '../../evidence.js';
import { binds, harm, informational, met, missingRecord, notBinding, signal, timeout, upFrontMiss, type RuleOf } from '../../rule.js';
import { completable } from '../../graders.js';

/** Every alternative of `securityRequirements` names an mTLS scheme. */
export function mtlsRequired(card: CardView): boolean {
  return card.securityRequirements.length > 0 && card.securityRequirements.every((alt) => alt.some((n) => card.securitySchemes[n] === 'mtlsSecurityScheme'));
}

/**
 * The task was driven to a terminal state the client saw, on a binding that lets it take push: met,
 * unless push was registered to a receiver that should take it and no delivery reached it in time.
 */
function pushedToCompletion(
  x: GradeInput,
  reason: string,
  seen: Array<{ t: TaskRecord; at: number | undefined }>,
  regEvidence: EvidenceRef[],
  lostEvidence: EvidenceRef[],
  terminalEvidence: EvidenceRef[],
): Verdict {
  // A delivery lost to a receiver that should take it (partner mTLS to an mTLS receiver, plain HTTPS to an
  // https one) is the client's own receiver failing; a delivery the receiver could never take is not its harm.
  const rt = x.scenario.peer.runtime;
  const receivable = (x.profile.callback === 'mtls' && rt.push.delivery === 'partner-mtls') || (x.profile.callback === 'https' && rt.push.delivery === 'plain');
  // A delivery that ends after the client saw its task's terminal state tells the client nothing it lacks:
  // lost, it is moot (the harm of docs/duties.md §2 is a client left not knowing, its task left working).
  const seenAt = new Map(seen.map((r) => [r.t.id, r.at!]));
  // The runtime's own deliveries (a forged one, PUSH-AUTHENTICITY's, is never the callback the client waits on).
  const attempts = pushAttempts(x).filter((a) => a.genuine !== false);
  // Reached: the receiver answered, whatever its status (PUSH-RECEIPT grades a status outside 2xx).
  const reached = (a: (typeof attempts)[number]) => a.outcome === 'delivered' || a.outcome === 'http-error';
  const live = attempts.filter((a) => !(seenAt.get(a.taskId)! < a.seq));
  // regEvidence holds one entry per push registration.
  if (receivable && regEvidence.length > 0 && live.length > 0 && !live.some(reached))
    return harm('push was registered to a receiver that should take it, but no delivery reached it before the client knew the outcome', [
      ...regEvidence,
      ...lostEvidence,
    ]);
  const moot = attempts.filter((a) => !reached(a) && !live.includes(a));
  const mootNote = moot.length > 0 ? `; ${moot.length} delivery(ies) lost after the client had seen the terminal state (moot)` : '';
  return met(`the task reached a terminal state the client saw (${reason})${mootNote}`, [
    ...regEvidence,
    ...terminalEvidence,
    ...moot.map((a) => wireEvidence(a.seq, `push of ${a.state} lost after the terminal state was seen: ${a.outcome}`)),
  ]);
}

export const NEG_PUSH_MTLS: RuleOf<'NEG-PUSH-MTLS'> = {
  id: 'NEG-PUSH-MTLS',
  title: 'Push the client cannot receive is not registered; the task is polled to a terminal state',
  family: 'negotiation',
  scope: 'own',
  sources: [
    {
      doc: 'docs/duties.md',
      section: '2 Push callbacks the receiver cannot take',
      quote:
        "A card whose security schemes require mutual TLS for the agent's push callbacks cannot deliver them to a receiver that only speaks server-authenticated HTTPS.",
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '2 Push callbacks the receiver cannot take',
      quote:
        "The client compares the card's security schemes with what its own receiver can do, registers no push configuration it cannot honour, and polls instead, recording the degradation.",
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '2 Push callbacks the receiver cannot take',
      quote: 'For a fire-and-forget task the client never follows, how completion would be notified does not matter.',
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '2 Push callbacks the receiver cannot take',
      quote:
        'A client that waits for a push that can never arrive leaves the task working until its own timeout: in the incident behind this duty, forty minutes.',
      level: 'field',
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
        'NON_STRICT (field: in v1.0 the agent authenticates to the webhook with the client-chosen `authentication`; "an mTLS card means mTLS callbacks" is docs/duties.md §2\'s reading)',
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
    'fire-and-forget: INFORMATIONAL (docs/duties.md §2)',
    'an mTLS-capable receiver: may register; the task must reach a terminal state the client saw',
    'push with `authentication` credentials to an https receiver on a card without an mTLS signal: must complete (PASS)',
    'no mTLS signal on the card while the runtime still calls back over partner mTLS: INFORMATIONAL (recovery is graded by the WIRE checks)',
  ],
  applies(s) {
    const { card, profile, truth, intent } = s;
    if (!needsCompletion(intent)) return notBinding('fire-and-forget: the push invariant does not bind (docs/duties.md §2)');
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
          signal(s, cardPointer(s.card, 'pushNotifications'), 'MUST', 'push notifications offered'),
          signal(s, cardPointer(s.card, 'securityRequirements'), 'field', 'every call needs mTLS; by docs/duties.md §2 the callbacks do too'),
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
    return pushedToCompletion(x, b.reason, seen, regEvidence, lostEvidence, terminalEvidence);
  },
};
