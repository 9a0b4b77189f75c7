/**
 * TRUST-UNKNOWN-KID (trust): A signature whose key is not a trusted key now (unknown kid, no trust anchor, expired or not yet valid) is not trusted.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Limit, Source } from '../../../sources.js';
import type { RuleOf } from '../../rule.js';
import { VERIFY_BEFORE_TRUST, TRUSTED_KEY_STORE, TRUST_ANCHORS } from './shared.js';
import { signatureRule } from './signature-rule.js';

const EXPIRED_KEYS: Source = { doc: 'A2A v1.0.1', section: '8.4.3', quote: 'Expired or revoked keys MUST NOT be used for verification', level: 'MUST' };

const KEY_WINDOW: Limit = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, Trust anchors and decoders',
  quote: 'Its keys carry an x5c certificate whose validity window says when the key may be used.',
};

const X5C_MATCH: Source = {
  doc: 'RFC 7517',
  section: '4.7',
  quote: 'The key in the first certificate MUST match the public key represented by other members of the JWK.',
  level: 'MUST',
};

const CERT_VALIDITY: Source = {
  doc: 'RFC 5280',
  section: '4.1.2.5',
  quote: 'The validity period for a certificate is the period of time from notBefore through notAfter, inclusive.',
  level: 'MUST',
};

export const TRUST_UNKNOWN_KID: RuleOf<'TRUST-UNKNOWN-KID'> = signatureRule({
  id: 'TRUST-UNKNOWN-KID',
  title: 'A signature whose key is not a trusted key now (unknown kid, no trust anchor, expired or not yet valid) is not trusted',
  breach: 'kid',
  sources: [VERIFY_BEFORE_TRUST, TRUSTED_KEY_STORE, EXPIRED_KEYS],
  grades:
    "the kid is in no trusted JWKS, or its certificate (x5c) is outside its validity window (expired: MUST, §8.4.3; not yet valid: security, the window of the run's trust anchors)",
  limits: [TRUST_ANCHORS, KEY_WINDOW, ...[X5C_MATCH, CERT_VALIDITY].map(({ doc, section, quote }) => ({ doc, section, quote }))],
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});
