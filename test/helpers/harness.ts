/** Runs scenarios in-process (no vitest driver): for the harness's own tests and the benchmark. */
import { createBuiltinClient } from '../../clients/index.js';
import type { ClientAdapter } from '../../harness/adapters/contract.js';
import type { ScenarioResult } from '../../harness/core/results.js';
import type { Scenario } from '../../harness/core/scenario/scenario.js';
import type { RunEnv } from '../../harness/runner/infrastructure/env.js';
import { executeScenario } from '../../harness/runner/engine/execute.js';
import { closeEnv, openEnv } from '../../harness/runner/infrastructure/env.js';
import { makePki, writePki, type PkiFiles } from '../../harness/pki/index.js';
import { closeRunFolder, openRunFolder } from '../../harness/runner/infrastructure/workspace.js';

export interface InProcessHarness {
  run(s: Scenario): Promise<ScenarioResult>;
  env: RunEnv;
  close(): Promise<void>;
}

export async function startHarness(
  client: string | ClientAdapter = 'reference',
  opts: { idSalt?: string; abortGraceMs?: number } = {},
): Promise<InProcessHarness> {
  const folder = await openRunFolder('test harness');
  const files: PkiFiles = await writePki(await makePki(), folder.pkiDir);
  const env = await openEnv({
    pkiDir: files.dir,
    client: typeof client === 'string' ? createBuiltinClient(client) : client,
    idSalt: opts.idSalt ?? 'test',
    deadlineMultiplier: 1,
  });
  if (opts.abortGraceMs !== undefined) env.abortGraceMs = opts.abortGraceMs;
  return {
    env,
    run: (s) => executeScenario(s, env),
    close: async () => {
      await closeEnv(env);
      await closeRunFolder(folder);
    },
  };
}
