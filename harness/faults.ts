/**
 * Every fault the harness raises on purpose, in one light module: the CLI maps each to its message
 * and exit code by class (harness/cli/main.ts), the runner tells the client's faults from its own
 * the same way. A fault that is not one of these is an internal error (exit 2, with its stack).
 */
/** The signals a command stops on, cleaning up first (harness/cli/interrupt.ts). */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

// ── The command line ────────────────────────────────────────────────────────────────────────────

/** Bad arguments: one line, the usage line, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Not the arguments but what they meet (the temp folder, the current folder, a report that cannot be written): one line, exit 2, no usage. */
export class PlaceError extends Error {
  override readonly name = 'PlaceError';
}

/** The command was stopped by a signal and has cleaned up: exit 128 + the signal's number. */
export class Stopped extends Error {
  constructor(readonly signal: StopSignal) {
    super(`stopped by ${signal}`);
  }
}

// ── Input files and the output folder (exit 2, one line) ────────────────────────────────────────

/** A scenario file that cannot be loaded (harness/runner/load/catalogue.ts). */
export class ScenarioLoadError extends Error {
  override readonly name = 'ScenarioLoadError';
  readonly code = 'A2A_SCENARIO_LOAD';
}

/** An expectations file that is not one (harness/runner/judge/expectations.ts). */
export class ExpectationsError extends Error {
  override readonly name = 'ExpectationsError';
  readonly code = 'A2A_EXPECTATIONS';
}

/** results.json files that cannot be merged into one report (harness/runner/judge/merge.ts). */
export class MergeError extends Error {
  override readonly name = 'MergeError';
}

/** A results.json given to `report` or `--last-failed` that cannot be read (harness/cli/results-input.ts). */
export class ResultsInputError extends Error {
  override readonly name = 'ResultsInputError';
}

/** A config file that cannot be used (harness/cli/config.ts). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** An output path that cannot be claimed or written (harness/cli/output.ts). */
export class OutputError extends Error {
  override readonly name = 'OutputError';
}

// ── A run ───────────────────────────────────────────────────────────────────────────────────────

/** The run was stopped (SIGINT, SIGTERM): its processes are killed, its folder removed, no report written. */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
}

/** A replay path that names no case (a shrink step past the last): the user's input, said in one line. */
export class ReplayPathError extends Error {
  override readonly name = 'ReplayPathError';
}

/** A fault of the client process: it costs the scenario (FAIL), never the run. */
export class ClientFault extends Error {
  override readonly name = 'ClientFault';
  readonly code = 'A2A_CLIENT_FAULT';
}

/** A fault of the adapter itself (the harness's side of the pipe): graded ERROR, never blamed on the client. */
export class HarnessFault extends Error {
  override readonly name = 'HarnessFault';
  readonly code = 'A2A_HARNESS_FAULT';
}

/** What a process did instead of a good hello: the problem, and the line that showed it. */
export class HelloFailure extends Error {
  constructor(
    problem: string,
    readonly line?: string,
  ) {
    super(problem);
  }
}
