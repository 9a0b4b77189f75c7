/**
 * TRUST-ALG (trust): A signature with alg "none", or HMAC keyed with the public key, is not trusted.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import type { RuleOf } from '../../rule.js';
import { VERIFY_BEFORE_TRUST } from './shared.js';
import { signatureRule } from './signature-rule.js';

const ALG_ALLOWLIST: Source = {
  doc: 'RFC 8725',
  section: '3.1',
  quote:
    'Libraries MUST enable the caller to specify a supported set of algorithms and MUST NOT use any other algorithms when performing cryptographic operations.',
  level: 'MUST',
};

const ALG_NONE: Source = {
  doc: 'RFC 7518',
  section: '3.6',
  quote:
    'Implementations that support Unsecured JWSs MUST NOT accept such objects as valid unless the application specifies that it is acceptable for a specific object to not be integrity protected. Implementations MUST NOT accept Unsecured JWSs by default.',
  level: 'MUST',
};

export const TRUST_ALG: RuleOf<'TRUST-ALG'> = signatureRule({
  id: 'TRUST-ALG',
  title: 'A signature with alg "none", or HMAC keyed with the public key, is not trusted',
  breach: 'alg',
  sources: [VERIFY_BEFORE_TRUST, ALG_NONE, ALG_ALLOWLIST],
  grades: 'the signature is alg "none" or HS256 keyed with the public key',
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});
