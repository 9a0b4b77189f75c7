/** Looks up built-in scenarios by id (plain data; nothing runs). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario } from '../../harness/core/scenario.js';
import { ROOT } from './cli.js';
import dialects from '../../scenarios/dialects.scenario.js';
import escalate from '../../scenarios/neg-escalate.scenario.js';
import handshake from '../../scenarios/handshake.scenario.js';
import live from '../../scenarios/neg-live-input.scenario.js';
import push from '../../scenarios/neg-push-mtls.scenario.js';
import resub from '../../scenarios/neg-resubscribe-only.scenario.js';
import tls from '../../scenarios/spec-tls-verify.scenario.js';
import trust from '../../scenarios/trust.scenario.js';
import wire from '../../scenarios/wire.scenario.js';

export const ALL_SCENARIOS: Scenario[] = [...live, ...push, ...resub, ...escalate, ...tls, ...trust, ...handshake, ...dialects, ...wire];

export function scenario(id: string): Scenario {
  const s = ALL_SCENARIOS.find((x) => x.id === id);
  if (!s) throw new Error(`no scenario ${id}`);
  return s;
}

/** The built-in scenario files, as the CLI finds them: for runs through runConformance. */
export const BUILTIN_FILES = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.scenario.ts'))
  .map((f) => join(ROOT, 'scenarios', f));
