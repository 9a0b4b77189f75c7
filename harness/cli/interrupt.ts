/**
 * SIGINT, SIGTERM and SIGHUP during a long command. The first signal does the cleanup at once,
 * synchronously (every open run folder's processes killed and the folder removed, then `onStop`),
 * because other handlers may end the process right after ours;
 * then it aborts the work, which winds down. If that has not finished within GRACE_MS, or a second
 * signal comes, the process exits. Exit code 128 + the signal's number (130 for SIGINT, 143 for
 * SIGTERM, 129 for SIGHUP).
 *
 * The end of a command is a state of its own (`writing`): the work is over and its report is being
 * written. A signal then lets the write finish and the command exits 128 + n with its report whole;
 * a second signal, or the grace running out, removes what was half written, marks the folder
 * incomplete (the caller's `onForce`) and exits. Never exit 0 after a signal, never a half-written
 * folder that does not say so.
 */
import { constants } from 'node:os';
import { closeAllRunFoldersSync } from '../runner/infrastructure/workspace.js';

import { STOP_SIGNALS as SIGNALS, type StopSignal } from '../faults.js';

export type { StopSignal };
const GRACE_MS = 10_000;

export const signalExitCode = (s: StopSignal) => 128 + constants.signals[s];

export interface Interruptible {
  signal: AbortSignal;
  /** The signal that stopped the work, if one did. */
  readonly received: StopSignal | undefined;
  /** The work is over; the report is being written. `onForce` runs (synchronously) if the process must exit before the write ends. */
  writing(onForce: (s: StopSignal) => void): void;
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
  let finishing: ((s: StopSignal) => void) | undefined;
  const forced = (s: StopSignal) => {
    try {
      finishing?.(received ?? s);
    } catch {
      // exiting all the same: the folder keeps the marker it was claimed with
    }
    closeAllRunFoldersSync();
    process.exit(o.setsExitCode === false ? 0 : signalExitCode(received ?? s));
  };
  const handler = (s: StopSignal) => {
    if (received) return forced(s);
    received = s;
    // Set first: vitest's own handler may end the process 1 ms after ours, with whatever code is set.
    if (o.setsExitCode !== false) process.exitCode = signalExitCode(s);
    if (finishing) {
      // Nothing runs any more: the report is finished rather than lost (the caller exits 128 + n after it).
      say(
        `a2a-conformance: ${s}: ${what} has ended; its report is written to the end, then the command stops (another signal stops it at once, with no report)`,
      );
    } else {
      closeAllRunFoldersSync();
      try {
        o.onStop?.(s);
      } finally {
        say(`a2a-conformance: ${s}: stopped ${what}; the processes it started are killed and its temp folder removed`);
      }
      controller.abort(s);
    }
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
    writing(onForce) {
      finishing = onForce;
    },
    dispose() {
      for (const [s, h] of handlers) process.off(s, h);
      clearTimeout(force);
    },
  };
}
