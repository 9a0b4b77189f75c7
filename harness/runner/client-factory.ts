/** Makes the client under test from the run's configuration: a built-in by name, or a subprocess. */
import { createBuiltinClient } from '../../clients/index.js';
import type { ClientAdapter } from '../adapters/contract.js';
import { SubprocessClient } from '../adapters/subprocess.js';

export interface ClientChoice {
  client?: string;
  clientCmd?: string;
  /** Working directory for a subprocess client (the user's, not the harness's). */
  cwd?: string;
  /** The run's private folder: a subprocess client's processes are registered and marked with it. */
  runDir?: string;
}

export function createClient(c: ClientChoice): ClientAdapter {
  if (c.clientCmd) return new SubprocessClient({ command: c.clientCmd, cwd: c.cwd, runDir: c.runDir });
  if (!c.client) throw new Error('[harness] no client chosen');
  return createBuiltinClient(c.client);
}

export const clientLabel = (c: ClientChoice) => c.clientCmd ?? c.client ?? '?';
