/**
 * `defineScenarios`: what a scenario file calls. It returns the scenarios as they are: the CLI loads
 * the file, checks every scenario (catalogue.ts) and runs them on its lanes (lanes.ts). The function
 * is the typed entry point of the format, so a TypeScript file is checked as it is written.
 */
import type { Scenario } from '../core/scenario.js';

/** Declares the scenarios of one file: `export default defineScenarios([...])`. */
export function defineScenarios(scenarios: Scenario[]): Scenario[] {
  return scenarios;
}

/** A file with a single scenario: `export default defineScenario({...})`. */
export function defineScenario(scenario: Scenario): Scenario[] {
  return defineScenarios([scenario]);
}
