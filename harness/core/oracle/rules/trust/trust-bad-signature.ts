/**
 * TRUST-BAD-SIGNATURE (trust): A card changed after it was signed is not trusted.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { RuleOf } from '../../rule.js';
import { VERIFY_BEFORE_TRUST } from './shared.js';
import { signatureRule } from './signature-rule.js';

export const TRUST_BAD_SIGNATURE: RuleOf<'TRUST-BAD-SIGNATURE'> = {
  ...signatureRule({
    id: 'TRUST-BAD-SIGNATURE',
    title: 'A card changed after it was signed is not trusted',
    breach: 'tamper',
    sources: [VERIFY_BEFORE_TRUST],
    grades: 'the card was changed after it was signed',
    notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
  }),
  // A card cached before it was verified and handed back unverified on a retry (the key store briefly down): the same breach.
  motivatedBy: ['google/adk-python#6901'],
};
