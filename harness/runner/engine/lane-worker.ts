/**
 * A worker thread's side of a worker lane pool (worker-pool.ts): it opens its own lanes (listeners,
 * push dispatcher, client adapters, lag monitor and governor, all on this thread's event loop) and
 * runs the scenarios the main thread sends it, one message per run, answering with the graded result.
 * The scenarios arrive as plain data (a generated case's scenario is data throughout).
 */
import { parentPort } from 'node:worker_threads';
import type { ScenarioResult } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import type { Pki } from '../../pki/index.js';
import type { Hello } from '../../core/protocol/types.js';
import { thresholds } from '../../net/lag.js';
import { boundHeap } from '../infrastructure/heap.js';
import { dropGrpcServernameWarning } from '../infrastructure/warnings.js';
import { type ClientChoice, laneClients } from './client-factory.js';
import { openLanePool } from './lanes.js';

/** What the main thread gives a worker when it starts it. */
export interface LaneWorkerData {
  lanes: number;
  env: { pkiDir: string; pems?: Pki; hello: Hello; idSalt: string; deadlineMultiplier: number };
  /** A built-in client by name, or a `--client-cmd` client (never an in-process adapter: it cannot cross threads). */
  choice: Omit<ClientChoice, 'adapter'>;
  /** The lag thresholds in force where the pool was opened (a test may have raised them). */
  thresholds: typeof thresholds;
}

/** Main thread → worker. */
export type ToWorker = { t: 'init'; data: LaneWorkerData } | { t: 'run'; n: number; scenario: Scenario; alone: boolean } | { t: 'close' };
/** Worker → main thread. */
export type FromWorker =
  | { t: 'open'; size: number }
  | { t: 'failed'; message: string }
  | { t: 'lane-error'; message: string }
  | { t: 'done'; n: number; result: ScenarioResult }
  | { t: 'threw'; n: number; name: string; message: string }
  | { t: 'closed'; history: { start: number; min: number; backoffs: number } };

async function serve(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('[harness] lane-worker runs as a worker thread only');
  dropGrpcServernameWarning();
  // The modules are loaded by now (a thread may be started before the run knows its lanes, pki-early
  // style): the run's data comes in the first message.
  const data = await new Promise<LaneWorkerData>((resolve) => port.once('message', (m: ToWorker) => m.t === 'init' && resolve(m.data)));
  Object.assign(thresholds, data.thresholds);
  const post = (m: FromWorker) => port.postMessage(m);
  // A lane worker is always one of several threads of its run.
  const unbound = boundHeap(2);
  let pool: Awaited<ReturnType<typeof openLanePool>>;
  // A lane that could not open is said once the others have: where none could, the one failure says it.
  const laneErrors: string[] = [];
  try {
    pool = await openLanePool({
      lanes: data.lanes,
      env: data.env,
      client: laneClients(data.choice, data.env.hello),
      onError: (message) => laneErrors.push(message),
    });
  } catch (err) {
    unbound();
    post({ t: 'failed', message: (err as Error).message });
    port.close();
    return;
  }
  post({ t: 'open', size: pool.size });
  for (const message of laneErrors) post({ t: 'lane-error', message });
  /** Runs in flight: on close, each one's end is posted before the worker says it has closed. */
  const inFlight = new Set<Promise<void>>();
  // The main thread sends runs only once it has heard 'open', and stops a thread it closes while it opens.
  port.on('message', (m: ToWorker) => {
    if (m.t === 'init') return;
    if (m.t === 'close') {
      void (async () => {
        await pool.close();
        // Closed lanes end their runs (a result or an error); a run that still has not ended in the grace is left to the main thread, which fails it.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled(inFlight), new Promise<void>((r) => (timer = setTimeout(r, SETTLE_GRACE_MS)))]);
        clearTimeout(timer);
        unbound();
        post({ t: 'closed', history: { ...pool.history } });
        port.close();
      })();
      return;
    }
    const ran = (m.alone ? pool.runAlone(m.scenario) : pool.run(m.scenario)).then(
      (result) => post({ t: 'done', n: m.n, result }),
      (err: unknown) => post({ t: 'threw', n: m.n, name: (err as Error).name, message: (err as Error).message }),
    );
    inFlight.add(ran);
    void ran.finally(() => inFlight.delete(ran));
  });
}

/** How long a closing worker waits for its runs in flight to end once its lanes are closed. */
const SETTLE_GRACE_MS = 5000;

void serve();
