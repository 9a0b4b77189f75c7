/** `verify-bundle <file>`: an evidence bundle checked (every digest, the manifest) and its runs graded again from their transcripts. */
import type { Command } from 'commander';
import { print } from '../io.js';

export function register(program: Command): void {
  program
    .command('verify-bundle')
    .description(
      "check an evidence bundle (report --bundle): every file's SHA-256, a manifest exactly as the harness writes it, and each run's transcripts graded again to the verdicts recorded (exit 1 if anything differs)",
    )
    .argument('<file>', 'the bundle (a zip)')
    .action(async (file: string) => {
      const { verifyBundleFile } = await import('../bundle.js');
      const v = verifyBundleFile(file);
      print(`${v.lines.join('\n')}\n`);
      process.exitCode = v.code;
    });
}
