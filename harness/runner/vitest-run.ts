/**
 * Drives vitest programmatically over the scenario files: each file is a test module, so vitest's
 * workers, sharding and isolation apply. Results come back through a reporter that reads each
 * test's meta; vitest's own pass/fail is ignored.
 */
import { basename, relative } from 'node:path';
import { BaseSequencer, startVitest } from 'vitest/node';
import type { Reporter, TestCase, TestSpecification, Vitest } from 'vitest/node';
import type { ScenarioResult } from '../core/results.js';
import type { WorkerConfig } from './define.js';
import { createHash } from 'node:crypto';
import { PACKAGE_ROOT } from './catalogue.js';
import { COMPILED } from './package-root.js';

export interface VitestRunOptions {
  files: string[];
  config: WorkerConfig;
  /** Called as each scenario finishes. */
  onResult?: (r: ScenarioResult) => void;
  /** Called as each selected scenario starts, with its id. */
  onStart?: (scenarioId: string) => void;
  /** Called for a test that produced no result (a harness fault). */
  onError?: (scenarioId: string, message: string) => void;
  maxWorkers?: number;
  /** vitest's `--shard <index>/<count>`: this run takes its share of the scenario files. */
  shard?: string;
  /** The files vitest takes (after --shard), reported as each is queued. */
  onFiles?: (files: string[]) => void;
  /** The run's folder of generated modules: a module there is sharded by its name, not its (per-run) path. */
  modulesDir?: string;
  /** Aborting cancels the run: no new scenario starts, and vitest closes its workers. */
  signal?: AbortSignal;
}

/**
 * vitest shards by a hash of each file's path; a generated module's folder differs from run to run
 * (one private folder each), so it is sharded by its name, which depends only on its source file.
 */
function stableShards(modulesDir: string | undefined) {
  return class extends BaseSequencer {
    override async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
      const { index, count } = this.ctx.config.shard!;
      const key = (f: TestSpecification) => (modulesDir && f.moduleId.startsWith(modulesDir) ? `modules/${basename(f.moduleId)}` : relative(this.ctx.config.root, f.moduleId));
      const sorted = files.map((spec) => ({ spec, key: createHash('sha1').update(key(spec)).digest('hex') })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      // vitest's own split: the first (length mod count) shards take one file more.
      const base = Math.floor(sorted.length / count);
      const extra = sorted.length % count;
      const start = (index - 1) * base + Math.min(index - 1, extra);
      return sorted.slice(start, start + base + (index <= extra ? 1 : 0)).map((x) => x.spec);
    }
  };
}

export async function runScenarioFiles(o: VitestRunOptions): Promise<void> {
  // The files vitest actually takes (after --shard), as it queues them.
  const ranFiles = new Set<string>();
  let vitest: Vitest | undefined;
  const cancel = () => void vitest?.cancelCurrentRun('keyboard-input');
  o.signal?.addEventListener('abort', cancel, { once: true });
  const collector: Reporter = {
    onInit(ctx) {
      vitest = ctx;
      if (o.signal?.aborted) cancel();
    },
    onTestModuleQueued(module) {
      ranFiles.add(module.moduleId);
      o.onFiles?.([...ranFiles]);
    },
    onTestCaseReady(test: TestCase) {
      if (test.options.mode !== 'skip') o.onStart?.(test.name);
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
  const ran = await startVitest(
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
      // A worker runs scenario file after scenario file with its modules loaded once (each file still
      // opens and closes its own listeners, PKI and client): a cold fork per file cost about 4.7 s of
      // CPU, twice the scenarios' own work (44 scenarios: 17 s → 11 s wall, 15 s → 7 s CPU).
      isolate: false,
      ...(o.maxWorkers ? { maxWorkers: o.maxWorkers } : {}),
      ...(o.shard ? { shard: o.shard } : {}),
      passWithNoTests: true,
      // From its TypeScript sources inside node_modules (a git install before `prepare` has run), vite
      // must transform the harness; compiled, Node loads it as it is.
      ...(COMPILED ? {} : { server: { deps: { inline: [/a2a-conformance/] } } }),
      silent: true,
      sequence: { sequencer: stableShards(o.modulesDir) },
    },
    { logLevel: 'silent' },
  );
  o.signal?.removeEventListener('abort', cancel);
  await ran?.close();
}
