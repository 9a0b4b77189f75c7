/**
 * `defineScenarios`: what a scenario file calls. Outside vitest it only returns the data (the CLI
 * reads the catalogue that way). Inside vitest, driven by the CLI, it registers one test per
 * scenario that runs it against the client under test and hands the result to the reporter.
 */
import { afterAll, beforeAll, inject, test } from 'vitest';
import type { ScenarioResult } from '../core/results.js';
import type { Scenario } from '../core/scenario.js';
import type { Hello } from '../core/vocabulary/types.js';
import { createClient } from './client-factory.js';
import { executeScenario, type RunEnv } from './execute.js';
import { closeEnv, openEnv } from './env.js';

/** What the CLI provides to every worker. */
export interface WorkerConfig {
  /** A built-in client's name, or… */
  client?: string;
  /** …a command run as an NDJSON subprocess, in `cwd`. */
  clientCmd?: string;
  cwd?: string;
  /** The run's private folder (harness/runner/workspace.ts). */
  runDir?: string;
  hello: Hello;
  pkiDir: string;
  idSalt: string;
  deadlineMultiplier: number;
  /** Ids of the scenarios to run; the rest are skipped (listed as not run by the CLI). */
  selected: string[];
}

declare module 'vitest' {
  export interface ProvidedContext {
    a2aConformance: WorkerConfig;
  }
  interface TaskMeta {
    a2aResult?: ScenarioResult;
  }
}

/**
 * Declares the scenarios of one file. Returns them unchanged; registers them as tests only in a
 * vitest run started by `a2a-conformance run` (which provides the run configuration).
 */
export function defineScenarios(scenarios: Scenario[]): Scenario[] {
  const cfg = process.env.VITEST ? inject('a2aConformance') : undefined;
  if (cfg) register(scenarios, cfg);
  return scenarios;
}

/** A file with a single scenario: `export default defineScenario({...})`. */
export function defineScenario(scenario: Scenario): Scenario[] {
  return defineScenarios([scenario]);
}

function register(scenarios: Scenario[], cfg: WorkerConfig): void {
  const selected = new Set(cfg.selected);
  let env: RunEnv | undefined;
  const wanted = scenarios.filter((s) => selected.has(s.id));
  beforeAll(async () => {
    if (wanted.length === 0) return;
    env = await openEnv({ pkiDir: cfg.pkiDir, client: createClient(cfg), hello: cfg.hello, idSalt: cfg.idSalt, deadlineMultiplier: cfg.deadlineMultiplier });
  });
  afterAll(async () => {
    if (env) await closeEnv(env);
  });
  for (const s of scenarios) {
    test.skipIf(!selected.has(s.id))(s.id, { timeout: s.deadlineMs * cfg.deadlineMultiplier + 15_000 }, async ({ task }) => {
      task.meta.a2aResult = await executeScenario(s, env!);
    });
  }
}
