/**
 * Lanes on worker threads (issue 28): the second core. One thread's event loop carries the peers,
 * the listeners, an in-process client and the oracle, so a run on one thread leaves the other cores
 * idle. A worker pool starts worker threads (lane-worker.ts), each with lanes of its own (listeners,
 * dispatcher, clients, lag monitor, governor), and sends each scenario to the least busy one; the
 * result comes back graded. Everything else (which case runs next, confirmations, shrinking, the
 * first failure of a family) stays on the calling thread, so verdicts do not depend on the workers.
 *
 * Only plain-data scenarios cross (a generated case's; structured clone), and only a client a
 * worker can make itself (a built-in by name or a `--client-cmd`): an in-process adapter stays
 * on the calling thread's lanes (openLanePool).
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../infrastructure/threads.js';
import { closeEnv, type RunEnv } from '../infrastructure/env.js';
import { executeScenario } from './execute.js';
import type { ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { thresholds } from '../../net/lag.js';
import { defaultLanes, drainable, FIRST_ALONE_MS, openLane, openLanePool, type LaneHistory, type LaneOptions, type LanePool } from './lanes.js';
import type { FromWorker, LaneWorkerData, ToWorker } from './lane-worker.js';

/** How long a closing worker may take to close its lanes before it is stopped. */
const CLOSE_GRACE_MS = 15_000;
/** How long a worker thread may take to open its lanes (load the harness, open its listeners). */
const OPEN_TIMEOUT_MS = 60_000;

/**
 * Threads with lanes when none are asked for: one per core, at most 4 (the calling thread is one of
 * them), and never more than the lanes; 1 means every lane runs on the calling thread.
 */
export function defaultWorkers(lanes: number): number {
  return Math.max(1, Math.min(4, availableParallelism(), lanes));
}

/**
 * How many threads and lanes a run takes. `workers`: a number, `auto` (the CLI's default: defaultWorkers
 * where the run is `long`, else 1) or absent (the programmatic API's default: 1). `threadsAllowed`:
 * whether a worker thread can run this client (a built-in, made by name) at all. With several threads,
 * a built-in client gets 16 lanes per thread (its scenarios mostly wait on their peers' timers), at
 * most 64; on one, the lanes' default for its kind.
 */
export function planThreads(o: { workers?: number | 'auto'; lanes?: number; threadsAllowed: boolean; long: boolean; kind: 'builtin' | 'process' }): {
  threads: number;
  lanes: number;
} {
  const auto = o.long ? defaultWorkers(o.lanes ?? Number.POSITIVE_INFINITY) : 1;
  const wanted = o.threadsAllowed ? (o.workers === 'auto' ? auto : (o.workers ?? 1)) : 1;
  const lanes = o.lanes ?? (wanted > 1 ? Math.min(64, 16 * wanted) : defaultLanes(o.kind));
  return { threads: Math.min(lanes, wanted), lanes };
}

/**
 * A lane worker's young generation: 16 MiB (two semi-spaces of 8) where V8 would give it 48 on a
 * machine with this much memory. Its garbage is short-lived (a case's transcript, cards, buffers), so
 * scavenges stay cheap; with the heap growing percent of heap.ts, 10,000 cases on two threads
 * peaked at 273–275 MiB of RSS against 321–337 (paired at 2,500 cases: 252–258 against 300–328 MiB, CPU
 * within the machine's noise).
 */
const LANE_WORKER_LIMITS = { maxYoungGenerationSizeMb: 16 };

/** Worker threads started ahead of a run (prestartLaneWorkers), their modules loading while it gets ready. */
const spares: Worker[] = [];

/**
 * Starts the worker threads a run of `threads` threads will want (threads - 1), so their modules load
 * on the other cores while this thread loads the catalogue and greets the client (from the sources,
 * through tsx, that is over a second). Unused, they hold nothing: they do not keep the process alive.
 */
export function prestartLaneWorkers(threads: number): void {
  while (spares.length < threads - 1) {
    const worker = startThread('harness/runner/engine/lane-worker', undefined, LANE_WORKER_LIMITS);
    worker.once('error', () => {});
    worker.once('exit', () => spares.includes(worker) && spares.splice(spares.indexOf(worker), 1));
    worker.unref();
    spares.push(worker);
  }
}

/** Ends the spare threads no run took (a command that stopped before its run), and waits for them: never left to the process's exit. */
export async function dropSpareWorkers(): Promise<void> {
  await Promise.all(spares.splice(0).map((w) => w.terminate()));
}

/** A worker thread running lane-worker.ts with the run's data: a spare one where there is, else a new one. */
function startWorker(data: LaneWorkerData): Worker {
  const worker = spares.shift() ?? startThread('harness/runner/engine/lane-worker', undefined, LANE_WORKER_LIMITS);
  worker.ref();
  worker.postMessage({ t: 'init', data } satisfies ToWorker);
  return worker;
}

/** A run lost with its worker thread (it crashed or stopped): sent again elsewhere. */
class ThreadGone extends Error {}

interface Lane {
  /** Where its runs go: a worker thread (its lanes), or the calling thread's own lanes. */
  worker?: Worker;
  local?: LanePool;
  size: number;
  inFlight: number;
  pending: Map<number, { resolve: (r: ScenarioResult) => void; reject: (e: Error) => void }>;
  /** Set once the thread has stopped (closed, crashed or stopped): it takes no more runs. */
  gone?: string;
  /** Settles with the worker's lane history once it has closed (or with none if it stopped otherwise). */
  closed: Promise<LaneHistory | undefined>;
}

export interface WorkerPoolOptions {
  /** Threads with lanes, the calling thread's included (so `workers - 1` worker threads are started). */
  workers: number;
  /** Lanes in all, spread across the threads (each gets at least one). */
  lanes: number;
  /** Opens the calling thread's share of the lanes (openLanePool). */
  openLocal: (lanes: number) => Promise<LanePool>;
  env: LaneWorkerData['env'];
  choice: LaneWorkerData['choice'];
  kill?: AbortSignal;
  onError?: (message: string) => void;
}

export async function openWorkerPool(o: WorkerPoolOptions): Promise<LanePool> {
  const count = Math.max(1, Math.min(o.workers, o.lanes));
  const share = (i: number) => Math.floor(o.lanes / count) + (i < o.lanes % count ? 1 : 0);
  let seq = 0;
  // Declared before any worker starts: a worker's events can come while the others still open.
  let closed = false;
  /** Every worker thread started, so a signal while they open stops them too. */
  const starting: Worker[] = [];
  const stopStarting = () => {
    for (const w of starting) void w.terminate();
  };
  o.kill?.addEventListener('abort', stopStarting, { once: true });
  // Thread 0 is the calling thread; the others are worker threads.
  const opening = Array.from({ length: count }, (_, i): Promise<Lane> => {
    if (i === 0)
      return o.openLocal(share(0)).then((local) => ({ local, size: local.size, inFlight: 0, pending: new Map(), closed: Promise.resolve(undefined) }));
    const worker = startWorker({
      lanes: share(i),
      env: o.env,
      choice: o.choice,
      thresholds: { ...thresholds },
    });
    const lane: Lane = { worker, size: 0, inFlight: 0, pending: new Map(), closed: Promise.resolve(undefined) };
    let opened!: (size: number) => void;
    let failed!: (e: Error) => void;
    const open = new Promise<number>((resolve, reject) => {
      opened = resolve;
      failed = reject;
    });
    let history: ((h: LaneHistory | undefined) => void) | undefined;
    lane.closed = new Promise((r) => (history = r));
    /** Its runs still pending fail: lost with a thread that stopped (sent again elsewhere), or with the pool closed. */
    const settlePending = (err: Error) => {
      for (const p of lane.pending.values()) p.reject(err);
      lane.pending.clear();
    };
    const stop = (why: string) => {
      if (lane.gone) return settlePending(new Error('the lanes are closed'));
      lane.gone = why;
      if (lane.size > 0 && !closed) o.onError?.(`${why}; the scenarios it had in flight ran again on the other threads`);
      settlePending(closed ? new Error('the lanes are closed') : new ThreadGone(why));
      failed(new Error(why));
      history?.(undefined);
    };
    // A worker that neither opens nor fails in time is stopped: the run goes on without it.
    const openTimer = setTimeout(() => {
      stop(`a worker thread of the harness did not open its lanes in ${OPEN_TIMEOUT_MS / 1000} s`);
      void worker.terminate();
    }, OPEN_TIMEOUT_MS);
    openTimer.unref();
    void open.then(
      () => clearTimeout(openTimer),
      () => clearTimeout(openTimer),
    );
    starting.push(worker);
    worker.on('message', (m: FromWorker) => {
      if (m.t === 'open') opened(m.size);
      else if (m.t === 'failed') failed(new Error(m.message));
      else if (m.t === 'lane-error') o.onError?.(m.message);
      else if (m.t === 'done' || m.t === 'threw') {
        const p = lane.pending.get(m.n);
        lane.pending.delete(m.n);
        if (m.t === 'done') p?.resolve(m.result);
        else p?.reject(Object.assign(new Error(m.message), { name: m.name }));
      } else if (m.t === 'closed') {
        history?.(m.history);
        lane.gone = 'closed';
        settlePending(new Error('the lanes are closed'));
      }
    });
    // A message that cannot be read (its result lost in transit) is a thread that failed: its runs go elsewhere.
    worker.on('messageerror', (err) => {
      stop(`a worker thread's message could not be read: ${err.message}`);
      void worker.terminate();
    });
    worker.on('error', (err) => stop(`a worker thread of the harness failed: ${err.message}`));
    worker.on('exit', (code) => stop(`a worker thread of the harness stopped (exit code ${code})`));
    return open.then(
      (size) => {
        lane.size = size;
        return lane;
      },
      async (err: Error) => {
        await worker.terminate();
        throw err;
      },
    );
  });
  const settled = await Promise.allSettled(opening);
  o.kill?.removeEventListener('abort', stopStarting);
  const lanes: Lane[] = [];
  settled.forEach((r, i) => {
    if (r.status === 'fulfilled') lanes.push(r.value);
    else o.onError?.(`${i === 0 ? "this thread's lanes could not open" : 'a worker thread could not open its lanes'}: ${(r.reason as Error).message}`);
  });
  if (lanes.length === 0) {
    const first = ((settled[0] as PromiseRejectedResult).reason as Error).message;
    throw new Error(first.startsWith('no lane could open') ? first : `no lane could open its listeners: ${first}`);
  }
  const size = lanes.filter((l) => !l.gone).reduce((n, l) => n + l.size, 0);

  /** `start`: the lanes open at first; `min` and `backoffs`: each thread's fewest and back-offs, summed (each thread backs off on its own loop). */
  const history: LaneHistory = { start: size, min: 0, backoffs: 0 };
  // One close, whoever asks (a signal, then the run's own finally): each waits for the same.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= closeAll());
  const closeAll = async () => {
    closed = true;
    o.kill?.removeEventListener('abort', onKill);
    const histories = await Promise.all(
      lanes.map(async (l): Promise<LaneHistory | undefined> => {
        if (l.local) {
          await l.local.close();
          return { ...l.local.history };
        }
        if (l.gone || !l.worker) return l.closed;
        l.worker.postMessage({ t: 'close' } satisfies ToWorker);
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<undefined>((r) => {
          timer = setTimeout(r, CLOSE_GRACE_MS, undefined);
        });
        const h = await Promise.race([l.closed, late]);
        clearTimeout(timer);
        await l.worker.terminate();
        return h;
      }),
    );
    for (const h of histories) {
      if (!h) continue;
      history.min += h.min;
      history.backoffs += h.backoffs;
    }
  };
  const onKill = () => void close();
  o.kill?.addEventListener('abort', onKill, { once: true });
  // Stopped while the threads opened: closed at once.
  if (o.kill?.aborted) await close();

  const dispatch = (lane: Lane, s: Scenario, alone: boolean): Promise<ScenarioResult> => {
    lane.inFlight++;
    const ran = lane.local
      ? alone
        ? lane.local.runAlone(s)
        : lane.local.run(s)
      : new Promise<ScenarioResult>((resolve, reject) => {
          const n = ++seq;
          lane.pending.set(n, { resolve, reject });
          try {
            lane.worker!.postMessage({ t: 'run', n, scenario: s, alone } satisfies ToWorker);
          } catch (err) {
            // Not sent (a scenario that is not plain data): nothing will answer it.
            lane.pending.delete(n);
            throw err;
          }
        });
    return ran.finally(() => lane.inFlight--);
  };
  /** To the least busy thread for its size (ties: the calling thread); a run whose worker thread stopped under it runs again on another. */
  const send = async (s: Scenario, alone: boolean): Promise<ScenarioResult> => {
    for (;;) {
      const live = lanes.filter((l) => !l.gone);
      if (closed) throw new Error('the lanes are closed');
      if (live.length === 0) throw new Error(lanes[0]?.gone ?? 'no worker thread is left');
      const lane = live.reduce((a, b) => (b.inFlight / b.size < a.inFlight / a.size ? b : a));
      try {
        return await dispatch(lane, s, alone);
      } catch (err) {
        // A scenario that is not plain data (a vendor's, with a function in it) cannot cross: it runs here.
        const here = lanes.find((l) => l.local && !l.gone);
        if ((err as Error).name === 'DataCloneError' && lane.worker && here) return dispatch(here, s, alone);
        // The thread stopped (a crash, out of memory): the scenario never ran to a result, so it is not lost with it.
        if (!(err instanceof ThreadGone) || closed) throw err;
      }
    }
  };

  return {
    size: Math.max(1, size),
    history,
    // The same drain as openLanePool's: a run alone waits for every run in flight on every thread.
    ...drainable(
      (s) => send(s, false),
      (s) => send(s, true),
      () => closed,
    ),
    close,
  };
}

/**
 * A run's queue of scenarios (runLanes' contract) on lanes spread across this thread and worker
 * threads: each loop takes the next scenario and runs it on the least busy thread. A scenario that is
 * not plain data runs on this thread's lanes.
 */
export async function runLanesOnThreads(
  o: LaneOptions & { workers: number; hello: LaneWorkerData['env']['hello']; choice: LaneWorkerData['choice'] },
): Promise<LaneHistory> {
  const queue = o.scenarios;
  let next = 0;
  const take = () => (next < queue.length && !o.stop?.aborted && !o.kill?.aborted ? queue[next++] : undefined);
  const lanes = Math.max(1, Math.min(o.lanes, queue.length));
  const kill = o.kill ? { kill: o.kill } : {};
  // The first lane opens alone on this thread and starts at once, as runLanes' first lane does (the
  // run's first result comes sooner); once its first scenario is done (or has run FIRST_ALONE_MS), the
  // others open, on every thread.
  let started!: () => void;
  const firstStarted = new Promise<void>((r) => (started = r));
  const first = firstLane(o, take, started).finally(started);
  let pool: LanePool | undefined;
  try {
    await firstStarted;
    // Not once the run is stopped (a signal, --bail) while its first scenario ran alone, nor with nothing left to run.
    if (lanes > 1 && next < queue.length && !o.stop?.aborted && !o.kill?.aborted)
      pool = await openWorkerPool({
        workers: o.workers,
        lanes: lanes - 1,
        env: { ...o.env, hello: o.hello },
        choice: o.choice,
        openLocal: (n) => openLanePool({ lanes: n, env: o.env, client: o.client, ...kill, onError: (m) => o.onError('*', m) }),
        ...kill,
        onError: (m) => o.onError('*', m),
      });
  } catch (err) {
    // The first lane runs them all.
    o.onError('*', (err as Error).message);
  }
  const loop = async (p: LanePool) => {
    for (let s = take(); s; s = take()) {
      o.onStart?.(s.id);
      try {
        o.onResult(await p.run(s));
      } catch (err) {
        o.onError(s.id, (err as Error).message);
      }
    }
  };
  try {
    await Promise.all([first, ...(pool ? Array.from({ length: pool.size }, () => loop(pool)) : [])]);
  } finally {
    await pool?.close();
  }
  const h = pool?.history;
  return { start: 1 + (h?.start ?? 0), min: 1 + (h?.min ?? 0), backoffs: h?.backoffs ?? 0 };
}

/** A lane of this thread's, opened alone, that runs scenarios from the shared queue until it is empty (or the run stops). */
async function firstLane(o: LaneOptions, take: () => Scenario | undefined, started: () => void): Promise<void> {
  let env: RunEnv;
  try {
    env = await openLane(o.env, o.client);
  } catch (err) {
    o.onError('*', `a lane could not open its listeners: ${(err as Error).message}`);
    return;
  }
  // A signal closes it at once, as it closes the pool's lanes.
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= closeEnv(env));
  o.kill?.addEventListener('abort', close, { once: true });
  const first = take();
  try {
    for (let s = first; s; s = take()) {
      o.onStart?.(s.id);
      // Once its first scenario is done (or has run FIRST_ALONE_MS), the other lanes open: alone on
      // the machine a short one takes a tenth of a second; with 31 lanes opening beside it, half a
      // second (the first result 1.35 s after the command, against 1.09 s; the whole run's time the same).
      if (s === first) setTimeout(started, FIRST_ALONE_MS).unref();
      try {
        o.onResult(await executeScenario(s, env));
      } catch (err) {
        o.onError(s.id, (err as Error).message);
      }
      started();
    }
  } finally {
    o.kill?.removeEventListener('abort', close);
    await close();
  }
}
