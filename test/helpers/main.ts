/** Runs the CLI's `main` in this process (no cold start): for argument and input checks that end before any run. */
import { main } from '../../harness/cli/main.js';

export interface MainOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

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
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = exitCode;
  }
}
