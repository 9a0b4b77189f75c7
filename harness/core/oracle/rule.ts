/**
 * A rule as an object (docs/rules.md): its stable id, the sources it rests on (each quoted, with a
 * level), where it binds (`applies`, from the scenario's truth, the card, the profile and the intent:
 * never the wire), and how it grades the wire where it binds (`grade`).
 *
 * The grade of "did not act on the signal up front" is computed, never written into a grader: the
 * weakest of the rule's strongest duty source and the levels of the binding's signals (each capped
 * by the scenario's own signal kind). MUST and security give FAIL, the rest NON_STRICT; harm on
 * the wire is FAIL at every level.
 */
import { signalLevel } from '../scenario/card.js';
import { strongest, upFrontMissFails, weakest, type Level, type Limit, type Source } from '../sources.js';
import { verdict, type EvidenceRef, type Verdict } from '../verdict.js';
import type { GradeInput, Situation } from './evidence.js';

export type { Situation, Truth } from './evidence.js';

/**
 * What a correct client may do up front: decline before any task; proceed as the intent says;
 * proceed on a narrower path (one payload instead of frames, polling instead of push); resolve the
 * card through an extension it implements.
 */
export type Behaviour = 'reject' | 'proceed' | 'downgrade' | 'escalate';

/** A card signal as a rule reads it: where it is, and the level at which its meaning is known. */
export interface SignalRef {
  pointer: string;
  level: Level;
  note: string;
}

export interface Binding {
  binds: true;
  /** Why it binds, in plain words. */
  reason: string;
  /** The signals the duty rests on; empty where the duty is to proceed (over-rejection is graded). */
  signals: SignalRef[];
  /** What a correct client may do up front. */
  acceptable: Behaviour[];
}

export interface NotBinding {
  binds: false;
  reason: string;
  /** The rule that grades this scenario instead (e.g. NEG-ESCALATE for a client without the extension). */
  gradedBy?: string;
  /**
   * No rule grades the up-front decision: not even the rule's `otherwise`. For a runtime that breaks
   * what the card declares, where the card's way was the right one to take (the WIRE checks grade
   * the recovery).
   */
  final?: true;
}

export type Applicability = Binding | NotBinding;

export const binds = (reason: string, acceptable: Behaviour[], signals: SignalRef[] = []): Binding => ({ binds: true, reason, signals, acceptable });
export const notBinding = (reason: string, gradedBy?: string): NotBinding => ({ binds: false, reason, ...(gradedBy ? { gradedBy } : {}) });
/** Not binding, and no other rule grades the up-front decision either (NotBinding.final). */
export const finalNotBinding = (reason: string): NotBinding => ({ binds: false, reason, final: true });

/** A row of the rule's grading table, for the docs and `list --rules`. */
export interface GradeRow {
  when: string;
  verdict: string;
}

/**
 * A rule whose id is `Id`: each rule's file declares its own, and the registry (rules.ts) derives
 * RuleId and `Rule` from them. The ids a rule names (`otherwise`, `gradedBy`) are checked against the
 * registry by test/rules.test.ts.
 */
export interface RuleOf<Id extends string = string> {
  id: Id;
  title: string;
  /** The concept it belongs to (the file it lives in). */
  family: 'negotiation' | 'transport' | 'trust' | 'handshake' | 'wire';
  /** `own`: graded on the scenarios that name it; `always`: on every scenario (cross-cutting). */
  scope: 'own' | 'always';
  sources: Source[];
  /** Sentences that bound the reading (what the spec does not say), shown beside the sources. */
  limits?: Limit[];
  /** How the wire is graded, in plain words. */
  grades: GradeRow[];
  /** Variants where the rule does not bind. */
  notBinding: string[];
  /**
   * The rule that also grades a scenario where this one does not bind, or where the client did not
   * take this rule's way (e.g. NEG-ESCALATE → NEG-LIVE-INPUT).
   */
  otherwise?: string;
  /** The public reports of client bugs that motivated the rule (`owner/repo#N`), by number only: its duty is the sources'. */
  motivatedBy?: string[];
  applies(s: Situation): Applicability;
  grade(b: Applicability, x: GradeInput): Verdict;
}

/** The level of a rule's duty: the strongest of its duty sources. */
export function dutyLevel(rule: Pick<RuleOf, 'sources'>): Level | undefined {
  return strongest(rule.sources.filter((s) => (s.role ?? 'duty') === 'duty').map((s) => s.level));
}

/** The duty level with the document it comes from where that is not the A2A spec (e.g. `MUST (a2a-conformance/1)`). */
export function dutyLabel(rule: Pick<RuleOf, 'sources'>): string {
  const level = dutyLevel(rule);
  if (!level) return '—';
  const from = rule.sources.find((s) => (s.role ?? 'duty') === 'duty' && s.level === level)!;
  return (level === 'MUST' || level === 'SHOULD') && !from.doc.startsWith('A2A') ? `${level} (${from.doc})` : level;
}

/**
 * A signal as the rule reads it, capped by the kind the scenario gives the same pointer (a vendor
 * scenario may say a signal is only a convention; it can never make one stronger than the rule).
 */
export function signal(s: Situation, pointer: string, level: Level, note: string): SignalRef {
  const declared = s.truth.signals.find((x) => x.pointer === pointer);
  const cap = declared ? signalLevel(declared.kind) : undefined;
  return { pointer, level: cap ? (weakest([level, cap]) ?? level) : level, note };
}

/** The level that decides a miss of this binding: the weakest link of the rule's duty and its signals. */
export function bindingLevel(rule: Pick<RuleOf, 'sources'>, b: Binding): Level {
  // The signals first: between levels of equal strength (MUST, security) the signal's own is the one the reason names.
  return weakest([...b.signals.map((x) => x.level), dutyLevel(rule) ?? 'convention']) ?? 'convention';
}

/** The verdict for a client that did not act on a binding signal up front: FAIL or NON_STRICT by level. */
export function upFrontMiss(rule: Pick<RuleOf, 'sources'>, b: Binding, reason: string, evidence: EvidenceRef[]): Verdict {
  const level = bindingLevel(rule, b);
  const where = b.signals.length ? ` (${b.signals.map((x) => `${x.pointer}: ${x.level}`).join('; ')})` : '';
  return verdict(upFrontMissFails(level) ? 'FAIL' : 'NON_STRICT', `${reason}${where}`, evidence, { basis: 'up-front', level });
}

/** A missing degradation record: never more than NON_STRICT, at the rule's duty level. */
export function missingRecord(rule: Pick<RuleOf, 'sources'>, reason: string, evidence: EvidenceRef[]): Verdict {
  const level = dutyLevel(rule) ?? 'convention';
  return verdict('NON_STRICT', reason, evidence, { basis: 'record', level });
}

export const harm = (reason: string, evidence: EvidenceRef[]): Verdict => verdict('FAIL', reason, evidence, { basis: 'harm' });
export const met = (reason: string, evidence: EvidenceRef[] = []): Verdict => verdict('PASS', reason, evidence, { basis: 'met' });
export const informational = (reason: string, evidence: EvidenceRef[] = []): Verdict => verdict('INFORMATIONAL', reason, evidence, { basis: 'not-binding' });
export const timeout = (reason: string, evidence: EvidenceRef[] = []): Verdict => verdict('TIMEOUT', reason, evidence, { basis: 'deadline' });
