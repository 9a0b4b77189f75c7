/**
 * The shared graders, for rules of every family: must-complete (a completable intent must be
 * proceeded with and completed), credit for a rejection (only where the card was read), orphans
 * (tasks left neither terminal nor canceled: harm), completable (whether the intent can be
 * completed here, as the card says it and the runtime does it) and must-proceed (the binding whose
 * duty is to proceed, where the intent is completable).
 */
import { TERMINAL_STATES } from '../transcript.js';
import { claimEvidence, ledgerEvidence, verdict, wireEvidence, type Verdict } from '../verdict.js';
import { dialectOfVersion, inputModesFor, outputModesFor } from '../protocol/card-view.js';
import { RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../protocol/extensions.js';
import { includesMediaType } from '../protocol/media-type.js';
import { cardReadEvidence, cardReads, failed, https, messageReplies, taskEvidence, wireTrail, type GradeInput } from './evidence.js';
import { binds, harm, met, notBinding, timeout, type Behaviour, type Situation } from './rule.js';
import { liveOnly, resolvingExtension } from './live-input.js';

export const COMPLETED = 'TASK_STATE_COMPLETED';

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
export function orphans(x: GradeInput): Verdict | undefined {
  const left = x.tasks.filter((t) => !TERMINAL_STATES.has(t.state));
  if (left.length === 0) return undefined;
  return harm(`${left.length} task(s) left ${left.map((t) => t.state).join(', ')} at the end`, taskEvidence(x, left));
}

/**
 * Whether the intent can be completed here, as the card says it and the runtime really does it:
 * an interface in a binding and a dialect the client speaks (its profile's; none declared: JSON-RPC), the input mode listed (a skill's list overrides the card's), an
 * accepted output mode the card offers and the runtime emits where the client can get it. Only
 * then is not completing it over-rejection; otherwise another rule, or none, grades the intent.
 */
export function completable(s: Situation): { ok: true } | { ok: false; why: string } {
  const { card, intent, truth } = s;
  const rt = truth.runtime;
  const dialects = s.profile.dialects ?? ['a2a-v1'];
  const bindings: readonly string[] = s.profile.bindings ?? ['JSONRPC'];
  if (!card.interfaces.some((i) => bindings.includes(i.protocolBinding) && dialects.some((d) => d === dialectOfVersion(i.protocolVersion))))
    return {
      ok: false,
      why:
        bindings.length === 1 && bindings[0] === 'JSONRPC'
          ? `the card offers no JSON-RPC interface in a dialect the client speaks (${dialects.join(', ')})`
          : `the card offers no interface in a binding (${bindings.join(', ')}) and a dialect (${dialects.join(', ')}) the client speaks`,
    };
  if (!includesMediaType(inputModesFor(card, intent.skillId), intent.input.mediaType))
    return { ok: false, why: `the card does not list ${intent.input.mediaType} as an input mode` };
  if (intent.taskClass === 'live-input' && liveOnly(s) && !s.profile.canRenegotiate && card.streaming !== true && resolvingExtension(s) === undefined)
    return { ok: false, why: `the card gives live-only ${intent.input.mediaType} no way in (no streaming, no extension the client implements)` };
  const asked = intent.requiredOutputMode ? [intent.requiredOutputMode] : intent.acceptedOutputModes;
  // A client that consumes artifacts completes only with an output its registry decodes (the consumption profile of docs/duties.md §7).
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
