/**
 * The rule catalogue: every rule object, in the order of their stable ids. `list --rules`,
 * docs/rules.md and the reports read the rules from here.
 */
import { HANDSHAKE_RULES } from './handshake.js';
import { NEGOTIATION_RULES } from './negotiation.js';
import { RULE_IDS, type Rule, type RuleId } from './rule.js';
import { TRANSPORT_RULES } from './transport.js';
import { TRUST_RULES } from './trust.js';
import { WIRE_RULES } from './wire.js';

export { RULE_IDS, isRuleId, type RuleId, type Rule } from './rule.js';

const ALL = [...NEGOTIATION_RULES, ...TRANSPORT_RULES, ...TRUST_RULES, ...HANDSHAKE_RULES, ...WIRE_RULES];

/** Every rule, in RULE_IDS order. */
export const RULES: readonly Rule[] = RULE_IDS.map((id) => {
  const r = ALL.find((x) => x.id === id);
  if (!r) throw new Error(`[harness] rule ${id} has no object`);
  return r;
});

export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}

/** Rules graded on every scenario besides its own (DESIGN.md §3, "Cross-cutting checks"). */
export const CROSS_CUTTING: readonly RuleId[] = RULES.filter((r) => r.scope === 'always').map((r) => r.id);
