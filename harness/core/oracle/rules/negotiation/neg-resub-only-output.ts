/**
 * NEG-RESUB-ONLY-OUTPUT (negotiation): An output mode only reachable on a disabled resubscribe channel is not waited for.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { claimEvidence, wireEvidence } from '../../../verdict.js';
import { outputModesFor, cardPointer } from '../../../protocol/card-view.js';
import { RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../../../protocol/extensions.js';
import { includesMediaType } from '../../../protocol/media-type.js';
import { rpcCalls, situationOf, taskEvidence, terminalSeenAt, wireTrail } from '../../evidence.js';
import { binds, harm, informational, missingRecord, notBinding, signal, timeout, upFrontMiss, type RuleOf, type Situation } from '../../rule.js';
import { mustComplete, creditRejection, orphans, completable } from '../../graders.js';

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
  // What the application needs and, where the client consumes artifacts, can decode (the consumption profile of docs/duties.md §7).
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

export const NEG_RESUB_ONLY_OUTPUT: RuleOf<'NEG-RESUB-ONLY-OUTPUT'> = {
  id: 'NEG-RESUB-ONLY-OUTPUT',
  title: 'An output mode only reachable on a disabled resubscribe channel is not waited for',
  family: 'negotiation',
  scope: 'own',
  sources: [
    {
      doc: 'docs/duties.md',
      section: '3 Outputs reachable only on a disabled channel',
      quote:
        'An output mode the card declares can be reachable only through a channel the agent has switched off, such as a resubscription on an agent without streaming: declared, and in fact unreachable.',
      level: 'field',
    },
    {
      doc: 'docs/duties.md',
      section: '3 Outputs reachable only on a disabled channel',
      quote:
        'Where the gap touches only an optional path (an output the client does not need, or a notification path it can replace by polling), the client proceeds and records the degradation.',
      level: 'field',
    },
    {
      doc: 'docs/extensions.md',
      section: 'urn:a2a-conformance:ext:resubscribe-only-outputs:v1',
      quote: 'The listed output modes are only emitted on `SubscribeToTask` (docs/duties.md §3). On a card with `streaming:false` they are unreachable.',
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
        ? [signal(s, cardPointer(s.card, 'extension', f.signalIndex), 'convention', `${RESUBSCRIBE_ONLY_OUTPUTS_EXT} marks an accepted mode resubscribe-only`)]
        : [];
    if (f.cardSaysUnreachable && f.truthUnreachable)
      return binds(
        `the output the application needs (${f.wanted.join(', ')}) is marked resubscribe-only on a card without streaming`,
        ['reject'],
        [signal(s, cardPointer(s.card, 'streaming'), 'MUST', 'streaming is not true: SubscribeToTask is refused (§3.3.4)'), ...marks],
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
