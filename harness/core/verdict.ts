/**
 * Verdicts (docs/architecture.md, docs/rules.md): a `kind`-tagged union, each with a reason and the evidence that decided it.
 */
import type { Level, Limit, Source } from './sources.js';

export const VERDICT_KINDS = ['PASS', 'NON_STRICT', 'FAIL', 'INFORMATIONAL', 'UNSUPPORTED', 'TIMEOUT', 'ERROR'] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

/**
 * Where a piece of evidence comes from: what the harness observed on a channel (`wire`: the
 * listeners, the push dispatcher, the client's NDJSON pipe), the task ledger the peers kept
 * (`ledger`), or what the client said of itself (`claims`, never enough for a FAIL on its own).
 */
export const EVIDENCE_SOURCES = ['wire', 'ledger', 'claims'] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];

/** A pointer into the evidence: a transcript sequence number, a ledger fact, or both. */
export interface EvidenceRef {
  seq?: number;
  fact: string;
  /** Absent only in results written before ruleset 2. */
  source?: EvidenceSource;
  /** The fact is an absence over the whole recorded transcript or ledger (nothing to point a sequence number at). */
  absence?: true;
}

export const wireEvidence = (seq: number | undefined, fact: string): EvidenceRef => ({ ...(seq ? { seq } : {}), fact, source: 'wire' });
export const ledgerEvidence = (seq: number | undefined, fact: string): EvidenceRef => ({ ...(seq ? { seq } : {}), fact, source: 'ledger' });
export const claimEvidence = (fact: string): EvidenceRef => ({ fact, source: 'claims' });
/** Something the whole transcript (or ledger) does not hold: e.g. no card GET before the decision. */
export const absentEvidence = (source: 'wire' | 'ledger', fact: string): EvidenceRef => ({ fact, source, absence: true });

/**
 * Why a check got its verdict:
 * - `harm`: what the wire shows went wrong (FAIL at every level);
 * - `up-front`: the client did not act on a binding signal before minting a task (FAIL or
 *   NON_STRICT by the level, which the check carries);
 * - `duty`: a duty on every request missed (e.g. A2A-Version), FAIL or NON_STRICT by its level;
 * - `over-rejection`: the intent was completable and the client declined it;
 * - `incomplete`: the client proceeded, and the task did not complete before it stopped (gave up,
 *   canceled, or ran out of its own time): never worded as a refusal;
 * - `no-credit`: a rejection the wire cannot credit (the card was never read);
 * - `record`: a degradation the client did not record (NON_STRICT at the rule's level);
 * - `deadline`: no decision by the deadline, or a duty met only late (a stream held into the deadline): a
 *   verdict that rests on time, confirmed on a drained lane when the harness lagged; `crash`: the client gave no valid answer;
 * - `claims`: the client's report contradicts the ledger;
 * - `met`: the rule's duty was met; `not-binding`: the rule does not bind here;
 * - `unsupported`: the client declined the task class; `harness`: the harness failed;
 * - `protocol`: the client's channel (warnings that cost nothing);
 * - `assertion`: a scenario author's own assertion missed (`VENDOR:<id>`, docs/scenarios.md);
 * - `order`: the verdict turns on the order of two events the wire cannot order (a poll answered while
 *   a forged delivery was on its way): a lagged run is run again on a drained lane (confirm.ts).
 */
export const BASES = [
  'harm',
  'up-front',
  'duty',
  'over-rejection',
  'incomplete',
  'no-credit',
  'record',
  'deadline',
  'crash',
  'claims',
  'met',
  'not-binding',
  'unsupported',
  'harness',
  'protocol',
  'assertion',
  'order',
] as const;
export type Basis = (typeof BASES)[number];

interface VerdictBase {
  reason: string;
  evidence: EvidenceRef[];
  basis?: Basis;
  /** For `up-front` and `record` verdicts: the level that decided between FAIL and NON_STRICT. */
  level?: Level;
  /** Sentences the reason rests on where they are not the rule's duty sources (an over-rejection's way to proceed). */
  cites?: Limit[];
}
export type Verdict =
  | ({ kind: 'PASS' } & VerdictBase)
  | ({ kind: 'NON_STRICT' } & VerdictBase)
  | ({ kind: 'FAIL' } & VerdictBase)
  | ({ kind: 'INFORMATIONAL' } & VerdictBase)
  | ({ kind: 'UNSUPPORTED' } & VerdictBase)
  | ({ kind: 'TIMEOUT' } & VerdictBase)
  | ({ kind: 'ERROR' } & VerdictBase);

/** One graded check of a scenario run: its rule, its verdict, and the sources the rule rests on. */
export interface Check {
  rule: string;
  verdict: VerdictKind;
  reason: string;
  evidence: EvidenceRef[];
  basis?: Basis;
  level?: Level;
  sources?: Source[];
  /** Sentences this verdict's reason rests on, beside the rule's sources (see Verdict.cites). */
  cites?: Limit[];
}

export function verdict(kind: VerdictKind, reason: string, evidence: EvidenceRef[] = [], extra: { basis?: Basis; level?: Level } = {}): Verdict {
  return { kind, reason, evidence, ...(extra.basis ? { basis: extra.basis } : {}), ...(extra.level ? { level: extra.level } : {}) } as Verdict;
}

export function toCheck(rule: string, v: Verdict, sources?: Source[]): Check {
  return {
    rule,
    verdict: v.kind,
    reason: v.reason,
    evidence: v.evidence,
    ...(v.basis ? { basis: v.basis } : {}),
    ...(v.level ? { level: v.level } : {}),
    ...(sources?.length ? { sources } : {}),
    ...(v.cites?.length ? { cites: v.cites } : {}),
  };
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
