/**
 * The client-under-test adapter contract (DESIGN.md §4.1). An in-process TypeScript client
 * implements `ClientAdapter`; the NDJSON subprocess transport adapts a foreign process to it.
 *
 * MUST rules for implementers:
 * - `hello()` answers who the client is; a non-null `profile` is fixed and limits which scenarios run.
 * - `run()` is called for one scenario run at a time; it resolves with the client's own report.
 * - When `signal` aborts (the deadline), stop all work promptly; the harness grades TIMEOUT and
 *   stops waiting 2 s later.
 * - `scenario` is an opaque id: never branch on it.
 */
import { TASK_CLASSES, type ClientReport, type Hello, type RunRequest } from '../core/types.js';

export interface ClientAdapter {
  hello(): Hello | Promise<Hello>;
  run(req: RunRequest, signal: AbortSignal): Promise<ClientReport>;
  /** What the client logged during one run (stderr, protocol warnings); asked once, after the run. */
  diagnostics?(runId: string): ClientDiagnostics | undefined;
  /** Frees what the adapter holds (processes, agents). */
  close?(): Promise<void>;
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
  /** For a mutant: the rule that must catch its mistake. */
  caughtBy?: string;
}

/** Checks a hello answer: name, version, profile (null or an object), known task classes. */
export function helloProblem(h: unknown): string | undefined {
  const o = h as Partial<Hello> | null;
  if (!o || typeof o !== 'object') return 'hello must be an object';
  if (typeof o.name !== 'string' || !o.name) return 'hello.name must be a non-empty string';
  if (typeof o.version !== 'string') return 'hello.version must be a string';
  if (o.profile !== null && (typeof o.profile !== 'object' || o.profile === undefined)) return 'hello.profile must be null or a profile object';
  if (!Array.isArray(o.taskClasses) || o.taskClasses.some((c) => !TASK_CLASSES.includes(c))) return `hello.taskClasses must list some of ${TASK_CLASSES.join(', ')}`;
  return undefined;
}
