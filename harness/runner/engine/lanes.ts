/**
 * Runs scenarios in this process on bounded lanes. A lane has its own listeners (a PeerHost), push
 * dispatcher and client adapter (for a subprocess client, its own process), and runs one scenario at
 * a time: every handshake and listener error on a lane belongs to the one run in flight there, so
 * runs on different lanes overlap without sharing attribution. Lanes take scenarios from one queue,
 * in the order they are given (rounds.ts gives laneOrder's: the cheapest, then the costliest first).
 * The modules are loaded once, by the catalogue, before the first lane opens.
 */
import { availableParallelism } from 'node:os';
import type { ClientAdapter } from '../../adapters/contract.js';
import type { ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { closeEnv, openEnv, type EnvOptions, type RunEnv } from '../infrastructure/env.js';
import { executeScenario } from './execute.js';
import { Governor } from '../../net/lag.js';

/**
 * Lanes when `--lanes` is not given. A scenario spends most of its time waiting on the peer's
 * scripted timers, so lanes outnumber cores: a built-in client runs in this process and costs a lane
 * little (eight per core, at most 16: on this 2-core machine `run --client reference` takes 6.8 s on
 * 4 lanes, 4.1 s on 8 and 3.4 s on 16, with the same verdicts); a `--client-cmd` client costs a
 * process per lane (twice the cores, at most 8).
 */
export function defaultLanes(client: 'builtin' | 'process' = 'builtin'): number {
  const cores = availableParallelism();
  return Math.max(1, client === 'builtin' ? Math.min(16, cores * 8) : Math.min(8, cores * 2));
}

export interface LaneOptions {
  scenarios: Scenario[];
  lanes: number;
  /** Everything a lane's environment needs but its client. */
  env: Omit<EnvOptions, 'client'>;
  /** A fresh client adapter for each lane. */
  client: () => ClientAdapter;
  /** Aborted: no lane starts another scenario. */
  stop?: AbortSignal;
  /** Aborted: the lanes close their listeners and clients at once (a signal stops the run). */
  kill?: AbortSignal;
  onStart?: (id: string) => void;
  onResult: (r: ScenarioResult) => void;
  /** A scenario that produced no result (a harness fault), or one a lane could not open for. */
  onError: (id: string, message: string) => void;
}

/** How the lanes ran: the number asked for, the fewest open at once after backing off, and how often they backed off. */
export interface LaneHistory {
  start: number;
  min: number;
  backoffs: number;
}

/**
 * How long a run's first scenario runs alone before the other lanes open beside it: the run's first
 * result comes at once where that scenario is short, and a long one holds no lane back for long.
 */
export const FIRST_ALONE_MS = 250;

export async function runLanes(o: LaneOptions): Promise<LaneHistory> {
  const queue = o.scenarios;
  let next = 0;
  // Lanes back off while the harness lags (lag.ts): fewer scenarios in flight, each with its share of the machine.
  const governor = new Governor(Math.max(1, Math.min(o.lanes, queue.length)));
  const open = new Set<RunEnv>();
  // Each lane's environment is closed once: by the lane when it is done, or here when the run is killed.
  const killAll = () => {
    for (const env of open) void closeEnv(env);
    open.clear();
  };
  o.kill?.addEventListener('abort', killAll, { once: true });
  // The first lane opens alone and runs its first scenario; the others open once it is done or has
  // run FIRST_ALONE_MS (on 16 lanes, opening them all first held the first result back by about half
  // a second; opening them while it ran, by a quarter).
  let firstOpened!: () => void;
  const firstOpen = new Promise<void>((resolve) => (firstOpened = resolve));
  const lane = async (_: unknown, i: number) => {
    if (i > 0) await firstOpen;
    if (next >= queue.length || o.stop?.aborted || o.kill?.aborted) return;
    let env: RunEnv;
    try {
      env = await openLane(o.env, o.client);
    } catch (err) {
      // This lane's share goes to the others; with no lane open, run.ts records what never came back.
      o.onError('*', `a lane could not open its listeners: ${(err as Error).message}`);
      return;
    }
    open.add(env);
    try {
      while (next < queue.length && !o.stop?.aborted && !o.kill?.aborted) {
        if (i === 0 && next > 0) firstOpened();
        const give = await governor.slot();
        if (next >= queue.length || o.stop?.aborted || o.kill?.aborted) {
          give();
          break;
        }
        const s = queue[next++]!;
        o.onStart?.(s.id);
        if (i === 0 && next === 1) setTimeout(firstOpened, FIRST_ALONE_MS).unref();
        try {
          o.onResult(await executeScenario(s, env));
        } catch (err) {
          o.onError(s.id, (err as Error).message);
        } finally {
          give();
        }
      }
    } finally {
      if (open.delete(env)) await closeEnv(env);
    }
  };
  // Whatever the first lane meets (no work, a failure to open), the others are not held back past it.
  const first = (_: unknown, i: number) => (i === 0 ? lane(_, i).finally(firstOpened) : lane(_, i));
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.lanes, queue.length)) }, first));
  } finally {
    o.kill?.removeEventListener('abort', killAll);
    governor.close();
  }
  return { ...governor.history };
}

/** A lane's environment with a fresh client; a lane that cannot open lets its client go (a shared process counts the lanes that hold it). */
export async function openLane(env: Omit<EnvOptions, 'client'>, client: () => ClientAdapter): Promise<RunEnv> {
  const c = client();
  try {
    return await openEnv({ ...env, client: c });
  } catch (err) {
    await c.close?.().catch(() => undefined);
    throw err;
  }
}

/**
 * What a scenario is expected to cost, in milliseconds, when no earlier run measured it: a base for
 * the handshake and grading, plus the waits its peer is scripted to make (work, a slow answer, a
 * Retry-After the client should honour). Only the order of the costs matters (shardScenarios).
 */
export function estimatedCost(s: Scenario): number {
  const rt = s.peer.runtime;
  const waits =
    (rt.workMs ?? 0) +
    (rt.slow?.ms ?? 0) +
    (rt.unavailable ? rt.unavailable.retryAfterSeconds * 1000 * rt.unavailable.calls : 0) +
    // A key store that answers 503 with Retry-After: 1 before it gives the keys.
    (s.peer.signing?.jwksBusy ?? 0) * 1000;
  return 400 + Math.min(waits, s.deadlineMs);
}

/**
 * The order a run's lanes take its scenarios in: the costliest first (estimatedCost), so the run does
 * not end waiting on a long scenario started last (on this machine the full catalogue's last second
 * went to four such scenarios, started late, while every other lane was idle); the cheapest one goes
 * ahead of them all, so the first result still comes at once. Ties keep the given order. Results are
 * reported in the catalogue's order whatever the lanes' order.
 */
export function laneOrder<T extends Scenario>(scenarios: readonly T[]): T[] {
  if (scenarios.length < 3) return [...scenarios];
  const costed = scenarios.map((s, i) => ({ s, i, cost: estimatedCost(s) }));
  costed.sort((a, b) => b.cost - a.cost || a.i - b.i);
  const cheapest = costed.pop()!;
  return [cheapest.s, ...costed.map((c) => c.s)];
}

/**
 * `--shard <index>/<count>`: this shard's share of the selected scenarios, balanced by cost. Each
 * scenario costs what an earlier run measured (`measured`, by id: `--shard-timings`) or else its
 * estimate; the costliest goes first to the shard with the least so far (ties: the lower index,
 * then the id), so every machine of a CI matrix splits alike without talking to the others.
 */
export function shardScenarios(scenarios: Scenario[], shard: string, measured: ReadonlyMap<string, number> = new Map()): Set<string> {
  const [index, count] = shard.split('/').map(Number) as [number, number];
  const costed = [...new Map(scenarios.map((s) => [s.id, s])).values()]
    .map((s) => ({ id: s.id, cost: Math.max(1, Math.round(measured.get(s.id) ?? estimatedCost(s))) }))
    .sort((a, b) => b.cost - a.cost || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const load = Array.from({ length: count }, () => 0);
  const mine = new Set<string>();
  for (const c of costed) {
    let least = 0;
    for (let i = 1; i < count; i++) if (load[i]! < load[least]!) least = i;
    load[least]! += c.cost;
    if (least === index - 1) mine.add(c.id);
  }
  return mine;
}

/** Lanes kept open across many runs (a property run): each scenario waits for a free lane. */
export interface LanePool {
  readonly size: number;
  run(s: Scenario): Promise<ScenarioResult>;
  /** Runs a scenario on a drained pool: once every run in flight has ended, alone, while no other starts. */
  runAlone(s: Scenario): Promise<ScenarioResult>;
  /** How the lanes ran (backing off while the harness lagged). */
  readonly history: LaneHistory;
  close(): Promise<void>;
}

/**
 * Opens `lanes` environments at once. A lane that cannot open is left out, and the pool says so
 * through `onError`; a pool with no lane at all is an error. `kill` closes every lane at once.
 */
export async function openLanePool(o: {
  lanes: number;
  env: Omit<EnvOptions, 'client'>;
  client: () => ClientAdapter;
  kill?: AbortSignal;
  onError?: (message: string) => void;
}): Promise<LanePool> {
  const opened = await Promise.allSettled(Array.from({ length: Math.max(1, o.lanes) }, () => openLane(o.env, o.client)));
  const envs: RunEnv[] = [];
  for (const r of opened) {
    if (r.status === 'fulfilled') envs.push(r.value);
    else o.onError?.(`a lane could not open its listeners: ${(r.reason as Error).message}`);
  }
  if (envs.length === 0) throw new Error(`no lane could open its listeners: ${((opened[0] as PromiseRejectedResult).reason as Error).message}`);
  const free = [...envs];
  const waiting: Array<(env: RunEnv) => void> = [];
  let closed = false;
  const governor = new Governor(envs.length);
  const close = async () => {
    if (closed) return;
    closed = true;
    o.kill?.removeEventListener('abort', onKill);
    governor.close();
    await Promise.allSettled(envs.map((e) => closeEnv(e)));
  };
  const onKill = () => void close();
  o.kill?.addEventListener('abort', onKill, { once: true });
  const onEnv = async (s: Scenario) => {
    const env = free.pop() ?? (await new Promise<RunEnv>((r) => waiting.push(r)));
    try {
      return await executeScenario(s, env);
    } finally {
      const next = waiting.shift();
      if (next) next(env);
      else free.push(env);
    }
  };
  const runs = drainable(
    async (s) => {
      const give = await governor.slot();
      try {
        return await onEnv(s);
      } finally {
        give();
      }
    },
    onEnv,
    () => closed,
  );
  return {
    size: envs.length,
    history: governor.history,
    ...runs,
    close,
  };
}

/**
 * A pool's two ways to run: `run` (at once, while no drained run holds the gate) and `runAlone`
 * (once every run in flight has ended, alone, while no other starts; one at a time).
 */
export function drainable(
  runOne: (s: Scenario) => Promise<ScenarioResult>,
  runOneAlone: (s: Scenario) => Promise<ScenarioResult>,
  closed: () => boolean,
): Pick<LanePool, 'run' | 'runAlone'> {
  /** Runs in flight, and the gate a drained run holds closed (runs wait at it, the drained one waits for the rest to end). */
  let inFlight = 0;
  let gate: Promise<void> | undefined;
  let idle: (() => void) | undefined;
  let exclusive = Promise.resolve();
  return {
    async run(s) {
      if (closed()) throw new Error('the lanes are closed');
      while (gate) await gate;
      // Counted from here, a slot awaited included: a drained run waits for this one too.
      inFlight++;
      try {
        return await runOne(s);
      } finally {
        if (--inFlight === 0) idle?.();
      }
    },
    runAlone(s) {
      const mine = exclusive.then(async () => {
        if (closed()) throw new Error('the lanes are closed');
        let open!: () => void;
        gate = new Promise<void>((r) => (open = r));
        try {
          while (inFlight > 0) await new Promise<void>((r) => (idle = r));
          idle = undefined;
          return await runOneAlone(s);
        } finally {
          gate = undefined;
          open();
        }
      });
      exclusive = mine.then(
        () => undefined,
        () => undefined,
      );
      return mine;
    },
  };
}
