/**
 * Drives vitest programmatically over the scenario files: each file is a test module, so vitest's
 * workers, sharding and isolation apply. Results come back through a reporter that reads each
 * test's meta; vitest's own pass/fail is ignored.
 */
import { startVitest } from 'vitest/node';
import type { Reporter, TestCase } from 'vitest/node';
import type { ScenarioResult } from '../core/results.js';
import type { WorkerConfig } from './define.js';
import { PACKAGE_ROOT } from './catalogue.js';

export interface VitestRunOptions {
  files: string[];
  config: WorkerConfig;
  /** Called as each scenario finishes. */
  onResult?: (r: ScenarioResult) => void;
  /** Called for a test that produced no result (a harness fault). */
  onError?: (scenarioId: string, message: string) => void;
  maxWorkers?: number;
  /** vitest's `--shard <index>/<count>`: this run takes its share of the scenario files. */
  shard?: string;
  /** The files vitest takes (after --shard), reported as each is queued. */
  onFiles?: (files: string[]) => void;
}

export async function runScenarioFiles(o: VitestRunOptions): Promise<void> {
  // The files vitest actually takes (after --shard), as it queues them.
  const ranFiles = new Set<string>();
  const collector: Reporter = {
    onTestModuleQueued(module) {
      ranFiles.add(module.moduleId);
      o.onFiles?.([...ranFiles]);
    },
    onTestCaseResult(test: TestCase) {
      const r = test.meta().a2aResult;
      const state = test.result().state;
      if (r) o.onResult?.(r);
      else if (state === 'failed') o.onError?.(test.name, (test.result().errors ?? []).map((e) => e.message).join('; ') || 'the scenario test failed');
    },
    onTestRunEnd(modules, unhandled) {
      for (const m of modules) {
        const errs = m.errors();
        if (errs.length > 0) for (const t of m.children.allTests()) if (!t.meta().a2aResult && t.options.mode !== 'skip') o.onError?.(t.name, errs.map((e) => e.message).join('; '));
      }
      for (const e of unhandled) o.onError?.('*', `unhandled error: ${(e as Error).message ?? String(e)}`);
    },
  };
  const vitest = await startVitest(
    'test',
    [],
    {
      root: PACKAGE_ROOT,
      config: false,
      include: o.files,
      watch: false,
      reporters: [collector],
      provide: { a2aConformance: o.config },
      pool: 'forks',
      ...(o.maxWorkers ? { maxWorkers: o.maxWorkers } : {}),
      ...(o.shard ? { shard: o.shard } : {}),
      passWithNoTests: true,
      // Installed from npm, the harness is TypeScript inside node_modules: let vite transform it.
      server: { deps: { inline: [/a2a-conformance/] } },
      silent: true,
    },
    { logLevel: 'silent' },
  );
  await vitest?.close();
}
