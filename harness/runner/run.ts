/**
 * One conformance run: load the catalogue, greet the client, select scenarios, make the PKI, run the
 * scenario files under vitest, and assemble `results.json` with its exit code.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBuiltinClient } from '../../clients/index.js';
import type { RunResults, ScenarioResult } from '../core/results.js';
import { RESULTS_SCHEMA } from '../core/results.js';
import { unmetConstraint } from '../core/scenario.js';
import { TASK_CLASSES, type Hello } from '../core/types.js';
import { makePki, removePki, writePki } from '../pki/index.js';
import { loadCatalogue, PACKAGE_ROOT, relativeToRoot, type CatalogueEntry } from './catalogue.js';
import { exitCode, summarize } from './policy.js';
import { judge, type Expectations } from './expectations.js';
import { runScenarioFiles } from './vitest-run.js';

export const RULESET_VERSION = 'seed-000@1';

export interface RunOptions {
  client: string;
  files: string[];
  rules?: string[];
  strict?: boolean;
  deadlineMultiplier?: number;
  /** Salt of the opaque scenario ids (random when absent). */
  seed?: string;
  onProgress?: (done: number, total: number, r: ScenarioResult) => void;
  expectations?: Expectations;
  /** `<index>/<count>`: run only this shard of the scenario files (vitest --shard). */
  shard?: string;
  maxWorkers?: number;
}

export function harnessVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Checks a hello answer: name, version, profile (null or an object), known task classes. */
export function helloProblem(h: unknown): string | undefined {
  const o = h as Partial<Hello> | null;
  if (!o || typeof o !== 'object') return 'hello must be an object';
  if (typeof o.name !== 'string' || !o.name) return 'hello.name must be a non-empty string';
  if (typeof o.version !== 'string') return 'hello.version must be a string';
  if (o.profile !== null && (typeof o.profile !== 'object' || o.profile === undefined)) return 'hello.profile must be null or a profile object';
  if (!Array.isArray(o.taskClasses) || o.taskClasses.some((c) => !TASK_CLASSES.includes(c))) return `hello.taskClasses must list some of ${TASK_CLASSES.join(', ')}`;
  return undefined;
}

/**
 * Which scenarios run: a `--rule` filter and a fixed profile's unmet constraints leave scenarios out
 * (listed as not run, with the reason). Task classes the client does not list still run as
 * UNSUPPORTED results, so they show as coverage.
 */
export function selectScenarios(catalogue: CatalogueEntry[], hello: Hello, rules?: string[]): { selected: CatalogueEntry[]; notRun: RunResults['notRun'] } {
  const notRun: RunResults['notRun'] = [];
  const selected: CatalogueEntry[] = [];
  for (const e of catalogue) {
    if (rules?.length && !rules.includes(e.scenario.rule)) {
      notRun.push({ id: e.scenario.id, reason: `filtered out by --rule ${rules.join(',')}` });
      continue;
    }
    const unmet = hello.profile ? unmetConstraint(hello.profile, e.scenario.profileConstraints) : undefined;
    if (unmet) {
      notRun.push({ id: e.scenario.id, reason: `the client's fixed profile does not meet this scenario: ${unmet}` });
      continue;
    }
    selected.push(e);
  }
  return { selected, notRun };
}

export async function runConformance(o: RunOptions): Promise<RunResults> {
  const started = Date.now();
  const catalogue = await loadCatalogue(o.files);
  const adapter = createBuiltinClient(o.client);
  const hello = await adapter.hello();
  await adapter.close?.();
  const problem = helloProblem(hello);
  if (problem) throw new Error(`client ${o.client}: ${problem}`);

  const { selected, notRun } = selectScenarios(catalogue, hello, o.rules);

  const seed = o.seed ?? randomBytes(4).toString('hex');
  const deadlineMultiplier = o.deadlineMultiplier ?? 1;
  const results = new Map<string, ScenarioResult>();
  const fileOf = new Map(catalogue.map((e) => [e.scenario.id, e.file]));
  const pki = await writePki(await makePki());
  let inShard: Set<string> | undefined;
  const total = () => (inShard ? selected.filter((e) => inShard!.has(e.file)).length : selected.length);
  try {
    if (selected.length > 0) {
      await runScenarioFiles({
        shard: o.shard,
        onFiles: (files) => {
          if (o.shard) inShard = new Set(files);
        },
        files: [...new Set(selected.map((e) => e.file))],
        config: { client: o.client, hello, pkiDir: pki.dir, idSalt: seed, deadlineMultiplier, selected: selected.map((e) => e.scenario.id) },
        maxWorkers: o.maxWorkers,
        onResult: (r) => {
          r.file = relativeToRoot(fileOf.get(r.id) ?? '');
          results.set(r.id, r);
          o.onProgress?.(results.size, total(), r);
        },
        onError: (id, message) => {
          const targets = id === '*' ? selected.filter((e) => !results.has(e.scenario.id)) : selected.filter((e) => e.scenario.id === id);
          for (const e of targets) {
            if (results.has(e.scenario.id)) continue;
            const r = errorResult(e, `the harness could not run this scenario: ${message}`);
            results.set(r.id, r);
            o.onProgress?.(results.size, total(), r);
          }
        },
      });
    }
  } finally {
    await removePki(pki);
  }
  // With a shard, scenarios in files of other shards are not run here (`report` merges the shards).
  const ran = inShard ? selected.filter((e) => inShard!.has(e.file)) : selected;
  if (inShard) for (const e of selected) if (!inShard.has(e.file)) notRun.push({ id: e.scenario.id, reason: `in another shard than ${o.shard}` });
  for (const e of ran) if (!results.has(e.scenario.id)) results.set(e.scenario.id, errorResult(e, 'no result came back from the scenario run'));

  const ordered = ran.map((e) => results.get(e.scenario.id)!);
  const policy = { strict: o.strict === true };
  const { unexpected } = judge(ordered, policy, o.expectations, catalogue.map((e) => e.scenario.id));
  return {
    schema: RESULTS_SCHEMA,
    harness: { name: 'a2a-conformance', version: harnessVersion() },
    ruleset: RULESET_VERSION,
    client: { name: hello.name, version: hello.version, profile: hello.profile, taskClasses: hello.taskClasses },
    seed,
    shard: o.shard ?? null,
    strict: policy.strict,
    deadlineMultiplier,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results: ordered,
    notRun,
    summary: summarize(ordered),
    unexpected,
    exitCode: exitCode(ordered, unexpected),
  };
}

function errorResult(e: CatalogueEntry, reason: string): ScenarioResult {
  const s = e.scenario;
  return {
    id: s.id, opaqueId: '', rule: s.rule, title: s.title, description: s.description, expectation: s.expectation, spec: s.spec,
    expect: s.expect, verdict: 'ERROR', checks: [{ rule: 'HARNESS', verdict: 'ERROR', reason, evidence: [] }],
    card: s.peer.card, cardPointers: s.peer.signals.map((x) => x.pointer), peer: { factory: s.peer.factory, runtime: s.peer.runtime },
    profile: s.profileConstraints as never, intent: s.intent, claims: null, outcome: { kind: 'error', reason }, transcript: [], ledger: [],
    deadlineMs: s.deadlineMs, durationMs: 0, file: relativeToRoot(e.file),
  };
}
