/** `doctor`: a subprocess client's protocol checked before anything is graded. */
import type { Command } from 'commander';
import { UsageError } from '../../faults.js';
import { load, reap, untilStopped } from '../context.js';
import { errStatus, print, printErr } from '../io.js';
import { configOption, noConfigOption } from '../options.js';

export function register(program: Command): void {
  program
    .command('doctor')
    .description("check a subprocess client's protocol (handshake, and a plain text task in each dialect it declares) before grading")
    .addOption(configOption())
    .addOption(noConfigOption())
    .option('--client-cmd <command>', "the command that runs the client (or the config file's clientCmd)")
    .option('--json', 'print the outcome as JSON (docs/doctor.schema.json) instead of text', false)
    .action(async (opts: { clientCmd?: string; json: boolean }) => {
      if (!opts.clientCmd) throw new UsageError('doctor checks a subprocess client: give --client-cmd "<command>" (or clientCmd in the config file)');
      const clientCmd = opts.clientCmd;
      const { interruptible } = await load.interrupt();
      const { doctor } = await load.doctor();
      await reap();
      // Its client and PKI live in a run folder too: a signal removes them like a run's.
      const stop = interruptible((l) => printErr(l + '\n'), 'the check');
      const status = errStatus();
      try {
        const lines: string[] = [];
        process.exitCode = await untilStopped(
          stop,
          doctor(
            clientCmd,
            (l) => {
              status.clear();
              if (opts.json) lines.push(l);
              else print(l + '\n');
            },
            undefined,
            // What it waits for: drawn in place on a terminal, a line on stderr elsewhere.
            (what) => (status.live ? status.set(what) : printErr(`${what}\n`)),
          ),
        );
        if (opts.json) print(`${JSON.stringify(doctorDocument(clientCmd, lines, process.exitCode ?? 1), null, 2)}\n`);
      } finally {
        status.clear();
        stop.dispose();
      }
    });
}

/**
 * doctor's outcome as data (docs/doctor.schema.json), from the lines it writes: each check (✓ or ✗)
 * with the lines under it (the offending line, the client's stderr, a hint), each warning (!), and
 * the verdict line. The lines are doctor's own format, made in harness/runner/engine/doctor.ts.
 */
export function doctorDocument(command: string, lines: string[], exitCode: number) {
  const checks: Array<{ ok: boolean; what: string; details: string[] }> = [];
  const warnings: string[] = [];
  let verdict = '';
  for (const l of lines) {
    if (l.startsWith('doctor: ')) continue;
    if (l.startsWith('✓ ') || l.startsWith('✗ ')) checks.push({ ok: l.startsWith('✓'), what: l.slice(2), details: [] });
    else if (l.startsWith('! ')) warnings.push(l.slice(2));
    else if (l.startsWith('    ') && checks.length) checks.at(-1)!.details.push(l.trim());
    else verdict = l;
  }
  return { schema: 'a2a-conformance/doctor@1', command, speaksProtocol: exitCode === 0, checks, warnings, verdict, exitCode };
}
