/**
 * The first step of a scenario run: what the run asks of the client (its profile, deadline and
 * opaque id), the fields every result carries, and whether the client declines the run.
 */
import { createHash } from 'node:crypto';
import type { ScenarioResult } from '../../core/results.js';
import { bindingProblem } from '../../core/card-binding.js';
import { dialectProblem, dialectsFor, profileFor } from '../../core/scenario/profile.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { DEFAULT_PROFILE, type ClientProfile } from '../../core/protocol/types.js';
import type { RunEnv } from '../infrastructure/env.js';

/** The opaque id a client sees: it cannot branch on the rule's name. */
function opaqueId(id: string, salt: string): string {
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
    ...(env.hello.bindings ? { bindings: [...env.hello.bindings] } : {}),
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
    : (bindingProblem(env.hello.profile?.bindings ?? env.hello.bindings, s) ?? (env.hello.profile ? undefined : dialectProblem(env.hello, s)));
  return { base, ...(declined ? { declined } : {}) };
}

/** A run the client declined: UNSUPPORTED, nothing started. */
export function declinedResult(s: Scenario, base: Prepared['base'], declined: string): ScenarioResult {
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
