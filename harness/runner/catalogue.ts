/**
 * The scenario catalogue: every scenario file found by glob, loaded as data, checked, ids unique.
 * A malformed file is a load error that names the file and the field.
 */
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { glob } from 'tinyglobby';
import { isRuleId } from '../core/rules.js';
import type { Scenario } from '../core/scenario.js';
import { LISTENER_KINDS } from '../core/scenario.js';
import { TASK_CLASSES } from '../core/types.js';
import { VERDICT_KINDS } from '../core/verdict.js';

export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_SCENARIO_GLOB = 'scenarios/**/*.scenario.ts';

export class ScenarioLoadError extends Error {
  override readonly name = 'ScenarioLoadError';
  readonly code = 'A2A_SCENARIO_LOAD';
}

export interface CatalogueEntry {
  scenario: Scenario;
  /** Absolute path of the file that declares it. */
  file: string;
}

/** Checks the shape of one scenario; returns the first problem as `field: what`. */
export function scenarioProblem(s: unknown): string | undefined {
  if (!s || typeof s !== 'object') return 'scenario: must be an object';
  const o = s as Record<string, unknown>;
  for (const f of ['id', 'rule', 'title', 'description', 'expectation', 'spec'] as const)
    if (typeof o[f] !== 'string' || o[f] === '') return `${f}: must be a non-empty string`;
  if (!/^[a-z0-9][a-z0-9._/-]*$/.test(o.id as string)) return 'id: use lower-case letters, digits, and . _ / -';
  if (!isRuleId(o.rule as string)) return `rule: unknown rule "${String(o.rule)}"`;
  if (!VERDICT_KINDS.includes(o.expect as never)) return `expect: must be one of ${VERDICT_KINDS.join(', ')}`;
  if (typeof o.deadlineMs !== 'number' || !(o.deadlineMs > 0) || o.deadlineMs > 600_000) return 'deadlineMs: a number of milliseconds, 1..600000';
  const intent = o.intent as Record<string, unknown> | undefined;
  if (!intent || !TASK_CLASSES.includes(intent.taskClass as never)) return `intent.taskClass: one of ${TASK_CLASSES.join(', ')}`;
  if (!intent.input || typeof (intent.input as Record<string, unknown>).mediaType !== 'string') return 'intent.input.mediaType: required';
  if (!Array.isArray(intent.acceptedOutputModes)) return 'intent.acceptedOutputModes: must be a list';
  if (!['poll', 'push', 'stream'].includes(intent.completion as string)) return 'intent.completion: poll, push or stream';
  const peer = o.peer as Record<string, unknown> | undefined;
  if (!peer || typeof peer.factory !== 'string') return 'peer.factory: required';
  if (!peer.card || typeof peer.card !== 'object') return 'peer.card: required';
  const rt = peer.runtime as Record<string, unknown> | undefined;
  if (!rt) return 'peer.runtime: required';
  for (const f of ['cardListener', 'rpcListener'] as const)
    if (!LISTENER_KINDS.includes(rt[f] as never)) return `peer.runtime.${f}: one of ${LISTENER_KINDS.join(', ')}`;
  if (!Array.isArray(peer.signals)) return 'peer.signals: must be a list';
  if (!o.profileConstraints || typeof o.profileConstraints !== 'object') return 'profileConstraints: must be an object';
  return undefined;
}

/** Finds scenario files. `patterns` are globs or paths, relative to `cwd`. */
export async function findScenarioFiles(patterns: string[], cwd: string): Promise<string[]> {
  const files = await glob(patterns, { cwd, absolute: true, ignore: ['**/node_modules/**'] });
  return files.filter((f) => f.endsWith('.scenario.ts')).sort();
}

export async function loadCatalogue(files: string[]): Promise<CatalogueEntry[]> {
  const out: CatalogueEntry[] = [];
  const byId = new Map<string, string>();
  for (const file of files) {
    let mod: { default?: unknown };
    try {
      mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    } catch (err) {
      throw new ScenarioLoadError(`${file}: failed to load: ${(err as Error).message}`);
    }
    if (!Array.isArray(mod.default))
      throw new ScenarioLoadError(`${file}: the default export must be the array returned by defineScenarios([...])`);
    mod.default.forEach((s: unknown, i: number) => {
      const problem = scenarioProblem(s);
      const label = typeof (s as { id?: unknown })?.id === 'string' ? `scenario "${(s as { id: string }).id}"` : `scenario #${i}`;
      if (problem) throw new ScenarioLoadError(`${file}: ${label}: ${problem}`);
      const sc = s as Scenario;
      const prior = byId.get(sc.id);
      if (prior) throw new ScenarioLoadError(`duplicate scenario id "${sc.id}" in ${prior} and ${file}`);
      byId.set(sc.id, file);
      out.push({ scenario: sc, file });
    });
  }
  return out;
}

export function relativeToRoot(file: string): string {
  return relative(PACKAGE_ROOT, file);
}
