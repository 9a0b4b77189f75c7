/**
 * The scenario catalogue: every scenario file found by glob, loaded as data, checked, ids unique.
 * A malformed file is a load error that names the file and the field.
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { glob } from 'tinyglobby';
import type { Scenario } from '../core/scenario.js';
import { schemaValidator } from './json-schema.js';
import { PACKAGE_ROOT } from './package-root.js';

export { PACKAGE_ROOT };
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

/** Checks one scenario against the published schema; returns the first problem as `field: what`. */
export function scenarioProblem(s: unknown): string | undefined {
  const validate = schemaValidator('scenario.schema.json', 'scenario');
  // Through JSON, as a .scenario.json would be: `undefined` members of a TypeScript literal vanish.
  if (validate(JSON.parse(JSON.stringify(s ?? null)))) return undefined;
  const e = validate.errors![0]!;
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'scenario';
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const extra = (e.params as { additionalProperty?: string }).additionalProperty;
  return `${at}: ${e.message}${allowed ? ` (${allowed.join(', ')})` : ''}${extra ? ` "${extra}"` : ''}`;
}

/** Finds scenario files. `patterns` are globs or paths, relative to `cwd`. */
export async function findScenarioFiles(patterns: string[], cwd: string): Promise<string[]> {
  const files = await glob(patterns, { cwd, absolute: true, ignore: ['**/node_modules/**'] });
  return files.filter((f) => f.endsWith('.scenario.ts') || f.endsWith('.scenario.json')).sort();
}

export async function loadCatalogue(files: string[]): Promise<CatalogueEntry[]> {
  const out: CatalogueEntry[] = [];
  const byId = new Map<string, string>();
  for (const file of files) {
    let list: unknown;
    if (file.endsWith('.json')) {
      try {
        const doc = JSON.parse(await readFile(file, 'utf8')) as unknown;
        list = Array.isArray(doc) ? doc : (doc as { scenarios?: unknown })?.scenarios;
      } catch (err) {
        throw new ScenarioLoadError(`${file}: not JSON: ${(err as Error).message}`);
      }
      if (!Array.isArray(list)) throw new ScenarioLoadError(`${file}: a scenario JSON file is a list of scenarios, or {"scenarios": [...]} (docs/scenario.schema.json)`);
    } else {
      let mod: { default?: unknown };
      try {
        mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
      } catch (err) {
        throw new ScenarioLoadError(`${file}: failed to load: ${(err as Error).message}`);
      }
      list = mod.default;
      if (!Array.isArray(list)) throw new ScenarioLoadError(`${file}: the default export must be the array returned by defineScenarios([...])`);
    }
    (list as unknown[]).forEach((s: unknown, i: number) => {
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
