/** Runs the CLI's `main` in this process (no cold start): for argument and input checks that end before any run. */
import { main } from '../../harness/cli/main.js';
import { intoReport } from './cli.js';

export interface MainOutcome {
  code: number;
  stdout: string;
  /** What the command said on stderr, without the reaper's lines (below). */
  stderr: string;
  /**
   * The lines saying what a dead run left and that it was removed: they belong to whatever died
   * before (another test file's worker, an earlier job on a reused CI machine), not to this command.
   */
  reaped: string[];
}

const REAPED = /^a2a-conformance: a previous .* died\b.*\n?/gm;

export async function runMain(args: string[]): Promise<MainOutcome> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const exitCode = process.exitCode;
  process.stdout.write = ((c: string | Uint8Array) => ((stdout += c.toString()), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((stderr += c.toString()), true)) as typeof process.stderr.write;
  try {
    const code = await main(['node', 'a2a-conformance', ...args]);
    return { code, stdout, stderr: stderr.replace(REAPED, ''), reaped: stderr.match(REAPED)?.map((l) => l.trim()) ?? [] };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = exitCode;
  }
}

/** `run` through `main` in this process into a fresh folder (no cold start; one at a time, as a process holds one run). */
export const mainRun = (args: string[]) => intoReport((out) => runMain(['run', ...args, '--out', out]));
