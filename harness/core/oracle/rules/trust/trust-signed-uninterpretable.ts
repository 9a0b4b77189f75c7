/**
 * TRUST-SIGNED-UNINTERPRETABLE (trust): A trusted card whose outputs the client cannot decode is refused, or the client downgrades to a skill it can decode.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import { wireEvidence } from '../../../verdict.js';
import { outputModesFor, cardPointer } from '../../../protocol/card-view.js';
import { includesMediaType } from '../../../protocol/media-type.js';
import { cardReadEvidence, situationOf } from '../../evidence.js';
import { creditRejection, mustComplete } from '../../graders.js';
import { binds, informational, notBinding, signal, upFrontMiss, type Binding, type RuleOf } from '../../rule.js';
import {
  SEED_ORPHANS,
  SEED_PARAMS,
  breach,
  keyEvidence,
  attempts,
  trustHarm,
  decodable,
  decodableSkills,
  downgradeOutcome,
  unverified,
  namedSkill,
  undecodableSeen,
} from './shared.js';

const SEED_GATE: Source = {
  doc: 'docs/duties.md',
  section: '7 Outputs the client cannot decode',
  quote:
    'When the client cannot decode an output the task needs, it does not send: it moves to a skill whose outputs it can decode, or stops with a final negotiation error.',
  level: 'field',
};

const SEED_STATUS_ONLY: Source = {
  doc: 'docs/duties.md',
  section: '7 Outputs the client cannot decode',
  quote: "A client that only follows a task's status and ignores its artifacts can proceed; one that consumes the artifacts cannot.",
  level: 'field',
};

export const TRUST_SIGNED_UNINTERPRETABLE: RuleOf<'TRUST-SIGNED-UNINTERPRETABLE'> = {
  id: 'TRUST-SIGNED-UNINTERPRETABLE',
  title: 'A trusted card whose outputs the client cannot decode is refused, or the client downgrades to a skill it can decode',
  family: 'trust',
  scope: 'own',
  sources: [SEED_GATE, SEED_STATUS_ONLY, SEED_PARAMS, SEED_ORPHANS],
  limits: [
    { doc: 'A2A v1.0.1 proto', section: 'SendMessageConfiguration.accepted_output_modes', quote: 'Agents SHOULD use this to tailor their output.' },
    {
      doc: 'docs/duties.md',
      section: '7 Outputs the client cannot decode',
      quote: 'So the check depends on what the client consumes, not on the card alone.',
    },
  ],
  grades: [
    { when: 'no task: the card was read and the client refused (the keys it fetched are cited)', verdict: 'PASS' },
    { when: 'a task on the uninterpretable path (A2A has no field for it; docs/duties.md §7 says refuse)', verdict: 'NON_STRICT (field)' },
    { when: 'the same message re-sent after a decode failure, minting tasks; a task left working', verdict: 'FAIL (harm)' },
    {
      when: 'a decodable skill exists: a task that names it (Message.metadata.skillId, a convention of ours) and completes; or a refusal (docs/duties.md §7 allows failing fast)',
      verdict: 'PASS',
    },
    { when: 'a status-only consumer (consumesArtifacts false): no task completed', verdict: 'FAIL (over-rejection)' },
    {
      when: 'a PASS where signed cards are required but no JWKS was fetched before the first send',
      verdict: 'NON_STRICT (nothing shows the card was verified first)',
    },
  ],
  notBinding: ['outputs the client can decode: nothing to refuse', 'a signature the client cannot trust: a TRUST-* rule of the signature grades it'],
  applies(s) {
    if (!s.truth.signing || breach(s)) return notBinding('the card is not signed in a way this client can trust: the signature rules grade it');
    if (!s.profile.consumesArtifacts)
      return binds('a status-only consumer ignores artifacts, so undecodable outputs cost it nothing: it must proceed', ['proceed']);
    const modes = outputModesFor(s.card, s.intent.skillId);
    const bad = modes.filter((m) => !decodable(s.profile.mediaTypes, m));
    if (bad.length === 0 || modes.some((m) => decodable(s.profile.mediaTypes, m) && includesMediaType(s.intent.acceptedOutputModes, m)))
      return notBinding('the card offers an output the client can decode and accepts');
    const alt = decodableSkills(s)[0];
    const sig = signal(
      s,
      cardPointer(s.card, s.intent.skillId ? 'skills' : 'defaultOutputModes'),
      'field',
      `${bad.join(', ')}: not in the client's registry (parameters significant)`,
    );
    if (alt)
      return binds(
        `the card's outputs (${bad.join(', ')}) are undecodable, but skill ${alt.id} emits ${alt.modes.join(', ')}`,
        ['downgrade', 'reject'],
        [sig, signal(s, cardPointer(s.card, 'skillOutputModes', alt.index), 'field', `skill ${alt.id}: ${alt.modes.join(', ')}`)],
      );
    return binds(`every output the card offers (${bad.join(', ')}) is undecodable for this client`, ['reject'], [sig]);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.acceptable.includes('proceed')) return trustHarm(x) ?? unverified(x, mustComplete(x, b.reason));
    const damage = trustHarm(x);
    if (damage) return damage;
    const alt = b.acceptable.includes('downgrade') ? decodableSkills(situationOf(x))[0] : undefined;
    const send = attempts(x);
    const onAlt = alt ? send.filter((e) => namedSkill(e) === alt.id) : [];
    const wrong = send.filter((e) => !alt || namedSkill(e) !== alt.id);
    if (wrong.length > 0) {
      const seen = undecodableSeen(x)[0];
      return upFrontMiss(
        this,
        b as Binding,
        `a task was sent on the uninterpretable path${seen ? ` and the client was shown ${seen.type} at #${seen.seq}` : ''}`,
        [
          ...cardReadEvidence(x),
          ...keyEvidence(x),
          ...wrong
            .slice(0, 3)
            .map((e) =>
              wireEvidence(e.seq, `${e.rpc!.method}${namedSkill(e) ? ` naming skill ${namedSkill(e)}` : ' naming no skill'} → ${e.taskId ?? 'no task'}`),
            ),
        ],
      );
    }
    if (alt) {
      if (onAlt.length > 0) return unverified(x, downgradeOutcome(x, alt, onAlt[0]!, `downgraded to skill ${alt.id} and completed`));
      const credit = creditRejection(
        x,
        `refused before sending (docs/duties.md §7 allows failing fast; skill ${alt.id}, which emits ${alt.modes.join(', ')}, would have kept the channel)`,
      );
      return credit.kind === 'PASS' ? { ...credit, evidence: [...credit.evidence, ...keyEvidence(x)] } : credit;
    }
    const credit = creditRejection(x, 'refused before sending: the outputs are undecodable for this client');
    return credit.kind === 'PASS' ? { ...credit, evidence: [...credit.evidence, ...keyEvidence(x)] } : credit;
  },
};
