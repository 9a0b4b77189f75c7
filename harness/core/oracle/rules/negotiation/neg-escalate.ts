/**
 * NEG-ESCALATE (negotiation): A contradictory card with an extension the client implements is resolved through that extension.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { absentEvidence, claimEvidence, ledgerEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { cardPointer } from '../../../protocol/card-view.js';
import { cardReadEvidence, cardReads, optsInto, rpcCalls, taskEvidence } from '../../evidence.js';
import { binds, harm, informational, met, notBinding, finalNotBinding, signal, timeout, upFrontMiss, type RuleOf } from '../../rule.js';
import { COMPLETED, orphans, completable } from '../../graders.js';
import { framesAfterRefusal, contradictoryForLiveInput, resolvingExtension } from '../../live-input.js';

export const NEG_ESCALATE: RuleOf<'NEG-ESCALATE'> = {
  id: 'NEG-ESCALATE',
  title: 'A contradictory card with an extension the client implements is resolved through that extension',
  family: 'negotiation',
  scope: 'own',
  otherwise: 'NEG-LIVE-INPUT',
  sources: [
    {
      doc: 'docs/duties.md',
      section: '4 A contradiction an extension resolves',
      quote:
        'Where the card contradicts itself but the agent is known to honour an extension that resolves the contradiction, the client negotiates through that extension instead of accepting or rejecting the card outright.',
      level: 'field',
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
      [signal(s, cardPointer(s.card, 'extension', i), 'convention', `${ext} opens a live session`)],
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
