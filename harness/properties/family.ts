/**
 * A property family: an arbitrary of generated cases over the stories of one rule family, and the
 * rules it covers. A case is everything a scenario holds but its words: the card, the runtime that
 * honours it or drifts from it, the profile, the intent. `caseScenario` makes it a plain scenario
 * (so it runs, grades, reports and exports as any other); the rule it is graded by is the first of
 * its story's rules whose `applies()` binds for the client's profile, else the story's first.
 */
import fc from 'fast-check';
import { BINDING_TELLING, scenarioOverBinding, untellable } from '../core/card-binding.js';
import { scenarioToV03 } from '../core/card-v03.js';
import type { RuleId } from '../core/oracle/rules.js';
import { ruleById } from '../core/oracle/rules.js';
import type { CardSignal, CardSigning } from '../core/scenario/card.js';
import type { PeerRuntime } from '../core/scenario/runtime.js';
import { faultText, type Nemesis, overlay } from '../core/scenario/nemesis.js';
import type { Scenario } from '../core/scenario/scenario.js';
import { BINDINGS, type Binding, type ClientProfile, type Dialect, type ProfileConstraints, type TaskIntent } from '../core/protocol/types.js';
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
  /** Told by an A2A v0.3 peer (its card in v0.3 form, v0.3's JSON-RPC), as `<id>.v03` scenarios are. Absent: v1.0. */
  dialect?: 'a2a-v0.3';
  /** Told over this binding (its card's one interface at `{{grpcUrl}}` or `{{restUrl}}`), as `<id>.grpc` and `<id>.rest` scenarios are. Absent: JSON-RPC. */
  binding?: ToldBinding;
  /** Faults laid on its peer where the story leaves room, as `run --nemesis` lays them (the nemesis family). */
  nemesis?: Nemesis;
}

/** The bindings a case can be told over besides JSON-RPC. */
export type ToldBinding = Exclude<Binding, 'JSONRPC'>;

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

/**
 * A family's cases for a client that speaks these dialects, told over these bindings (default
 * JSON-RPC alone). A v1.0-only client gets the family's arbitrary as it is (its paths unchanged); a
 * client that speaks v0.3 gets each case told by a v1.0 or a v0.3 peer (a v0.3-only client: by a v0.3
 * peer), except signed cards, which v0.3 cannot carry (A2A v0.3.0 specifies no canonical form to
 * sign) and which stay v1.0. Then, where the bindings are other than JSON-RPC alone, each case is
 * told over one of them (`tellOverBinding`); JSON-RPC alone leaves the arbitrary as the dialects made
 * it, so the seeds and paths of a JSON-RPC run are unchanged.
 */
export function familyArbitrary(family: Family, dialects: readonly Dialect[], bindings: readonly Binding[] = JSONRPC_ONLY): fc.Arbitrary<GeneratedCase> {
  const told = dialectArbitrary(family, dialects);
  // In the card names' order, whatever order they were asked in: the same set gives the same cases.
  const order = BINDINGS.filter((b) => bindings.includes(b));
  if (order.length === 0 || (order.length === 1 && order[0] === 'JSONRPC')) return told;
  if (order.length === 1) return told.map((c) => tellOverBinding(c, order[0]!, order));
  return fc.tuple(told, fc.constantFrom(...order)).map(([c, b]) => tellOverBinding(c, b, order));
}

const JSONRPC_ONLY: readonly Binding[] = ['JSONRPC'];

function dialectArbitrary(family: Family, dialects: readonly Dialect[]): fc.Arbitrary<GeneratedCase> {
  const v03 = dialects.includes('a2a-v0.3');
  if (!v03) return family.arbitrary;
  const tell = (c: GeneratedCase, d: Dialect): GeneratedCase => (d === 'a2a-v0.3' && !c.signing ? { ...c, dialect: 'a2a-v0.3' } : c);
  if (!dialects.includes('a2a-v1')) return family.arbitrary.map((c) => tell(c, 'a2a-v0.3'));
  return fc.tuple(family.arbitrary, fc.constantFrom<Dialect>('a2a-v1', 'a2a-v0.3')).map(([c, d]) => tell(c, d));
}

/**
 * A case told over `binding`, where its scenario can be (`untellable`: a v0.3 telling, or a listener
 * with no gRPC counterpart, cannot). Where it cannot, the first of the run's other bindings (in card
 * names' order) it can be told over is taken, JSON-RPC included, which every case can be; where none
 * is left (a gRPC-only run and a case on a listener gRPC has not), the case stays JSON-RPC, and a
 * client that does not declare JSON-RPC does not run it, as `run` does not run such a scenario.
 */
export function tellOverBinding(c: GeneratedCase, binding: Binding, bindings: readonly Binding[]): GeneratedCase {
  const base = caseScenario(LABEL_FAMILY, c, 'binding', c.rules[0]!);
  const can = (b: Binding) => b === 'JSONRPC' || !untellable(base, b);
  const chosen = can(binding) ? binding : bindings.find(can);
  return chosen && chosen !== 'JSONRPC' ? { ...c, binding: chosen } : c;
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

/**
 * A generated case as a plain scenario, graded by `rule`; its nemesis's faults laid on its peer where
 * the story leaves room, its deadline grown by what they cost in the client's time (`multiplier`: the
 * run's --deadline-multiplier, which the added time is not scaled by).
 */
export function caseScenario(family: Family, c: GeneratedCase, id: string, rule: RuleId, multiplier = 1): Scenario {
  const told = toldScenario(family, c, id, rule);
  if (!c.nemesis) return told;
  // A case asks only for no FAIL: a stream fault on a STREAM rule's story binds that rule, which then grades it.
  const { scenario, applied } = overlay(told, c.nemesis, multiplier, false);
  const laid = applied.laid.length ? `Faults laid: ${applied.laid.map(faultText).join('; ')}.` : 'No fault of its schedule laid.';
  const left = applied.left.length ? ` Left: ${applied.left.map((l) => `${faultText(l.fault)} (${l.why})`).join('; ')}.` : '';
  return { ...scenario, title: `${scenario.title}, under faults`, description: `${scenario.description} ${laid}${left}` };
}

function toldScenario(family: Family, c: GeneratedCase, id: string, rule: RuleId): Scenario {
  const told = c.dialect === 'a2a-v0.3' ? ' Told by an A2A v0.3 peer.' : '';
  const drift = c.drifts.length ? `; the runtime drifts from its card: ${c.drifts.join(', ')}` : '; the runtime honours its card';
  const scenario: Scenario = {
    id,
    rule,
    title: `${family.title}: ${c.story}${c.drifts.length ? ` (${c.drifts.join(', ')})` : ''}`,
    description: `A generated case of the ${family.id} family, story ${c.story}${drift}. Task class ${c.intent.taskClass}, ${c.intent.input.mediaType} in, completion by ${c.intent.completion}.${told}`,
    expectation: 'Whatever the rules say for this card, profile and intent: no FAIL and no TIMEOUT (NON_STRICT only under --strict).',
    spec: family.spec,
    peer: { factory: 'generated', card: c.card, runtime: c.runtime, signals: c.signals, ...(c.signing ? { signing: c.signing } : {}) },
    profileConstraints: c.profileConstraints,
    intent: c.intent,
    deadlineMs: c.deadlineMs,
    expect: 'PASS',
  };
  // A v0.3 telling is the same story as a hand-written `<id>.v03` scenario: its card and pointers in v0.3 form;
  // a telling over a binding as a `<id>.grpc` or `<id>.rest` one: its card's one interface of that binding. Either keeps the case's id.
  if (c.dialect === 'a2a-v0.3') return { ...scenarioToV03(scenario), id };
  if (c.binding && !untellable(scenario, c.binding))
    return {
      ...scenarioOverBinding(scenario, c.binding),
      id,
      description: `${scenario.description} Told over the ${BINDING_TELLING[c.binding].name} binding.`,
    };
  return scenario;
}
