/**
 * A long property run makes garbage fast and keeps little of it (each case's transcript, cards and
 * TLS buffers die with the case; about 40 MiB stay live), and V8 lets such a heap grow to several
 * times its live size before it collects: 10,000 cases peaked at 328 MiB of RSS. While a run lasts,
 * `boundHeap` asks V8 for a full collection every two seconds once the heap has grown past 96 MiB,
 * which holds the peak near the live set: 10,000 cases then peaked at 214 MiB; 1,000 cases took
 * 20.9 s against 20.3 s unbounded (about 2.5% of the run).
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

let collect: (() => void) | null | undefined;

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
  const above = threads > 1 ? ABOVE_BYTES_SHARED : ABOVE_BYTES;
  const timer = setInterval(() => {
    if (getHeapStatistics().total_heap_size > above) gc();
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
