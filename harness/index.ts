/**
 * The public entry of `a2a-conformance` for scenario authors and client adapters:
 *
 * ```ts
 * import { defineScenarios, type Scenario } from 'a2a-conformance';
 * export default defineScenarios([{ id: 'acme/…', rule: 'NEG-LIVE-INPUT', … }]);
 * ```
 * Scenario files are found by `--scenarios <glob>`; JSON files (`*.scenario.json`) follow
 * docs/scenario.schema.json.
 */
export { defineConfig, defineScenario, defineScenarios } from './runner/load/define.js';
export type { ConformanceConfig } from './runner/load/define.js';
export type { Scenario, PeerDescription } from './core/scenario/scenario.js';
export type { PeerRuntime, ListenerKind, OutputChannel, Operation } from './core/scenario/runtime.js';
export type { CardSignal } from './core/scenario/card.js';
export type { Assertion } from './core/scenario/assertions.js';
export { OPERATIONS } from './core/scenario/runtime.js';
export { ASSERTABLE_HEADERS } from './core/scenario/assertions.js';
export type {
  ClientProfile,
  ProfileConstraints,
  TaskIntent,
  TaskInput,
  TaskClass,
  ClientReport,
  Decision,
  ErrorClass,
  Hello,
  RunRequest,
  ClientTls,
} from './core/protocol/types.js';
export type { ClientAdapter } from './adapters/contract.js';
export type { VerdictKind, Check, EvidenceRef } from './core/verdict.js';
export type { RunResults, ScenarioResult } from './core/results.js';
export { RULES, type RuleId, type Rule } from './core/oracle/rules.js';
export type { Source, Level, Limit } from './core/sources.js';
export { RESUBSCRIBE_ONLY_OUTPUTS_EXT, CONTOSO_AUDIO_SESSION_EXT } from './core/protocol/extensions.js';
