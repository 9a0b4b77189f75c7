/**
 * How a run finds its client processes again: each process group is registered as an empty file
 * `<run folder>/procs/<pgid>`, and every process carries `A2A_CONFORMANCE_RUN=<run folder>` in its
 * environment (inherited by whatever it starts). harness/runner/workspace.ts kills by both.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable that marks a client process as one of a run's. */
export const RUN_MARK = 'A2A_CONFORMANCE_RUN';

export function registerProcessGroup(runDir: string, pgid: number): void {
  try {
    writeFileSync(join(runDir, 'procs', String(pgid)), '', { mode: 0o600 });
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
