/** Looks up built-in scenarios by id (plain data; nothing runs). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scenario } from '../../harness/core/scenario/scenario.js';
import { ROOT } from './cli.js';

/** The built-in scenario files, as the CLI finds them (every `*.scenario.ts` in scenarios/): for runs through runConformance. */
export const BUILTIN_FILES = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.scenario.ts'))
  .sort()
  .map((f) => join(ROOT, 'scenarios', f));

/** Every scenario of every built-in scenario file, file by file: no list of files to keep. */
export const ALL_SCENARIOS: Scenario[] = (
  await Promise.all(BUILTIN_FILES.map(async (f) => ((await import(pathToFileURL(f).href)) as { default: Scenario[] }).default))
).flat();

export function scenario(id: string): Scenario {
  const s = ALL_SCENARIOS.find((x) => x.id === id);
  if (!s) throw new Error(`no scenario ${id}`);
  return s;
}
