/**
 * The rule registry: stable IDs from DESIGN.md §3, each with its source and a one-line statement.
 * Adding a rule is adding a row here and a grader in `oracle/`.
 */

export type RuleFamily = 'seed-000' | 'wire' | 'spec';

export interface RuleInfo {
  id: string;
  family: RuleFamily;
  title: string;
  /** Where the rule comes from: a seed file or a spec section. */
  source: string;
  /** NON_STRICT-only rules never fail a run unless `--strict`. */
  strength: 'MUST' | 'SHOULD';
}

export const RULES = [
  {
    id: 'NEG-LIVE-INPUT',
    family: 'seed-000',
    title: 'Live-only input on a peer that cannot take it is rejected before any task is minted',
    source: 'seed 000, invariant 1; the reading of `streaming` as input streaming is a seed convention',
    strength: 'MUST',
  },
  {
    id: 'NEG-PUSH-MTLS',
    family: 'seed-000',
    title: 'Push the client cannot receive is never registered; the task is polled to a terminal state',
    source: 'seed 000, invariant 2 and the second incident',
    strength: 'MUST',
  },
  {
    id: 'NEG-RESUB-ONLY-OUTPUT',
    family: 'seed-000',
    title: 'An output mode only reachable on a disabled resubscribe channel is not waited for',
    source: 'seed 000, invariant 3 and the Decision Boundary',
    strength: 'MUST',
  },
  {
    id: 'NEG-ESCALATE',
    family: 'seed-000',
    title: 'A contradictory card with a known resolving extension is escalated out of band, not sent to',
    source: 'seed 000, Decision Boundary ("Escalate to out-of-band negotiation")',
    strength: 'MUST',
  },
  {
    id: 'WIRE-NO-TASK-AFTER-REJECT',
    family: 'wire',
    title: 'A client that says it rejected (or escalated) minted no task for the intent',
    source: 'DESIGN.md §3 cross-cutting checks',
    strength: 'MUST',
  },
  {
    id: 'WIRE-NO-ORPHANS',
    family: 'wire',
    title: 'Every task the client caused is terminal or canceled at the end',
    source: 'seed 000, Decision Boundary ("it orphans a task on the server")',
    strength: 'MUST',
  },
  {
    id: 'WIRE-NO-BLIND-RETRY',
    family: 'wire',
    title: 'A failing request is never repeated identically',
    source: 'seeds 001 and 003; DESIGN.md §3',
    strength: 'MUST',
  },
  {
    id: 'WIRE-DEADLINE',
    family: 'wire',
    title: 'A decision within the deadline, and a terminal state seen when the client proceeded',
    source: "seed 000, the 40-minute stall",
    strength: 'MUST',
  },
  {
    id: 'WIRE-HONEST-REPORT',
    family: 'wire',
    title: "The client's claims agree with the ledger",
    source: 'DESIGN.md §4.2',
    strength: 'MUST',
  },
  {
    id: 'SPEC-TLS-VERIFY',
    family: 'spec',
    title: 'A peer certificate from an untrusted CA, for the wrong host, or expired is refused',
    source: 'A2A v1.0 §7.1 (TLS), RFC 9110 §4.3.4',
    strength: 'MUST',
  },
  {
    id: 'SPEC-A2A-VERSION',
    family: 'spec',
    title: 'Every A2A request carries the A2A-Version header',
    source: 'A2A v1.0 §3.6.1',
    strength: 'SHOULD',
  },
] as const satisfies readonly RuleInfo[];

export type RuleId = (typeof RULES)[number]['id'];

export const RULE_IDS: readonly RuleId[] = RULES.map((r) => r.id);

export function ruleInfo(id: string): RuleInfo | undefined {
  return RULES.find((r) => r.id === id);
}

export function isRuleId(id: string): id is RuleId {
  return RULE_IDS.includes(id as RuleId);
}

/** Rules every scenario is graded on besides its own (DESIGN.md §3, "Cross-cutting checks"). */
export const CROSS_CUTTING: readonly RuleId[] = [
  'WIRE-NO-TASK-AFTER-REJECT',
  'WIRE-NO-ORPHANS',
  'WIRE-NO-BLIND-RETRY',
  'WIRE-DEADLINE',
  'WIRE-HONEST-REPORT',
  'SPEC-A2A-VERSION',
];
