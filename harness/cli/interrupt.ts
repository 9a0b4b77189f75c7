/**
 * SIGINT, SIGTERM and SIGHUP during a long command. The first signal does the cleanup at once,
 * synchronously (every open run folder's processes killed and the folder removed, then `onStop`),
 * because other handlers may end the process right after ours;
 * then it aborts the work, which winds down. If that has not finished within GRACE_MS, or a second
 * signal comes, the process exits. Exit code 128 + the signal's number (130 for SIGINT, 143 for
 * SIGTERM, 129 for SIGHUP).
 */
import { constants } from 'node:os';
import { closeAllRunFoldersSync } from '../runner/workspace.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof SIGNALS)[number];
const GRACE_MS = 10_000;

export const signalExitCode = (s: StopSignal) => 128 + constants.signals[s];

export interface Interruptible {
  signal: AbortSignal;
  /** The signal that stopped the work, if one did. */
  readonly received: StopSignal | undefined;
  dispose(): void;
}

export interface InterruptOptions {
  /** Synchronous last words (marking a report folder incomplete). */
  onStop?: (s: StopSignal) => void;
  /** Whether the signal sets the exit code (a run: 128 + n) or stopping is the normal end (`serve`: 0). */
  setsExitCode?: boolean;
}

export function interruptible(say: (line: string) => void, what: string, o: InterruptOptions = {}): Interruptible {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  let force: NodeJS.Timeout | undefined;
  const forced = (s: StopSignal) => {
    closeAllRunFoldersSync();
    process.exit(o.setsExitCode === false ? 0 : signalExitCode(received ?? s));
  };
  const handler = (s: StopSignal) => {
    if (received) return forced(s);
    received = s;
    // Set first: vitest's own handler may end the process 1 ms after ours, with whatever code is set.
    if (o.setsExitCode !== false) process.exitCode = signalExitCode(s);
    closeAllRunFoldersSync();
    try {
      o.onStop?.(s);
    } finally {
      say(`a2a-conformance: ${s}: stopped ${what}; the processes it started are killed and its temp folder removed`);
    }
    controller.abort(s);
    force = setTimeout(() => forced(s), GRACE_MS);
    force.unref();
  };
  const handlers = SIGNALS.map((s) => [s, () => handler(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    dispose() {
      for (const [s, h] of handlers) process.off(s, h);
      clearTimeout(force);
    },
  };
}
