/**
 * Recorded transcripts (golden files): what a client really did in a scenario, recorded once over
 * real TLS by `npm run golden` (test/helpers/golden-record.ts) and committed under test/golden/, so the oracle's
 * tests grade real evidence without running a scenario (the unit tier). A golden file keeps the
 * whole ScenarioResult (card, profile, intent, transcript, claims, verdict and checks) beside the
 * digest of the scenario it was recorded from: a scenario changed since makes it stale, and the test
 * that reads it says so. test/golden-live.test.ts records every pair again and checks the verdicts
 * still agree (the events can differ where a change keeps the verdicts: `npm run golden` then).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult } from '../../harness/core/results.js';
import { ROOT } from './cli.js';
import { scenario } from './scenarios.js';

export const GOLDEN_DIR = join(ROOT, 'test/golden');

export interface Golden {
  client: string;
  scenario: string;
  /** sha256 of the scenario as the catalogue holds it when recorded. */
  scenarioDigest: string;
  result: ScenarioResult;
}

/** The file of a (client, scenario) pair. */
export const goldenFile = (client: string, id: string) => join(GOLDEN_DIR, `${client.replace(/[^\w.-]+/g, '_')}__${id.replace(/[^\w.-]+/g, '_')}.json`);

export const scenarioDigest = (id: string) =>
  createHash('sha256')
    .update(JSON.stringify(scenario(id)))
    .digest('hex');

/** The pairs the tests read: every `recorded('<client>', '<scenario>')` call in the given test sources. */
export function pairsIn(sources: string[]): Array<[client: string, id: string]> {
  const seen = new Map<string, [string, string]>();
  for (const text of sources) for (const m of text.matchAll(/recorded\('([^']+)', '([^']+)'\)/g)) seen.set(`${m[1]} ${m[2]}`, [m[1]!, m[2]!]);
  return [...seen.values()].sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));
}

/** The recorded result of a pair; a missing or stale golden file fails the test with what to run. */
export function recorded(client: string, id: string): ScenarioResult {
  const file = goldenFile(client, id);
  if (!existsSync(file)) throw new Error(`no recorded transcript of ${client} in ${id}: run npm run golden`);
  const g = JSON.parse(readFileSync(file, 'utf8')) as Golden;
  if (g.scenarioDigest !== scenarioDigest(id)) throw new Error(`the recorded transcript of ${client} in ${id} is older than the scenario: run npm run golden`);
  return structuredClone(g.result);
}
