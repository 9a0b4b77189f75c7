/**
 * Executes one scenario run against a client, in three steps: `prepare` reads what the run asks of
 * the client and whether it declines it (prepare.ts); `drive` mounts the scripted peer on the shared
 * listeners, hands the client its run request and enforces the deadline (drive.ts); `gradeRun`
 * grades the wire (grade.ts).
 */
import type { LagRecord, ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { lagWindow } from '../../net/lag.js';
import { restartHost, type RunEnv } from '../infrastructure/env.js';
import { drive } from './drive.js';
import { gradeRun } from './grade.js';
import { declinedResult, prepare } from './prepare.js';

export async function executeScenario(s: Scenario, env: RunEnv): Promise<ScenarioResult> {
  const started = performance.now();
  // The harness's own delay while this run is in flight: a timing verdict of a lagged run is confirmed before it is reported.
  const window = lagWindow();
  const prepared = prepare(s, env);
  if (prepared.declined) {
    window.end();
    return declinedResult(s, prepared.base, prepared.declined);
  }
  let lag: LagRecord | undefined;
  let driven: Awaited<ReturnType<typeof drive>>;
  try {
    driven = await drive(s, env, prepared.base);
  } finally {
    lag = window.end();
  }
  // A client that ignores the abort may keep connecting: the next run gets fresh listeners, so
  // nothing it does lands in another scenario's transcript.
  if (driven.hungClient) await restartHost(env);
  return gradeRun(s, env, prepared.base, driven, { started, lag });
}
