/**
 * The signature rules (TRUST-BAD-SIGNATURE, -UNKNOWN-KID, -UNTRUSTED-JKU, -ALG) share one shape: a card whose
 * signature fails one way is not trusted; each rule grades its own way of failing.
 */
import type { Level, Limit, Source } from '../../../sources.js';
import { verdict, wireEvidence, type Verdict } from '../../../verdict.js';
import { cardPointer } from '../../../protocol/card-view.js';
import { cardReadEvidence, firstSend, jwksFetches, taskEvidence, type GradeInput } from '../../evidence.js';
import { creditRejection, mustComplete } from '../../graders.js';
import { binds, informational, notBinding, signal, upFrontMiss, type Applicability, type Binding, type RuleOf, type Situation } from '../../rule.js';
import { type Breach, breach, keyEvidence, attempts, trustHarm } from './shared.js';

export interface SignatureRuleSpec<Id extends string> {
  id: Id;
  title: string;
  breach: Breach;
  sources: Source[];
  grades: string;
  notBinding: string[];
  limits?: Limit[];
}

/** Where a signature rule binds: a signed card whose signature fails its own way (`breach`), or the sound control. */
function signatureApplies(kind: Breach, s: Situation): Applicability {
  const found = breach(s);
  if (!s.truth.signing) return notBinding('the card is not signed');
  if (!found) return binds('the card is soundly signed with a key the client trusts: it must proceed', ['proceed', 'downgrade']);
  if (found.kind !== kind) return notBinding(`another way the signature fails: ${found.why}`);
  const required = s.profile.requireSignedCards;
  if (!required && s.profile.trustedJwks.length === 0)
    return notBinding('the client neither requires signed cards nor holds any trust anchor: a signature it cannot check is no signal to it');
  // §8.4.3's MUST is about expired (or revoked) keys a verifying client uses; a key not valid yet, or one a jku names
  // outside the run's trust anchors, rests on §8.4.3's SHOULD verify with keys from a trusted store: security.
  const level: Level = !required ? 'SHOULD' : kind === 'kid' && s.truth.signing.key === 'expired' ? 'MUST' : 'security';
  return binds(
    `${found.why}${required ? '; the profile requires signed cards' : '; the profile does not require signed cards'}`,
    ['reject'],
    [signal(s, cardPointer(s.card, 'signature'), level, found.why)],
  );
}

/** How a signature rule grades the wire: no task on a card it cannot trust; on the sound control, completed, and verified first. */
function signatureGrade(rule: Pick<RuleOf, 'sources'>, b: Applicability, x: GradeInput): Verdict {
  if (!b.binds) return informational(b.reason);
  if (b.acceptable.includes('proceed')) {
    const done = trustHarm(x) ?? mustComplete(x, b.reason);
    const first = firstSend(x);
    if (done.kind === 'PASS' && x.profile.requireSignedCards && first && !jwksFetches(x).some((e) => e.seq < first.seq))
      return verdict(
        'NON_STRICT',
        'completed, but no JWKS was fetched before the first send although the profile requires signed cards: nothing on the wire shows the card was verified',
        [...keyEvidence(x), wireEvidence(first.seq, `first ${first.rpc!.method}`)],
        { basis: 'up-front', level: 'security' },
      );
    return done.kind === 'PASS' ? { ...done, evidence: [...done.evidence, ...keyEvidence(x)] } : done;
  }
  if (x.tasks.length > 0 || attempts(x).length > 0) {
    const miss = upFrontMiss(rule, b as Binding, `the client tried to start a task on a card whose signature it cannot trust: ${b.reason}`, [
      ...cardReadEvidence(x),
      ...keyEvidence(x),
      ...taskEvidence(x),
    ]);
    const damage = trustHarm(x);
    return damage && miss.kind !== 'FAIL' ? damage : miss;
  }
  const credit = creditRejection(x, 'refused the card before any task');
  return credit.kind === 'PASS' ? { ...credit, evidence: [...credit.evidence, ...keyEvidence(x)] } : credit;
}

export function signatureRule<Id extends string>(spec: SignatureRuleSpec<Id>): RuleOf<Id> {
  return {
    id: spec.id,
    title: spec.title,
    family: 'trust',
    scope: 'own',
    sources: spec.sources,
    limits: [
      {
        doc: 'A2A v1.0.1',
        section: '8.4',
        quote: 'Agent Cards MAY be digitally signed using JSON Web Signature (JWS) as defined in RFC 7515 to ensure authenticity and integrity.',
      },
      ...(spec.limits ?? []),
    ],
    grades: [
      { when: `${spec.grades}, and the profile requires signed cards: any task`, verdict: 'FAIL (security)' },
      { when: `${spec.grades}, and the profile does not require signed cards: any task`, verdict: 'NON_STRICT (§8.4.3 SHOULD verify before trusting)' },
      { when: 'no task, after the card was read', verdict: 'PASS' },
      {
        when: 'a sound signature from a trusted key (the control): no task completed',
        verdict:
          'FAIL (over-rejection); completed without any JWKS fetch before the first send while signed cards are required: NON_STRICT (nothing shows the card was verified)',
      },
    ],
    notBinding: spec.notBinding,
    applies(s) {
      return signatureApplies(spec.breach, s);
    },
    grade(b, x) {
      return signatureGrade(this, b, x);
    },
  };
}
