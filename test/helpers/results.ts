/** Builds a real RunResults in-process: scenarios run over TLS, judged as the CLI judges them. */
import type { ClientAdapter } from '../../harness/core/protocol/adapter.js';
import type { RunResults, ScenarioResult } from '../../harness/core/results.js';
import { creditDialect } from '../../harness/runner/engine/dialect.js';
import { dialectProblem } from '../../harness/core/scenario/profile.js';
import { RESULTS_SCHEMA } from '../../harness/core/results.js';
import { judge, type Expectations } from '../../harness/runner/judge/expectations.js';
import { exitCode, summarize } from '../../harness/runner/judge/policy.js';
import { startHarness } from './harness.js';
import { ALL_SCENARIOS, scenario } from './scenarios.js';

export async function runInProcess(
  client: string | ClientAdapter,
  ids: string[] = ALL_SCENARIOS.map((s) => s.id),
  expectations?: Expectations,
): Promise<RunResults> {
  const h = await startHarness(client);
  const results: ScenarioResult[] = [];
  let name = typeof client === 'string' ? client : '';
  try {
    const hello = await h.env.client.hello();
    if (!name) name = hello.name;
    // As the CLI selects: a per-run client runs only the scenarios of the dialects it declares.
    for (const id of ids) if (hello.profile || !dialectProblem(hello, scenario(id))) results.push(await h.run(scenario(id)));
  } finally {
    await h.close();
  }
  return assemble(name, creditDialect(results), expectations);
}

export function assemble(client: string, results: ScenarioResult[], expectations?: Expectations): RunResults {
  const { unexpected } = judge(
    results,
    { strict: false },
    expectations,
    ALL_SCENARIOS.map((s) => s.id),
  );
  return {
    schema: RESULTS_SCHEMA,
    harness: { name: 'a2a-conformance', version: 'test' },
    ruleset: 'test',
    client: { name: client, version: '0', profile: null, taskClasses: ['text'] },
    seed: 'test',
    shard: null,
    strict: false,
    deadlineMultiplier: 1,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    results,
    notRun: [],
    summary: summarize(results),
    unexpected,
    exitCode: exitCode(results, unexpected),
  };
}
