/**
 * The client-under-test adapter contract (docs/protocol.md), as types a client implements. An
 * in-process TypeScript client implements `ClientAdapter`; the NDJSON subprocess transport
 * (harness/adapters/subprocess.ts) adapts a foreign process to it.
 *
 * MUST rules for implementers:
 * - `hello()` answers who the client is; a non-null `profile` is fixed and limits which scenarios
 *   run; `extensions` lists the extension URIs the client implements (the harness never assigns
 *   others).
 * - `prepare()`, when present, is awaited before the deadline starts: start a process, greet it.
 * - `run()` is called for one scenario run at a time; it resolves with the client's own report.
 *   The deadline counts from the moment `run()` is called (after `prepare()`).
 * - When `signal` aborts (the deadline), stop all work promptly; the harness grades TIMEOUT.
 * - `scenario` is an opaque id: never branch on it.
 */
import type { ClientReport, Hello, RunRequest } from './types.js';

export interface ClientAdapter {
  hello(): Hello | Promise<Hello>;
  /** Gets the client ready to take a run (a process started and greeted); not counted in the deadline. */
  prepare?(): Promise<void>;
  run(req: RunRequest, signal: AbortSignal): Promise<ClientReport>;
  /** What the client logged during one run (stderr, protocol warnings); asked once, after the run. */
  diagnostics?(runId: string): ClientDiagnostics | undefined;
  /** Frees what the adapter holds (processes, agents). */
  close?(): Promise<void>;
  /**
   * The process groups (their leaders' pids) of a client that runs in processes of its own: the
   * listeners credit a connection to the run only when one of these groups, or a descendant seen,
   * holds its other end (a client that port-scans another lane's listeners changes nothing there).
   * Absent: the client runs in this process, and every connection is credited to the run active.
   */
  processes?(): number[];
}

export interface ClientDiagnostics {
  stderr: string;
  /** Things the client did on its channel that cost nothing by themselves (non-JSON lines, unknown types). */
  warnings: string[];
}

/** A built-in client: its name on the command line and how to make one. */
export interface BuiltinClient {
  name: string;
  description: string;
  create(): ClientAdapter;
  /**
   * For a mutant: the rule that must catch its mistake, and the least verdict it must give: FAIL
   * (or TIMEOUT) where the mistake does harm, over-rejects or rejects blind; NON_STRICT where it only
   * misses an up-front duty below MUST (so `--strict` exits 1).
   */
  caughtBy?: string;
  atLeast?: 'FAIL' | 'NON_STRICT';
}
