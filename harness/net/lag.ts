/**
 * The harness's own delay (docs/rules.md, principle 7: "A delay of the harness is never the client's fault"). Two
 * measures, taken per scenario run and per property case:
 *
 * - event-loop delay: a timer asks to run every SAMPLE_MS and records how late it ran. Everything the
 *   peers, the listeners, the oracle and an in-process client do waits on this loop, so lateness here
 *   is time the harness did not answer, whoever caused it (its own lanes, GC, another process);
 * - CPU starvation: where Linux says it (`/proc/thread-self/schedstat`: this thread, the main one or
 *   a lane worker's), the time the harness was ready to run and waited for a core: the machine was
 *   busy with something else.
 *
 * A run during which the harness owed it time (a long block of its loop, or its loop late or its
 * thread waiting for a core for a share of the run) is `lagged`: a TIMEOUT, or a FAIL that rests on
 * time, it got is confirmed on a drained lane before it is reported (runner/confirm.ts), and the
 * lanes back off while the loop is clearly late (Governor).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { LagRecord } from '../core/results.js';

export type { LagRecord };

/** How often the sampler asks to run. */
export const SAMPLE_MS = 20;
/** A sample later than this is a late one (the share of late samples is kept; the lanes back off on it). */
export const LAG_LOOP_MS = 100;
/** One block of the loop this long counts as lagged by itself. */
export const LAG_BLOCK_MS = 250;
/**
 * The time the harness owes a run (its loop's lateness in all, or its wait for a core, whichever is
 * more) counts as lagged beyond this share of the run's wall time, and at least LAG_OWED_MIN_MS: a
 * harness that was idle and on time while a client hung owes it nothing.
 */
export const LAG_OWED_SHARE = 0.1;
export const LAG_OWED_MIN_MS = 100;

/**
 * The thresholds in force (the constants above). A test that must see a failure as it came, whatever
 * the machine's load while it runs, raises them for its own duration (`withThresholds`).
 */
export const thresholds = { loopMs: LAG_LOOP_MS, blockMs: LAG_BLOCK_MS, owedShare: LAG_OWED_SHARE, owedMinMs: LAG_OWED_MIN_MS };

export async function withThresholds<T>(t: Partial<typeof thresholds>, work: () => Promise<T>): Promise<T> {
  const before = { ...thresholds };
  Object.assign(thresholds, t);
  try {
    return await work();
  } finally {
    Object.assign(thresholds, before);
  }
}

const RING = 60_000;

/**
 * Run-queue wait of this thread so far, in ms (undefined where the OS does not say).
 * Read twice per scenario: the file is opened once and read in place (an open, a read and a close per
 * look were a measurable share of a property run's file work).
 */
let schedstat: number | null | undefined;
const schedBuf = Buffer.alloc(128);
function runQueueWaitMs(): number | undefined {
  try {
    if (schedstat === null) return undefined;
    if (schedstat === undefined) schedstat = openSync('/proc/thread-self/schedstat', 'r');
    const n = readSync(schedstat, schedBuf, 0, schedBuf.length, 0);
    const fields = schedBuf.toString('latin1', 0, n).trim().split(/\s+/);
    const ns = Number(fields[1]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    // Unreadable here: closed, and never tried again.
    if (typeof schedstat === 'number') closeSync(schedstat);
    schedstat = null;
    return undefined;
  }
}

class LagMonitor {
  /** [time, lateness] pairs, a ring. */
  private readonly at = new Float64Array(RING);
  private readonly late = new Float64Array(RING);
  private n = 0;
  private timer: NodeJS.Timeout | undefined;
  private users = 0;
  private expected = 0;

  /** Starts sampling (shared: sampling stops when the last user stops). */
  acquire(): () => void {
    if (this.users++ === 0) this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.users === 0) this.stop();
    };
  }

  private startedAt = 0;

  private start(): void {
    this.startedAt = performance.now();
    this.expected = this.startedAt + SAMPLE_MS;
    const tick = () => {
      const now = performance.now();
      const i = this.n++ % RING;
      this.at[i] = now;
      this.late[i] = Math.max(0, now - this.expected);
      this.expected = now + SAMPLE_MS;
      this.timer = setTimeout(tick, SAMPLE_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, SAMPLE_MS);
    this.timer.unref();
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Samples taken in [from, to] (performance.now() times): their max lateness, the lateness in all, and how many were over the threshold. */
  between(from: number, to: number): { max: number; lost: number; over: number; count: number } {
    let max = 0;
    let lost = 0;
    let over = 0;
    let count = 0;
    const first = Math.max(0, this.n - RING);
    for (let k = this.n - 1; k >= first; k--) {
      const i = k % RING;
      const t = this.at[i]!;
      if (t < from) break;
      if (t > to) continue;
      count++;
      const l = this.late[i]!;
      lost += l;
      if (l > max) max = l;
      if (l > thresholds.loopMs) over++;
    }
    return { max, lost, over, count };
  }

  /** How late the sampler is right now (it has not run since it should have), counted from `since` at the earliest. */
  current(since: number): number {
    if (this.timer === undefined) return 0;
    const last = Math.max(this.n === 0 ? 0 : this.at[(this.n - 1) % RING]!, this.startedAt, since);
    return Math.max(0, performance.now() - last - SAMPLE_MS);
  }
}

const monitor = new LagMonitor();

/** A window over one run: `end()` says how much the harness lagged while it was open; `measure()` says it so far. */
export interface LagWindow {
  measure(): LagRecord;
  end(): LagRecord;
}

/** Opens a lag window (and keeps the sampler running until it ends). */
export function lagWindow(): LagWindow {
  const release = monitor.acquire();
  const from = performance.now();
  const waitFrom = runQueueWaitMs();
  const measure = () => {
    const to = performance.now();
    const s = monitor.between(from, to);
    const late = monitor.current(from);
    // A timer that never fired in the window is late by the whole window (a blocked loop).
    const max = Math.round(Math.max(s.max, s.count === 0 ? Math.max(0, to - from - SAMPLE_MS) : 0, late));
    const waitTo = runQueueWaitMs();
    const wait = waitFrom !== undefined && waitTo !== undefined ? Math.round(waitTo - waitFrom) : undefined;
    return judgeLag({
      loopDelayMaxMs: max,
      loopLostMs: Math.round(s.lost + late),
      ...(s.count ? { loopDelayOverShare: Math.round((s.over / s.count) * 1000) / 1000 } : {}),
      ...(wait !== undefined ? { runQueueWaitMs: wait } : {}),
      wallMs: Math.round(to - from),
    });
  };
  let ended: LagRecord | undefined;
  return {
    measure,
    end() {
      if (ended) return ended;
      ended = measure();
      release();
      return ended;
    },
  };
}

/**
 * Time the harness owes a wait it imposed on a client (a hello, say): how long its loop ran late, or
 * its main thread waited for a core, while the window was open (the two overlap: the larger counts).
 */
export function owedMs(l: LagRecord): number {
  return Math.max(l.loopLostMs ?? 0, l.runQueueWaitMs ?? 0);
}

/** Whether a measure is over a threshold, and why. */
export function judgeLag(m: Omit<LagRecord, 'lagged' | 'why'>): LagRecord {
  const why: string[] = [];
  const t = thresholds;
  const owed = Math.max(m.loopLostMs ?? 0, m.runQueueWaitMs ?? 0);
  if (m.loopDelayMaxMs > t.blockMs) why.push(`the harness's event loop was held up to ${m.loopDelayMaxMs} ms at once (threshold ${t.blockMs} ms)`);
  if (owed >= t.owedMinMs && owed > m.wallMs * t.owedShare)
    why.push(
      `the harness owed ${owed} ms of ${m.wallMs} ms (${m.runQueueWaitMs !== undefined && m.runQueueWaitMs >= (m.loopLostMs ?? 0) ? 'waiting for a core' : 'its event loop running late'}; threshold ${Math.round(t.owedShare * 100)}%)`,
    );
  return { ...m, lagged: why.length > 0, ...(why.length ? { why: why.join('; ') } : {}) };
}

/**
 * Lanes that back off when the harness lags: a lane asks for a slot before each scenario; while the
 * harness's loop is clearly late, fewer slots are open (halved, at least one, at most once a second),
 * and one more opens after each quiet second, up to the lanes asked for. What it did is kept for
 * results.json.
 */
export class Governor {
  private allowed: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private quietSince = performance.now();
  private lastCut = 0;
  readonly history: { start: number; min: number; backoffs: number };
  private readonly release: () => void;
  private readonly poll: NodeJS.Timeout;

  constructor(private readonly max: number) {
    this.allowed = max;
    this.history = { start: max, min: max, backoffs: 0 };
    this.release = monitor.acquire();
    this.poll = setInterval(() => this.observe(), 250);
    this.poll.unref();
  }

  /** The slots open now. */
  get open(): number {
    return this.allowed;
  }

  private observe(): void {
    const now = performance.now();
    // Backing off helps where the harness's own loop is late: a machine busy elsewhere while the loop
    // answers in time costs the scenarios nothing, so waiting for a core alone does not cut lanes.
    // Cut on a clear delay (the last second's worst sample over 2.5× the threshold, or a fifth of its
    // samples over it), not on the odd late timer of a machine that runs other work too.
    const recent = monitor.between(now - 1000, now);
    const lagging = recent.max > thresholds.blockMs || (recent.count > 0 && recent.over / recent.count > 0.2);
    if (lagging) {
      this.quietSince = now;
      if (now - this.lastCut > 1000 && this.allowed > 1) {
        this.allowed = Math.max(1, Math.ceil(this.allowed / 2));
        this.lastCut = now;
        this.history.backoffs++;
        this.history.min = Math.min(this.history.min, this.allowed);
      }
    } else if (now - this.quietSince > 1000 && this.allowed < this.max) {
      this.allowed++;
      this.quietSince = now;
      this.wake();
    }
  }

  /** Waits for a slot; the returned function gives it back. */
  async slot(): Promise<() => void> {
    while (this.running >= this.allowed) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.running--;
      this.wake();
    };
  }

  private wake(): void {
    const all = this.waiting.splice(0);
    for (const w of all) w();
  }

  close(): void {
    clearInterval(this.poll);
    this.release();
    this.wake();
  }
}

/**
 * A wait the harness imposes on a peer of its own making (a receiver's handshake, its answer), held
 * to `ms` of the harness's time: when it runs out, the time the harness owed meanwhile (its loop
 * running late, its thread waiting for a core) is given back, up to `ms` more, before `expire` is
 * called. On a loaded machine a prompt receiver is then never called slow for the harness's delay.
 * `clear()` ends it (and its lag window).
 */
export function patientTimer(ms: number, expire: () => void): { clear(): void } {
  const window = lagWindow();
  let given = 0;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const owed = Math.min(ms, owedMs(window.measure()));
    if (owed > given + SAMPLE_MS) {
      timer = setTimeout(check, owed - given);
      given = owed;
      return;
    }
    window.end();
    expire();
  };
  timer = setTimeout(check, ms);
  return {
    clear() {
      clearTimeout(timer);
      window.end();
    },
  };
}
