/**
 * How a run finds its client processes again: each process group is registered as a file
 * `<run folder>/procs/<pgid>` holding its leader's start time, and every process carries
 * `A2A_CONFORMANCE_RUN=<run folder>` in its environment (inherited by whatever it starts, unless it
 * clears its environment). harness/runner/workspace.ts kills by both.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable that marks a client process as one of a run's. */
export const RUN_MARK = 'A2A_CONFORMANCE_RUN';

/** Fields of `/proc/<pid>/stat` from field 3 (state) on, or undefined off Linux or when gone. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's start time in clock ticks (field 22): a reused pid has another. */
export const startTicks = (pid: number): string | null => statFields(pid)?.[19] ?? null;

export function registerProcessGroup(runDir: string, pgid: number): void {
  try {
    writeFileSync(join(runDir, 'procs', String(pgid)), startTicks(pgid) ?? '', { mode: 0o600 });
  } catch {
    // the run is being torn down; the environment mark still finds the process
  }
}

export function unregisterProcessGroup(runDir: string, pgid: number): void {
  try {
    unlinkSync(join(runDir, 'procs', String(pgid)));
  } catch {
    // already gone
  }
}
