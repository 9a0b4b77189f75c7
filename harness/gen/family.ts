/**
 * A property family: an arbitrary of generated cases over the stories of one rule family, and the
 * rules it covers. A case is everything a scenario holds but its words: the card, the runtime that
 * honours it or drifts from it, the profile, the intent. `caseScenario` makes it a plain scenario
 * (so it runs, grades, reports and exports as any other); the rule it is graded by is the first of
 * its story's rules whose `applies()` binds for the client's profile, else the story's first.
 */
import type fc from 'fast-check';
import type { RuleId } from '../core/oracle/rule.js';
import { ruleById } from '../core/oracle/rules.js';
import type { CardSignal, CardSigning, PeerRuntime, Scenario } from '../core/scenario.js';
import type { ClientProfile, ProfileConstraints, TaskIntent } from '../core/vocabulary/types.js';
import { situationOf } from '../core/oracle/evidence.js';
import type { Drift } from './peer-runtime.js';

export interface GeneratedCase {
  /** The story that made it (a family has several), e.g. `live-input`. */
  story: string;
  /** The rules the story is about, in the order that labels the case (the first is the fallback). */
  rules: RuleId[];
  /** How the runtime departs from the card, if at all. */
  drifts: Drift[];
  card: Record<string, unknown>;
  signals: CardSignal[];
  runtime: PeerRuntime;
  profileConstraints: ProfileConstraints;
  intent: TaskIntent;
  signing?: CardSigning;
  deadlineMs: number;
}

export interface Family {
  /** Stable id: `--family`, the ids of its cases, the replay command. */
  id: string;
  title: string;
  /** The rules its stories are about. */
  rules: RuleId[];
  /** Cross-cutting rules (graded on every case) whose mistakes its stories provoke, as the mutation check shows. */
  provokes?: RuleId[];
  /** Where its stories come from. */
  spec: string;
  arbitrary: fc.Arbitrary<GeneratedCase>;
}

/** The family's cases' scenario id: the family, the seed and the fast-check path (its `:` as `.`, as scenario ids spell it). */
export const caseId = (family: string, seed: number, path: string) => `${family}/seed-${seed}/${path.replace(/:/g, '.')}`;

/** The rule a case is graded by, for this profile: the first of its story's rules that binds, else the story's first. */
export function labelCase(c: GeneratedCase, profile: ClientProfile): RuleId {
  // What the oracle would read before any wire: the same Situation it grades from (situationOf).
  const scenario = caseScenario(LABEL_FAMILY, c, 'label', c.rules[0]!);
  const situation = situationOf({ scenario, card: c.card, profile, intent: c.intent, events: [], tasks: [], claims: null, outcome: { kind: 'reported' } });
  for (const id of c.rules) {
    const rule = ruleById(id);
    if (rule?.applies(situation).binds) return id;
  }
  return c.rules[0]!;
}

/** The family a case is labelled under: only its words would differ, and applies() reads none of them. */
const LABEL_FAMILY = { id: 'label', title: 'label', rules: [], spec: '', arbitrary: undefined as never } satisfies Family;

/** A generated case as a plain scenario, graded by `rule`. */
export function caseScenario(family: Family, c: GeneratedCase, id: string, rule: RuleId): Scenario {
  const drift = c.drifts.length ? `; the runtime drifts from its card: ${c.drifts.join(', ')}` : '; the runtime honours its card';
  return {
    id,
    rule,
    title: `${family.title}: ${c.story}${c.drifts.length ? ` (${c.drifts.join(', ')})` : ''}`,
    description: `A generated case of the ${family.id} family, story ${c.story}${drift}. Task class ${c.intent.taskClass}, ${c.intent.input.mediaType} in, completion by ${c.intent.completion}.`,
    expectation: 'Whatever the rules say for this card, profile and intent: no FAIL and no TIMEOUT (NON_STRICT only under --strict).',
    spec: family.spec,
    peer: { factory: 'generated', card: c.card, runtime: c.runtime, signals: c.signals, ...(c.signing ? { signing: c.signing } : {}) },
    profileConstraints: c.profileConstraints,
    intent: c.intent,
    deadlineMs: c.deadlineMs,
    expect: 'PASS',
  };
}
