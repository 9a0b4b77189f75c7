/** Makes the client under test from the run's configuration: a built-in by name, or a subprocess. */
import { createBuiltinClient } from '../../../clients/index.js';
import type { ClientAdapter } from '../../adapters/contract.js';
import { SharedProcess } from '../../adapters/shared-process.js';
import { SubprocessClient } from '../../adapters/subprocess.js';
import type { Hello } from '../../core/protocol/types.js';

export interface ClientChoice {
  client?: string;
  clientCmd?: string;
  /** An in-process client of the caller's (the programmatic API): a fresh adapter per lane. */
  adapter?: () => ClientAdapter;
  /** Working directory for a subprocess client (the user's, not the harness's). */
  cwd?: string;
  /** The run's private folder: a subprocess client's processes are registered and marked with it. */
  runDir?: string;
}

export function createClient(c: ClientChoice): ClientAdapter {
  if (c.adapter) return c.adapter();
  if (c.clientCmd) return new SubprocessClient({ command: c.clientCmd, cwd: c.cwd, runDir: c.runDir });
  if (!c.client) throw new Error('[harness] no client chosen');
  return createBuiltinClient(c.client);
}

export const clientLabel = (c: ClientChoice) => c.clientCmd ?? c.client ?? (c.adapter ? 'an in-process adapter' : '?');

/**
 * The client of each lane: a fresh adapter per lane, except for a `--client-cmd` client whose hello
 * declared `concurrency: n` (n > 1), whose processes are shared by n lanes each.
 */
export function laneClients(c: ClientChoice, hello: Hello): () => ClientAdapter {
  const n = runsPerProcess(c, hello);
  if (n <= 1) return () => createClient(c);
  let shared: SharedProcess | undefined;
  let taken = 0;
  return () => {
    if (!shared || taken === n) {
      shared = new SharedProcess({ command: c.clientCmd!, cwd: c.cwd, runDir: c.runDir });
      taken = 0;
    }
    taken++;
    return shared.lane();
  };
}

/** What a lane costs with this client: in this process, or a process per lane (per n lanes with `concurrency: n`). */
export const laneKind = (c: ClientChoice, hello: Hello): 'builtin' | 'process' => (c.clientCmd && runsPerProcess(c, hello) <= 1 ? 'process' : 'builtin');

/** Runs one process of a `--client-cmd` client takes at once, as its hello declares (a built-in: 1, it has no process). */
const runsPerProcess = (c: ClientChoice, hello: Hello): number => (c.clientCmd ? (hello.concurrency ?? 1) : 1);
