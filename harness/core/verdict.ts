/**
 * Verdicts (DESIGN.md §2): a `kind`-tagged union, each with a reason and the evidence that decided it.
 */

export const VERDICT_KINDS = [
  'PASS',
  'NON_STRICT',
  'FAIL',
  'INFORMATIONAL',
  'UNSUPPORTED',
  'TIMEOUT',
  'ERROR',
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

/** A pointer into the evidence: a transcript sequence number, a ledger fact, or both. */
export interface EvidenceRef {
  seq?: number;
  fact: string;
}

interface VerdictBase {
  reason: string;
  evidence: EvidenceRef[];
}
export type Verdict =
  | ({ kind: 'PASS' } & VerdictBase)
  | ({ kind: 'NON_STRICT' } & VerdictBase)
  | ({ kind: 'FAIL' } & VerdictBase)
  | ({ kind: 'INFORMATIONAL' } & VerdictBase)
  | ({ kind: 'UNSUPPORTED' } & VerdictBase)
  | ({ kind: 'TIMEOUT' } & VerdictBase)
  | ({ kind: 'ERROR' } & VerdictBase);

/** One graded check of a scenario run: its rule and its verdict. */
export interface Check {
  rule: string;
  verdict: VerdictKind;
  reason: string;
  evidence: EvidenceRef[];
}

export function verdict(kind: VerdictKind, reason: string, evidence: EvidenceRef[] = []): Verdict {
  return { kind, reason, evidence } as Verdict;
}

export function toCheck(rule: string, v: Verdict): Check {
  return { rule, verdict: v.kind, reason: v.reason, evidence: v.evidence };
}

/** Severity for "worst of": INFORMATIONAL is below PASS so it never masks a real grade. */
const SEVERITY: Record<VerdictKind, number> = {
  INFORMATIONAL: 0,
  UNSUPPORTED: 0,
  PASS: 1,
  NON_STRICT: 2,
  TIMEOUT: 3,
  FAIL: 4,
  ERROR: 5,
};

export function severity(kind: VerdictKind): number {
  return SEVERITY[kind];
}

/**
 * A scenario's verdict is the worst of its checks. When nothing is worse than PASS, the scenario
 * takes its own rule's verdict, so a rule that does not bind reads INFORMATIONAL.
 */
export function scenarioVerdict(checks: Check[], primaryRule: string): VerdictKind {
  if (checks.length === 0) return 'ERROR';
  let worst: VerdictKind = 'INFORMATIONAL';
  for (const c of checks) if (SEVERITY[c.verdict] > SEVERITY[worst]) worst = c.verdict;
  if (SEVERITY[worst] <= SEVERITY.PASS) {
    const primary = checks.find((c) => c.rule === primaryRule);
    return primary ? primary.verdict : worst;
  }
  return worst;
}
