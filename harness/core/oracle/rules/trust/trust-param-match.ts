/**
 * TRUST-PARAM-MATCH (trust): Media types are compared with their parameters: profile and version significant, charset and type case-insensitive.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import { outputModesFor, cardPointer } from '../../../protocol/card-view.js';
import { includesMediaType, parseMediaType } from '../../../protocol/media-type.js';
import { cardReadEvidence, situationOf, taskEvidence } from '../../evidence.js';
import { creditRejection, mustComplete } from '../../graders.js';
import { binds, informational, notBinding, signal, upFrontMiss, type Binding, type RuleOf } from '../../rule.js';
import { SEED_PARAMS, attempts, trustHarm, decodable, decodableSkills, downgradeOutcome, namedSkill, undecodableSeen } from './shared.js';

const MEDIA_CASE: Source = { doc: 'RFC 9110', section: '8.3.1', quote: 'The type and subtype tokens are case-insensitive.', level: 'MUST' };

const CHARSET_CASE: Source = { doc: 'RFC 9110', section: '8.3.2', quote: 'In both cases, charset names are matched case-insensitively.', level: 'MUST' };

/** The same type and subtype, the parameters aside: what loose matching takes as a match. */
function looseMatch(a: string, b: string): boolean {
  const x = parseMediaType(a);
  const y = parseMediaType(b);
  return !!x && !!y && x.type === y.type;
}

export const TRUST_PARAM_MATCH: RuleOf<'TRUST-PARAM-MATCH'> = {
  id: 'TRUST-PARAM-MATCH',
  title: 'Media types are compared with their parameters: profile and version significant, charset and type case-insensitive',
  family: 'trust',
  scope: 'own',
  sources: [SEED_PARAMS],
  limits: [
    { doc: MEDIA_CASE.doc, section: MEDIA_CASE.section, quote: MEDIA_CASE.quote },
    { doc: CHARSET_CASE.doc, section: CHARSET_CASE.section, quote: CHARSET_CASE.quote },
    { doc: 'RFC 9110', section: '8.3.1', quote: 'Parameter values might or might not be case-sensitive, depending on the semantics of the parameter name.' },
    {
      doc: 'RFC 6906',
      section: '3',
      quote:
        'A profile MUST NOT change the semantics of the resource representation when processed without profile knowledge, so that clients both with and without knowledge of a profiled resource can safely use the same representation.',
    },
  ],
  grades: [
    {
      when: 'the card offers the accepted type only with other parameters (`profile="v3"` against a registry without it), and a task was sent. A matcher that lets an offered type carry parameters its registry entry lacks takes this card as a match: the loose matching docs/duties.md §7 says hides the gap',
      verdict: 'NON_STRICT (field; RFC 6906 lets a profile-unaware reader use a profiled representation, so no MUST) — FAIL where re-sends or orphans follow',
    },
    { when: 'no task, after the card was read', verdict: 'PASS' },
    {
      when: 'a skill emits an accepted type exactly: a task that names it (Message.metadata.skillId, a convention of ours) and completes, or a refusal',
      verdict: 'PASS',
    },
    { when: 'the same type with a charset or type/subtype in another case: no task completed', verdict: 'FAIL (over-rejection: RFC 9110 says they match)' },
  ],
  notBinding: [
    'a status-only consumer',
    'an accepted type the card offers exactly as the client spells it',
    "types that differ in more than their parameters (not this rule's question)",
  ],
  applies(s) {
    if (!s.profile.consumesArtifacts) return notBinding('a status-only consumer decodes no artifact');
    const offered = outputModesFor(s.card, s.intent.skillId);
    const wanted = s.intent.acceptedOutputModes.filter((m) => decodable(s.profile.mediaTypes, m));
    const exact = wanted.filter((m) => includesMediaType(offered, m));
    if (exact.length > 0) {
      const spelled = offered.filter((o) => exact.some((m) => includesMediaType([o], m) && o !== m));
      return spelled.length > 0
        ? binds(`the card spells ${spelled.join(', ')} differently from ${exact.join(', ')} only in case: the same type (RFC 9110 §8.3.1, §8.3.2)`, ['proceed'])
        : notBinding('the card offers an accepted type exactly');
    }
    const loose = offered.filter((o) => wanted.some((m) => looseMatch(o, m)));
    if (loose.length === 0) return notBinding('no offered type shares a type/subtype with an accepted one');
    const alt = decodableSkills(s)[0];
    if (alt)
      return binds(
        `the card offers ${loose.join(', ')}; the client decodes ${wanted.join(', ')}: the parameters differ, but skill ${alt.id} emits ${alt.modes.join(', ')}`,
        ['downgrade', 'reject'],
        [
          signal(s, cardPointer(s.card, 'defaultOutputModes'), 'field', `${loose.join(', ')}: parameters differ from the registry's`),
          signal(s, cardPointer(s.card, 'skillOutputModes', alt.index), 'field', `skill ${alt.id}: ${alt.modes.join(', ')}`),
        ],
      );
    return binds(
      `the card offers ${loose.join(', ')}; the client decodes ${wanted.join(', ')}: the parameters differ`,
      ['reject'],
      [signal(s, cardPointer(s.card, 'defaultOutputModes'), 'field', `${loose.join(', ')}: parameters differ from the registry's`)],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.acceptable.includes('proceed')) return trustHarm(x) ?? mustComplete(x, b.reason);
    const alt = b.acceptable.includes('downgrade') ? decodableSkills(situationOf(x))[0] : undefined;
    const send = attempts(x);
    if (alt && send.length > 0 && send.every((e) => namedSkill(e) === alt.id)) {
      return trustHarm(x) ?? downgradeOutcome(x, alt, send[0]!, `downgraded to skill ${alt.id}, which emits ${alt.modes.join(', ')}, and completed`);
    }
    if (x.tasks.length > 0 || send.length > 0) {
      const damage = trustHarm(x);
      if (damage) return damage;
      const seen = undecodableSeen(x)[0];
      return upFrontMiss(
        this,
        b as Binding,
        `a task was sent although the offered type only matches with its parameters stripped${seen ? `; shown ${seen.type} at #${seen.seq}` : ''}`,
        [...cardReadEvidence(x), ...taskEvidence(x)],
      );
    }
    return creditRejection(x, 'refused before sending: the offered type differs in its parameters');
  },
};
