/**
 * Graders of the seed-000 rules (DESIGN.md §3). Each reads the peer's runtime truth and the card's
 * signals, decides whether the rule binds for this profile and intent, and grades the wire.
 * Where the rule does not bind, the intent was completable, so rejecting it is over-rejection.
 */
import { readCard } from '../vocabulary/card-view.js';
import { RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../vocabulary/extensions.js';
import { includesMediaType } from '../vocabulary/media-type.js';
import { BAD_CERT_LISTENERS } from '../scenario.js';
import { verdict, type EvidenceRef, type Verdict } from '../verdict.js';
import {
  describeTask,
  escalationCalls,
  failed,
  https,
  needsCompletion,
  pushAttempts,
  pushRegistrations,
  rpcCalls,
  terminalSeenAt,
  tlsEvents,
  type GradeInput,
} from './evidence.js';

/** What the client did on the wire before it stopped: its card fetch and its last requests. */
const wireTrail = (x: GradeInput): EvidenceRef[] =>
  https(x)
    .slice(-3)
    .map((e) => ({ seq: e.seq, fact: `${e.rpc?.method ?? `${e.method} ${e.path}`} → ${e.status ?? 'no answer'}` }));

const taskEvidence = (x: GradeInput): EvidenceRef[] =>
  x.tasks.map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) }));

/** The intent was completable: the client must have proceeded and completed it. */
function mustComplete(x: GradeInput, why: string): Verdict {
  const done = x.tasks.find((t) => t.state === 'TASK_STATE_COMPLETED');
  if (done) return verdict('PASS', `proceeded and completed (${why})`, [{ seq: done.mintedSeq, fact: describeTask(done) }]);
  if (x.outcome.kind === 'timeout')
    return verdict('TIMEOUT', `no completed task by the deadline although ${why}`, [...taskEvidence(x), ...wireTrail(x)]);
  if (x.tasks.length === 0)
    return verdict('FAIL', `over-rejection: no task was minted although ${why}`, [
      ...wireTrail(x),
      { fact: `claims: ${x.claims?.decision ?? 'none'}${x.claims?.notes ? ` — ${x.claims.notes}` : ''}` },
    ]);
  const refused = https(x).filter(failed);
  return verdict('FAIL', `the task did not complete although ${why}`, [
    ...taskEvidence(x),
    ...refused.map((e) => ({ seq: e.seq, fact: `${e.rpc?.method ?? e.path} failed (${e.status}${e.rpcError ? `, ${e.rpcError.code}` : ''})` })),
  ]);
}

export function gradeLiveInput(x: GradeInput): Verdict {
  const { intent, profile: p } = x;
  const rt = x.scenario.peer.runtime;
  const card = readCard(x.card);
  const mt = intent.input.mediaType;
  const live = intent.taskClass === 'live-input';
  const liveOnly = p.liveOnlyInputModes.includes(mt) && !p.bufferableInputModes.includes(mt);
  const peerTakesFrames = !rt.input || rt.input.acceptsFrames;

  if (live && liveOnly && p.canRenegotiate)
    return verdict('INFORMATIONAL', 'the client can renegotiate its own capabilities: seed 000 defers the decision');
  const cardSaysNo = card.streaming !== true;
  if (live && liveOnly && !peerTakesFrames) {
    if (!cardSaysNo)
      return verdict(
        'INFORMATIONAL',
        'no card signal: the card claims streaming but the runtime is batch-only; recovery is graded by the WIRE checks',
      );
    if (x.tasks.length > 0)
      return verdict(
        'FAIL',
        `a task was minted for live-only ${mt} although the card says streaming is not supported (spec-derivable: capabilities.streaming)`,
        taskEvidence(x),
      );
    return verdict('PASS', `no task minted for live-only ${mt} on a non-streaming peer`, [
      ...wireTrail(x),
      { fact: `claims: ${x.claims?.decision ?? 'none'}${x.claims?.errorClass ? ` (${x.claims.errorClass})` : ''}` },
    ]);
  }
  if (live && liveOnly && cardSaysNo)
    return verdict('INFORMATIONAL', 'the card says no streaming although the runtime takes frames: rejecting follows the card (seed 000: reject the card, not the server)');
  const why = !live
    ? `a ${intent.taskClass} task is negotiable on this card`
    : liveOnly
      ? 'the peer really takes frames'
      : `the client can buffer ${mt} into one payload`;
  return mustComplete(x, why);
}

/** Every alternative of `securityRequirements` names an mTLS scheme. */
function requiresMtls(x: GradeInput): boolean {
  const card = readCard(x.card);
  if (card.securityRequirements.length === 0) return false;
  return card.securityRequirements.every((alt) => alt.some((name) => card.securitySchemes[name] === 'mtlsSecurityScheme'));
}

export function gradePushMtls(x: GradeInput): Verdict {
  const rt = x.scenario.peer.runtime;
  const card = readCard(x.card);
  if (!needsCompletion(x.intent))
    return verdict('INFORMATIONAL', 'fire-and-forget: the push invariant does not bind (seed 000, Condition of Validity)');
  const regs = pushRegistrations(x);
  const regEvidence = regs.map((r) => ({ seq: r.requestSeq, fact: `push registered (${r.via}) for task ${r.taskId} → ${r.url}` }));
  const lost = pushAttempts(x).filter((a) => a.outcome !== 'delivered');
  const lostEvidence = lost.map((a) => ({ seq: a.seq, fact: `push dispatched and lost: ${a.outcome} ${a.error ?? ''}`.trim() }));
  // Driven to a terminal state the runtime reached: the client's own cancel of a task the peer
  // would have completed does not count.
  const terminal = x.tasks.map((t) => ({ t, seen: t.state === 'TASK_STATE_CANCELED' ? undefined : terminalSeenAt(x, t.id) }));
  const notDriven = terminal.filter((r) => r.seen === undefined);

  const driven = (): Verdict | undefined => {
    if (x.tasks.length === 0)
      return verdict('FAIL', 'over-rejection: no task was minted although polling completes this task', wireTrail(x));
    if (notDriven.length === 0) return undefined;
    const ev = [...notDriven.map((r) => ({ seq: r.t.mintedSeq, fact: describeTask(r.t) })), ...lostEvidence];
    return x.outcome.kind === 'timeout'
      ? verdict('TIMEOUT', 'the task was not driven to a terminal state before the deadline', ev)
      : verdict('FAIL', 'the client stopped without seeing a terminal state of its task', ev);
  };

  if (x.profile.callback === 'mtls' || rt.push.delivery === 'plain') {
    const why = x.profile.callback === 'mtls' ? 'the receiver can do partner mTLS' : 'the peer pushes over plain HTTPS';
    if (regs.length > 0 && pushAttempts(x).length > 0 && !pushAttempts(x).some((a) => a.outcome === 'delivered'))
      return verdict('FAIL', `push was registered (${why}) but no delivery reached the receiver`, [...regEvidence, ...lostEvidence]);
    return (
      driven() ??
      verdict('PASS', `the task reached a terminal state the client saw (${why})`, [
        ...regEvidence,
        ...terminal.map((r) => ({ seq: r.seen, fact: `terminal state of ${r.t.id} seen by the client` })),
      ])
    );
  }
  const signal = card.pushNotifications === true && requiresMtls(x);
  if (!signal)
    return verdict('INFORMATIONAL', 'no card signal of mTLS-only push: recovery is graded by the WIRE checks', regEvidence);
  if (regs.length > 0)
    return verdict(
      'FAIL',
      `push registered although the card requires mTLS (spec-derivable: securitySchemes + securityRequirements) and the receiver is ${x.profile.callback}`,
      [...regEvidence, ...lostEvidence],
    );
  const d = driven();
  if (d) return d;
  if (x.intent.completion === 'push' && !x.claims?.degradations.includes('push->polling'))
    return verdict('NON_STRICT', 'polled to completion but reported no push->polling degradation', [
      { fact: `claims.degradations: ${JSON.stringify(x.claims?.degradations ?? [])}` },
    ]);
  return verdict('PASS', 'no push registered; the task was polled to a terminal state', [
    ...terminal.map((r) => ({ seq: r.seen, fact: `terminal state of ${r.t.id} seen by the client` })),
  ]);
}

export function gradeResubscribeOnly(x: GradeInput): Verdict {
  const rt = x.scenario.peer.runtime;
  const card = readCard(x.card);
  if (rt.pollFallback)
    return verdict('INFORMATIONAL', 'the mode is reachable through a polling fallback the card omits: the rule does not bind');
  const unreachable = rt.streaming ? [] : rt.outputs.filter((o) => o.channel === 'subscribe-only').map((o) => o.mediaType);
  const reachable = rt.outputs.filter((o) => o.channel === 'task').map((o) => o.mediaType);
  const accepted = x.intent.acceptedOutputModes;
  const onlyUnreachable =
    accepted.some((m) => includesMediaType(unreachable, m)) && !accepted.some((m) => includesMediaType(reachable, m));
  const ext = card.extensions.find((e) => e.uri === RESUBSCRIBE_ONLY_OUTPUTS_EXT);
  const marked = Array.isArray(ext?.params.modes) ? (ext.params.modes as unknown[]).map(String) : [];
  const signal = accepted.some((m) => includesMediaType(marked, m));

  // Harm on the wire: SubscribeToTask repeated after the peer refused it.
  const subs = rpcCalls(x, 'SubscribeToTask');
  const firstRefusal = subs.find((e) => e.rpcError?.code === -32004);
  const repeats = firstRefusal ? subs.filter((e) => e.seq > firstRefusal.seq) : [];
  if (firstRefusal && repeats.length > 0)
    return verdict('FAIL', `SubscribeToTask repeated ${repeats.length} time(s) after the peer refused it with -32004`, [
      { seq: firstRefusal.seq, fact: 'SubscribeToTask → -32004 UnsupportedOperation' },
      ...repeats.map((e) => ({ seq: e.seq, fact: 'SubscribeToTask again' })),
    ]);
  if (x.outcome.kind === 'timeout')
    return x.tasks.length > 0 && onlyUnreachable
      ? verdict('FAIL', `still waiting at the deadline for ${accepted.join(', ')}, only emitted on a disabled channel`, taskEvidence(x))
      : verdict('TIMEOUT', 'no decision by the deadline', taskEvidence(x));

  const offered = card.defaultOutputModes;
  if (!accepted.some((m) => includesMediaType(offered, m)))
    return verdict('INFORMATIONAL', 'the card offers none of the accepted output modes: another rule grades this intent');
  if (onlyUnreachable) {
    if (!signal)
      return verdict('INFORMATIONAL', 'no card signal marks the mode unreachable: recovery is graded by the WIRE checks', taskEvidence(x));
    if (x.tasks.length > 0)
      return verdict(
        'NON_STRICT',
        `a task was minted although the only acceptable output (${accepted.join(', ')}) is marked resubscribe-only (harness convention ${RESUBSCRIBE_ONLY_OUTPUTS_EXT})`,
        taskEvidence(x),
      );
    return verdict('PASS', 'no task minted for an intent whose only acceptable output is unreachable', wireTrail(x));
  }
  const v = mustComplete(x, 'another accepted output mode is reachable by polling');
  if (v.kind !== 'PASS') return v;
  if (signal && !x.claims?.degradations.includes('resubscribe->polling'))
    return verdict('NON_STRICT', 'completed by polling but reported no resubscribe->polling degradation', v.evidence);
  return v;
}

export function gradeEscalate(x: GradeInput): Verdict {
  const neg = x.scenario.peer.runtime.negotiation;
  if (!neg) return verdict('ERROR', 'scenario error: NEG-ESCALATE needs runtime.negotiation');
  if (!x.profile.knownExtensions.includes(neg.extension))
    return verdict('INFORMATIONAL', `the client does not know ${neg.extension}: graded by the rule it would otherwise hit`);
  const calls = escalationCalls(x);
  if (calls.length === 0)
    return verdict('FAIL', `the client knows ${neg.extension}, which resolves this card, but never called its negotiation endpoint`, [
      ...wireTrail(x),
      ...taskEvidence(x),
      { fact: `claims: ${x.claims?.decision ?? 'none'}` },
    ]);
  const first = calls[0]!.seq;
  const before = x.tasks.filter((t) => t.mintedSeq < first);
  if (before.length > 0)
    return verdict('FAIL', 'a task was minted before the escalation call', [
      ...before.map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) })),
      { seq: first, fact: 'escalation call' },
    ]);
  return verdict('PASS', 'escalated out of band before minting any task', [{ seq: first, fact: `POST ${neg.path}` }]);
}

export function gradeTlsVerify(x: GradeInput): Verdict {
  const rt = x.scenario.peer.runtime;
  const bad = BAD_CERT_LISTENERS.has(rt.cardListener) ? rt.cardListener : BAD_CERT_LISTENERS.has(rt.rpcListener) ? rt.rpcListener : undefined;
  if (!bad) return mustComplete(x, 'the peer certificate is valid for 127.0.0.1 and chains to the trusted CA');
  const reqs = https(x).filter((e) => e.listener === bad);
  if (reqs.length > 0)
    return verdict('FAIL', `HTTP requests arrived over TLS with a ${bad} certificate the client should have refused`, [
      ...reqs.slice(0, 5).map((e) => ({ seq: e.seq, fact: `${e.method} ${e.path}` })),
    ]);
  const fails = tlsEvents(x).filter((e) => e.listener === bad && !e.ok);
  if (fails.length === 0)
    return x.outcome.kind === 'timeout'
      ? verdict('TIMEOUT', `the client never tried the ${bad} peer before the deadline`)
      : verdict('FAIL', `the client never attempted a handshake with the ${bad} peer, so nothing shows it refused the certificate`, wireTrail(x));
  return verdict('PASS', `the handshake with the ${bad} listener failed and no HTTP request reached it`, [
    ...fails.map((e) => ({ seq: e.seq, fact: `handshake failed at the listener: ${e.error ?? 'closed'}` })),
  ]);
}

