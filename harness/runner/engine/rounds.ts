/**
 * The scenarios of a run on its lanes, in rounds: each result judged as it comes (the reporter,
 * `--bail`), a failure met while the harness lagged confirmed on a drained lane before it counts, and
 * a scenario the harness could not run an ERROR of its own (never the client's).
 */
import type { ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import type { Pki } from '../../pki/index.js';
import type { Hello } from '../../core/protocol/types.js';
import { laneClients, laneKind, type ClientChoice } from './client-factory.js';
import { relativeToRoot, type CatalogueEntry } from '../load/catalogue.js';
import { unexpectedWhyFor } from '../judge/expectations.js';
import { laneOrder, runLanes, type LaneHistory, type LaneOptions } from './lanes.js';
import { planThreads, runLanesOnThreads } from './worker-pool.js';
import { confirm, needsConfirmation, stretched } from '../judge/confirm.js';
import { closeEnv, openEnv } from '../infrastructure/env.js';
import { executeScenario } from './execute.js';
import type { Expectations } from '../judge/expectations.js';

/** What the rounds need besides the run's options: the client, its PKI, the ids' salt, and where each scenario's file is. */
/**
 * From how many scenarios a run spreads its lanes across worker threads by default: a worker thread
 * costs its start (about 0.4 s installed) and a heap of its own, which a short run does not win back.
 */
const WORKERS_FROM_SCENARIOS = 60;

export interface RoundsContext {
  lanes?: number;
  /**
   * Threads with lanes, this one included (`--workers`). `auto` (the CLI's default): worker-pool.ts
   * defaultWorkers for a built-in client's run of 60 scenarios or more, else 1. Absent (the
   * programmatic API's default): 1, so a caller's process gets no thread it did not ask for.
   */
  workers?: number | 'auto';
  bail?: boolean;
  signal?: AbortSignal;
  expectations?: Expectations;
  onStart?: (scenarioId: string) => void;
  onProgress?: (done: number, total: number, r: ScenarioResult, unexpected: boolean) => void;
  onDeferred?: (done: number, total: number, r: ScenarioResult) => void;
  choice: ClientChoice & { runDir: string };
  hello: Hello;
  pkiDir: string;
  /** The run's PKI in memory (greet): pkiDir holds only the client's keys. */
  pems?: Pki;
  seed: string;
  deadlineMultiplier: number;
  policy: { strict: boolean };
  fileOf: Map<string, string>;
}

export interface RoundsOutcome {
  results: Map<string, ScenarioResult>;
  /** A fault of the lanes themselves (not of one scenario), where one happened. */
  laneProblem: string | undefined;
  lanes: LaneHistory | undefined;
  /** The scenario whose unexpected verdict stopped the run (`--bail`). */
  bailedAfter: string | undefined;
}

export async function runRounds(here: CatalogueEntry[], c: RoundsContext): Promise<RoundsOutcome> {
  const { choice, hello, pkiDir, pems, seed, deadlineMultiplier, policy, fileOf } = c;
  const o = c;
  const results = new Map<string, ScenarioResult>();
  // Each result is judged as it comes, for the reporter and --bail. (The run's own judgement comes at the
  // end, after the dialect credit, which looks at the whole run: a run that never spoke A2A turns its
  // PASSes into UNSUPPORTED there.)
  // --bail: the first unexpected verdict stops the run from starting more scenarios (not an interruption).
  const bail = new AbortController();
  let bailedAfter: string | undefined;
  /** Scenarios shown as done so far: a failure met while the harness lagged is shown when it first ends, its confirmation after. */
  let shown = 0;
  const finished = (r: ScenarioResult) => {
    results.set(r.id, r);
    const unexpected = unexpectedWhyFor(r, policy, o.expectations) !== undefined;
    if (!r.attempts?.length) shown++;
    o.onProgress?.(shown, here.length, r, unexpected);
    if (o.bail && unexpected && bailedAfter === undefined) {
      bailedAfter = r.id;
      bail.abort('bail');
    }
  };
  let laneProblem: string | undefined;
  let lanes: LaneHistory | undefined;
  /** Failures met while the harness lagged: confirmed on a drained lane once the lanes are done. */
  const deferred: ScenarioResult[] = [];
  const begun = new Set<string>();
  const byId = new Map(here.map((e) => [e.scenario.id, e.scenario]));
  // Rounds of lanes: one, unless --bail meets a failure while the harness lagged. Then no lane starts
  // another scenario until the failure is confirmed on a drained lane: confirmed, the run bails after
  // it; not confirmed, the scenarios not started yet run in the next round.
  for (let queue = here; queue.length > 0 && bailedAfter === undefined && !o.signal?.aborted; ) {
    const pending = new AbortController();
    const stops = [bail.signal, pending.signal, ...(o.signal ? [o.signal] : [])];
    // A built-in client's long run spreads its lanes across threads (worker-pool.ts), 16 per thread (the
    // scenarios mostly wait on their peers' timers). Not a --client-cmd client's (its processes are
    // registered, for the run's cleanup, by the thread that starts them), nor under --bail (a thread's
    // queued scenarios would start after the bail).
    const { threads, lanes: laneCount } = planThreads({
      ...(o.workers !== undefined ? { workers: o.workers } : {}),
      ...(o.lanes !== undefined ? { lanes: o.lanes } : {}),
      threadsAllowed: !!choice.client && !choice.adapter && !o.bail,
      long: queue.length >= WORKERS_FROM_SCENARIOS,
      kind: laneKind(choice, hello),
    });
    const onThreads = (x: LaneOptions) =>
      threads > 1
        ? runLanesOnThreads({
            ...x,
            workers: threads,
            hello,
            choice: { client: choice.client, clientCmd: choice.clientCmd, cwd: choice.cwd, runDir: choice.runDir },
          })
        : runLanes(x);
    const round = await onThreads({
      // Costliest first, so the run does not end on a long scenario started last; under --bail, the
      // catalogue's order (a failure early in it stops the run as soon as it would have).
      scenarios: o.bail ? queue.map((e) => e.scenario) : laneOrder(queue.map((e) => e.scenario)),
      lanes: laneCount,
      env: { pkiDir, ...(pems ? { pems } : {}), hello, idSalt: seed, deadlineMultiplier },
      client: laneClients(choice, hello),
      stop: AbortSignal.any(stops),
      ...(o.signal ? { kill: o.signal } : {}),
      onStart: (id) => {
        begun.add(id);
        o.onStart?.(id);
      },
      onResult: (r) => {
        r.file = relativeToRoot(fileOf.get(r.id) ?? '');
        if (needsConfirmation(r)) {
          deferred.push(r);
          o.onDeferred?.(++shown, here.length, r);
          if (o.bail && unexpectedWhyFor(r, policy, o.expectations) !== undefined) pending.abort('bail pending');
        } else finished(r);
      },
      onError: (id, message) => {
        if (id === '*') laneProblem = message;
        const targets = id === '*' ? [] : here.filter((e) => e.scenario.id === id);
        for (const e of targets) {
          if (results.has(e.scenario.id)) continue;
          finished(errorResult(e, `the harness could not run this scenario: ${message}`));
        }
      },
    });
    lanes = lanes ? { start: lanes.start, min: Math.min(lanes.min, round.min), backoffs: lanes.backoffs + round.backoffs } : round;
    // Drained: every lane is closed, and each deferred failure runs again alone (confirm.ts).
    if (deferred.length > 0)
      await confirmDeferred(
        deferred.splice(0),
        (id) => byId.get(id),
        { choice, hello, pkiDir, ...(pems ? { pems } : {}), idSalt: seed, deadlineMultiplier, ...(o.signal ? { signal: o.signal } : {}) },
        finished,
      );
    queue = pending.signal.aborted ? here.filter((e) => !begun.has(e.scenario.id)) : [];
  }
  return { results, laneProblem, lanes, bailedAfter };
}

/**
 * Runs each failure met while the harness lagged again, alone, on a lane of its own opened after the
 * others closed (nothing else of the run is in flight), and reports the confirmed result.
 */
async function confirmDeferred(
  deferred: ScenarioResult[],
  scenarioOf: (id: string) => Scenario | undefined,
  o: { choice: ClientChoice & { runDir: string }; hello: Hello; pkiDir: string; pems?: Pki; idSalt: string; deadlineMultiplier: number; signal?: AbortSignal },
  finished: (r: ScenarioResult) => void,
): Promise<void> {
  const client = laneClients(o.choice, o.hello)();
  let env: Awaited<ReturnType<typeof openEnv>>;
  try {
    env = await openEnv({
      pkiDir: o.pkiDir,
      ...(o.pems ? { pems: o.pems } : {}),
      client,
      hello: o.hello,
      idSalt: o.idSalt,
      deadlineMultiplier: o.deadlineMultiplier,
    });
  } catch (err) {
    // A lane the harness cannot open confirms nothing: each failure is reported as it came, saying so.
    await client.close?.().catch(() => undefined);
    for (const first of deferred)
      finished({
        ...first,
        checks: [
          ...first.checks,
          {
            rule: 'HARNESS',
            verdict: 'INFORMATIONAL',
            reason: `met while the harness lagged, and not confirmed: the harness could not open a lane to run it again (${(err as Error).message})`,
            evidence: [],
            basis: 'harness',
          },
        ],
      });
    return;
  }
  const onAbort = () => void closeEnv(env);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (const first of deferred) {
      if (o.signal?.aborted) break;
      const s = scenarioOf(first.id);
      const r = s ? await confirm(first, (ms) => executeScenario(stretched(s, ms, env.deadlineMultiplier), env)) : first;
      finished({ ...r, ...(first.file ? { file: first.file } : {}) });
    }
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    await closeEnv(env);
  }
}

export function errorResult(e: CatalogueEntry, reason: string): ScenarioResult {
  const s = e.scenario;
  return {
    id: s.id,
    opaqueId: '',
    rule: s.rule,
    title: s.title,
    description: s.description,
    expectation: s.expectation,
    spec: s.spec,
    expect: s.expect,
    verdict: 'ERROR',
    checks: [{ rule: 'HARNESS', verdict: 'ERROR', reason, evidence: [] }],
    card: s.peer.card,
    cardPointers: s.peer.signals.map((x) => x.pointer),
    peer: { factory: s.peer.factory, runtime: s.peer.runtime, dialect: s.peer.dialect ?? 'a2a-v1' },
    profile: s.profileConstraints as never,
    intent: s.intent,
    claims: null,
    outcome: { kind: 'error', reason },
    transcript: [],
    ledger: [],
    deadlineMs: s.deadlineMs,
    durationMs: 0,
    file: relativeToRoot(e.file),
  };
}
