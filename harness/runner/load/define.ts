/**
 * `defineScenarios`: what a scenario file calls. It returns the scenarios as they are: the CLI loads
 * the file, checks every scenario (catalogue.ts) and runs them on its lanes (lanes.ts). The function
 * is the typed entry point of the format, so a TypeScript file is checked as it is written.
 */
import type { Scenario } from '../../core/scenario/scenario.js';

/** Declares the scenarios of one file: `export default defineScenarios([...])`. */
export function defineScenarios(scenarios: Scenario[]): Scenario[] {
  return scenarios;
}

/** A file with a single scenario: `export default defineScenario({...})`. */
export function defineScenario(scenario: Scenario): Scenario[] {
  return defineScenarios([scenario]);
}

/**
 * A config file in TypeScript or JavaScript (`a2a-conformance.config.ts`): `export default
 * defineConfig({ clientCmd: 'python shim.py', scenarios: ['conformance/'] })`. Typed, returned as it is;
 * the CLI checks it against docs/config.schema.json.
 */
export function defineConfig(config: ConformanceConfig): ConformanceConfig {
  return config;
}

/** A config file as docs/config.schema.json describes it. */
export interface ConformanceConfig {
  client?: string;
  clientCmd?: string;
  /** `matrix` only: its built-in clients, and its other clients as `name=command`. */
  clients?: string[];
  clientCmds?: string[];
  scenarios?: string[];
  builtin?: boolean;
  rule?: string[];
  dialect?: 'a2a-v1' | 'a2a-v0.3';
  /** Protocol bindings, as `--binding` spells them (`GRPC`, `grpc`, `HTTP+JSON`, `rest`, …). */
  binding?: string[];
  grep?: string;
  out?: string;
  expectations?: string;
  strict?: boolean;
  deadlineMultiplier?: number;
  lanes?: number;
  reporter?: string[];
}
