/**
 * TRUST-UNTRUSTED-JKU (trust): A jku naming keys the client never trusted (on the peer's own origin) is not followed into trust.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import type { RuleOf } from '../../rule.js';
import { VERIFY_BEFORE_TRUST, TRUSTED_KEY_STORE, TRUST_ANCHORS } from './shared.js';
import { signatureRule } from './signature-rule.js';

const JKU_SSRF: Source = {
  doc: 'RFC 8725',
  section: '3.10',
  quote:
    'Similarly, blindly following a "jku" (JWK set URL) or "x5u" (X.509 URL) header, which may contain an arbitrary URL, could result in server-side request forgery (SSRF) attacks. Applications SHOULD protect against such attacks, e.g., by matching the URL to a whitelist of allowed locations and ensuring no cookies are sent in the GET request.',
  level: 'security',
};

export const TRUST_UNTRUSTED_JKU: RuleOf<'TRUST-UNTRUSTED-JKU'> = signatureRule({
  id: 'TRUST-UNTRUSTED-JKU',
  title: "A jku naming keys the client never trusted (on the peer's own origin) is not followed into trust",
  breach: 'jku',
  sources: [VERIFY_BEFORE_TRUST, TRUSTED_KEY_STORE, JKU_SSRF],
  grades: "the key is published only at the jku on the peer's own origin, not among the run's trust anchors (security: §8.4.3 with RFC 8725 §3.10)",
  // §8.4.3 lets a verifier take the key through jku; what it does not say is that any jku is a trusted one. Which keys are
  // trusted in a run is the profile's trustedJwks, as the test protocol states it.
  limits: [TRUST_ANCHORS],
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});
