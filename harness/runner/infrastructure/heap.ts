/**
 * A long property run makes garbage fast and keeps little of it (each case's transcript, cards and
 * TLS buffers die with the case; about 40 MiB stay live per thread), and V8 lets such a heap grow to
 * several times its live size before it collects: 10,000 cases peaked at 328 MiB of RSS. While a run
 * lasts, `boundHeap` does two things:
 * - it asks V8 for a full collection every two seconds once the heap has grown past 96 MiB (64 MiB
 *   each where the run's lanes share the process across threads), or past twice what the last such
 *   collection left, whichever is more: a run whose live set outgrows the bound (100,000 cases'
 *   results) is not collected every two seconds from then on;
 * - it sets V8's heap growing percent to 20 (the old generation's next limit 1.2× what a collection
 *   left, where V8 would take up to 4×), restored when the run stops.
 * On one thread 10,000 cases then peaked at 214 MiB; 1,000 cases took 20.9 s against 20.3 s unbounded
 * (about 2.5% of the run). On two threads (each worker's young generation held to 16 MiB too,
 * worker-pool.ts) 10,000 cases peaked at 273–275 MiB against 321–337 with the fixed bound alone.
 *
 * V8's `gc` is reached as jest's `--logHeapUsage` reaches it: the `--expose-gc` flag set at run time,
 * and the function taken from a fresh context. Where that does not work, nothing is bounded.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const EVERY_MS = 2000;
const ABOVE_BYTES = 96 * 1024 * 1024;
/** Where a run's heaps share the process with others (its lanes across threads): each is held lower, so together they stay near one's bound. */
const ABOVE_BYTES_SHARED = 64 * 1024 * 1024;
const GROWING_PERCENT = 20;

let collect: (() => void) | null | undefined;
/** How many bounds hold this thread's heap now (a test may run two runs at once): the growing percent is restored when the last stops. */
let holders = 0;

function gcFunction(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
    collect = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Starts bounding this thread's heap (`threads`: how many threads of the run have one); the function it returns stops. */
export function boundHeap(threads = 1): () => void {
  const gc = gcFunction();
  if (!gc) return () => {};
  const floor = threads > 1 ? ABOVE_BYTES_SHARED : ABOVE_BYTES;
  let above = floor;
  if (holders++ === 0) setFlagsFromString(`--heap-growing-percent=${GROWING_PERCENT}`);
  const timer = setInterval(() => {
    if (getHeapStatistics().total_heap_size <= above) return;
    gc();
    above = Math.max(floor, 2 * getHeapStatistics().used_heap_size);
  }, EVERY_MS);
  timer.unref();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    if (--holders === 0) setFlagsFromString('--heap-growing-percent=0');
  };
}
