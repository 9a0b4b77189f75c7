/**
 * Executes one scenario run against a client, in three steps: `prepare` reads what the run asks of
 * the client (its profile, deadline and opaque id) and whether the client declines it; `drive`
 * mounts the scripted peer on the shared listeners, hands the client its run request and enforces
 * the deadline (drive.ts); `gradeRun` grades the wire (grade.ts).
 */
import { createHash } from 'node:crypto';
import type { LagRecord, ScenarioResult } from '../../core/results.js';
import { dialectProblem, dialectsFor, profileFor, type Scenario } from '../../core/scenario.js';
import { DEFAULT_PROFILE, type ClientProfile } from '../../core/vocabulary/types.js';
import { lagWindow } from '../../net/lag.js';
import { restartHost, type RunEnv } from '../infrastructure/env.js';
import { drive } from './drive.js';
import { gradeRun } from './grade.js';

/** The opaque id a client sees: it cannot branch on the rule's name. */
export function opaqueId(id: string, salt: string): string {
  return `s-${createHash('sha256').update(`${salt}\0${id}`).digest('hex').slice(0, 8)}`;
}

/** What a run of the scenario is, before anything starts: the fields every result carries. */
export type RunBase = Omit<ScenarioResult, 'card' | 'verdict' | 'checks' | 'claims' | 'outcome' | 'transcript' | 'ledger' | 'durationMs'>;

/** The run as prepared: what the result will say, or why the client declines it. */
export interface Prepared {
  base: RunBase & { profile: ClientProfile; deadlineMs: number; opaqueId: string };
  declined?: string;
}

export function prepare(s: Scenario, env: RunEnv): Prepared {
  // The dialects the client speaks of the scenario's (the CLI never selects a scenario whose dialects it speaks none of; run directly, it gets them all).
  const spoken = dialectsFor(env.hello, s);
  const profile = env.hello.profile ?? {
    ...profileFor(DEFAULT_PROFILE, s.profileConstraints, env.hello.extensions ?? []),
    ...(spoken.length ? { dialects: spoken } : {}),
  };
  const deadlineMs = Math.round(s.deadlineMs * env.deadlineMultiplier);
  const base = {
    id: s.id,
    opaqueId: opaqueId(s.id, env.idSalt),
    rule: s.rule,
    title: s.title,
    description: s.description,
    expectation: s.expectation,
    spec: s.spec,
    expect: s.expect,
    cardPointers: s.peer.signals.map((x) => x.pointer),
    peer: { factory: s.peer.factory, runtime: s.peer.runtime, dialect: s.peer.dialect ?? 'a2a-v1' },
    profile,
    intent: s.intent,
    deadlineMs,
  };
  const declined = !env.hello.taskClasses.includes(s.intent.taskClass)
    ? `the client declared task class ${s.intent.taskClass} unsupported`
    : env.hello.profile
      ? undefined
      : dialectProblem(env.hello, s);
  return { base, ...(declined ? { declined } : {}) };
}

/** A run the client declined: UNSUPPORTED, nothing started. */
function declinedResult(s: Scenario, base: Prepared['base'], declined: string): ScenarioResult {
  return {
    ...base,
    card: s.peer.card,
    verdict: 'UNSUPPORTED',
    checks: [{ rule: s.rule, verdict: 'UNSUPPORTED', reason: declined, basis: 'unsupported', evidence: [] }],
    claims: null,
    outcome: { kind: 'unsupported' },
    transcript: [],
    ledger: [],
    durationMs: 0,
  };
}

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
