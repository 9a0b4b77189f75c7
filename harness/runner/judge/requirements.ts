/**
 * Frozen requirement sets (docs/tiers.md, "Requirement sets"): each ruleset release writes the
 * scenarios, rules and property families it scores to `docs/requirements/<ruleset>.json` (npm run
 * requirements; a test holds the current one to the catalogue). A tier is computed against one set,
 * the current ruleset's by default: a built-in scenario, a rule's checks or a property family added
 * after the set runs and is shown, but is not scored, with the reason. So a release that adds a
 * scenario cannot move a tier computed against the set a vendor published.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toldFrom } from '../../core/card-binding.js';
import { RULESET_VERSION } from '../../core/oracle/rules.js';
import { MergeError, UsageError } from '../../faults.js';
import type { RunResults } from '../../core/results.js';
import { PACKAGE_ROOT } from '../infrastructure/package-root.js';

export interface RequirementSet {
  /** The ruleset the set was frozen at (its file's name). */
  ruleset: string;
  /** Every built-in scenario id it scores (a telling over another binding, `<id>.grpc` or `<id>.rest`, is its scenario's). */
  scenarios: string[];
  /** Every rule it scores (a vendor assertion, `VENDOR:<id>`, is the vendor's and always scored). */
  rules: string[];
  /** The property families Tier 1 asks for. */
  families: string[];
}

export const REQUIREMENTS_DIR = join(PACKAGE_ROOT, 'docs', 'requirements');

/** A set's file: `<ruleset>.json` in docs/requirements/. */
export const requirementsFile = (ruleset: string) => join(REQUIREMENTS_DIR, `${ruleset}.json`);

/** The frozen sets this package ships, by ruleset. */
export function requirementSets(): string[] {
  if (!existsSync(REQUIREMENTS_DIR)) return [];
  return readdirSync(REQUIREMENTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** The set frozen at `ruleset` (the current one when none is named); a clear error naming the sets there are otherwise. */
export function loadRequirementSet(ruleset: string = RULESET_VERSION): RequirementSet {
  const file = requirementsFile(ruleset);
  if (!requirementSets().includes(ruleset) || !existsSync(file))
    throw new UsageError(`--requirements: no requirement set "${ruleset}"; this package has ${requirementSets().join(', ') || 'none'} (docs/requirements/)`);
  const set = JSON.parse(readFileSync(file, 'utf8')) as RequirementSet;
  if (set.ruleset !== ruleset || !Array.isArray(set.scenarios) || !Array.isArray(set.rules) || !Array.isArray(set.families))
    throw new MergeError(`${file} is not a requirement set (ruleset, scenarios, rules, families)`);
  return set;
}

/** What a set leaves out of a run: scenarios, and rules' checks, added after it. */
export interface NotScored {
  requirements: string;
  /** Built-in scenarios the set does not name, each with why. */
  scenarios: Array<{ id: string; reason: string }>;
  /** Rules the set does not name whose checks were set aside, with how many. */
  rules: Array<{ rule: string; checks: number }>;
}

/**
 * The run as `set` scores it: a built-in scenario of the current catalogue (`current`) the set does
 * not name is set aside, and so is every check of a rule the set does not name. Vendor scenarios and
 * vendor assertions are the vendor's: always scored.
 */
export function scoredBy(run: RunResults, set: RequirementSet, current: RequirementSet): { run: RunResults; notScored: NotScored } {
  const known = new Set(set.scenarios);
  const builtin = new Set(current.scenarios);
  const rules = new Set(set.rules);
  // Only a rule of the registry the set does not name was added after it: vendor assertions and the harness's own
  // checks (HARNESS, CLIENT-PROTOCOL, DIALECT) are no rule of a set, and stay.
  const registry = new Set(current.rules);
  const laterRule = (rule: string) => registry.has(rule) && !rules.has(rule);
  const scenarios: NotScored['scenarios'] = [];
  const setAside = new Map<string, number>();
  const results = run.results.flatMap((r) => {
    // A telling over another binding is its scenario's.
    const id = toldFrom(r.id);
    if (builtin.has(id) && !known.has(id)) {
      scenarios.push({ id: r.id, reason: `added after the requirement set ${set.ruleset}` });
      return [];
    }
    if (laterRule(r.rule)) {
      scenarios.push({ id: r.id, reason: `its rule ${r.rule} was added after the requirement set ${set.ruleset}` });
      return [];
    }
    const later = r.checks.filter((c) => laterRule(c.rule));
    for (const c of later) setAside.set(c.rule, (setAside.get(c.rule) ?? 0) + 1);
    return [later.length ? { ...r, checks: r.checks.filter((c) => !laterRule(c.rule)) } : r];
  });
  return {
    run: { ...run, results },
    notScored: { requirements: set.ruleset, scenarios, rules: [...setAside].map(([rule, checks]) => ({ rule, checks })) },
  };
}
