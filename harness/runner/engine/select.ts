/**
 * Which scenarios of the catalogue a run takes: the command line's filters (`--scenario`, `--grep`,
 * `--rule`, `--dialect`), then what the client's hello rules out. Light: `list` and the argument
 * checks of `run` load it without the runner.
 */
import type { RunResults } from '../../core/results.js';
import { bindingProblem } from '../../core/card-binding.js';
import { dialectProblem, unmetConstraint } from '../../core/scenario/profile.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import type { Dialect, Hello } from '../../core/protocol/types.js';
import type { CatalogueEntry } from '../load/catalogue.js';
import { capabilityProblem } from './capability-needs.js';

/** `--scenario <id>` (exact ids) and `--grep <text|/regex/flags>` (over id and title), as the CLI picks scenarios. */
export interface ScenarioPick {
  ids?: string[];
  grep?: { source: string; test(text: string): boolean };
}

/** Why a pick leaves this scenario out, or undefined. */
function pickProblem(s: Scenario, pick: ScenarioPick): string | undefined {
  if (pick.ids?.length && !pick.ids.includes(s.id)) return `filtered out by --scenario ${pick.ids.join(',')}`;
  if (pick.grep && !pick.grep.test(s.id) && !pick.grep.test(s.title)) return `filtered out by --grep ${pick.grep.source}`;
  return undefined;
}

/** The scenarios the command line's filters keep (`run` before the client's hello, and `list`). */
export function filterCatalogue(catalogue: CatalogueEntry[], rules?: string[], dialect?: Dialect, pick: ScenarioPick = {}): CatalogueEntry[] {
  return catalogue.filter(
    (e) =>
      !pickProblem(e.scenario, pick) && !(rules?.length && !rules.includes(e.scenario.rule)) && !(dialect && (e.scenario.peer.dialect ?? 'a2a-v1') !== dialect),
  );
}

/**
 * Why the command line's filters (`--scenario`, `--grep`, `--rule`, `--dialect`) together leave no
 * scenario of the catalogue, or undefined: a filter that selects nothing is an argument error, not an
 * empty run.
 */
export function filtersProblem(catalogue: CatalogueEntry[], rules?: string[], dialect?: Dialect, pick: ScenarioPick = {}): string | undefined {
  if (filterCatalogue(catalogue, rules, dialect, pick).length > 0 || catalogue.length === 0) return undefined;
  const named = [
    ...(pick.ids?.length ? [`--scenario ${pick.ids.join(',')}`] : []),
    ...(pick.grep ? [`--grep ${JSON.stringify(pick.grep.source)}`] : []),
    ...(rules?.length ? [`--rule ${rules.join(',')}`] : []),
    ...(dialect ? [`--dialect ${dialect}`] : []),
  ];
  return `${named.join(' ')} ${named.length > 1 ? 'together select' : 'selects'} no scenario of the ${catalogue.length} in the catalogue (see \`a2a-conformance list\`)`;
}

/**
 * Which scenarios run: `--scenario` and `--grep` picks, a `--rule` filter, a fixed profile's unmet constraints, the bindings
 * and dialects the client does not speak and the capabilities it declares absent leave scenarios out
 * (listed as not run, with the reason). Task classes the client does not list still run as
 * UNSUPPORTED results, so they show as coverage.
 */
export function selectScenarios(
  catalogue: CatalogueEntry[],
  hello: Hello,
  rules?: string[],
  dialect?: Dialect,
  pick: ScenarioPick = {},
): { selected: CatalogueEntry[]; notRun: RunResults['notRun'] } {
  const notRun: RunResults['notRun'] = [];
  const selected: CatalogueEntry[] = [];
  for (const e of catalogue) {
    const unpicked = pickProblem(e.scenario, pick);
    if (unpicked) {
      notRun.push({ id: e.scenario.id, reason: unpicked });
      continue;
    }
    if (rules?.length && !rules.includes(e.scenario.rule)) {
      notRun.push({ id: e.scenario.id, reason: `filtered out by --rule ${rules.join(',')}` });
      continue;
    }
    if (dialect && (e.scenario.peer.dialect ?? 'a2a-v1') !== dialect) {
      notRun.push({ id: e.scenario.id, reason: `filtered out by --dialect ${dialect}` });
      continue;
    }
    const unmet = hello.profile ? unmetConstraint(hello.profile, e.scenario.profileConstraints) : undefined;
    if (unmet) {
      notRun.push({ id: e.scenario.id, reason: `the client's fixed profile does not meet this scenario: ${unmet}` });
      continue;
    }
    const binding = bindingProblem(hello.profile?.bindings ?? hello.bindings, e.scenario);
    if (binding) {
      notRun.push({ id: e.scenario.id, reason: binding });
      continue;
    }
    const dialects = hello.profile ? undefined : dialectProblem(hello, e.scenario);
    if (dialects) {
      notRun.push({ id: e.scenario.id, reason: dialects });
      continue;
    }
    const absent = capabilityProblem(hello, e.scenario);
    if (absent) {
      notRun.push({ id: e.scenario.id, reason: absent });
      continue;
    }
    selected.push(e);
  }
  return { selected, notRun };
}
