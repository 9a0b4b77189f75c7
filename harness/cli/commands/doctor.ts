/** `doctor`: a subprocess client's protocol checked before anything is graded. */
import type { Command } from 'commander';
import { UsageError } from '../../faults.js';
import { load, reap, untilStopped } from '../context.js';
import { print, printErr } from '../io.js';
import { configOption, noConfigOption } from '../options.js';

export function register(program: Command): void {
  program
    .command('doctor')
    .description("check a subprocess client's protocol (handshake, and a plain text task in each dialect it declares) before grading")
    .addOption(configOption())
    .addOption(noConfigOption())
    .option('--client-cmd <command>', "the command that runs the client (or the config file's clientCmd)")
    .action(async (opts: { clientCmd?: string }) => {
      if (!opts.clientCmd) throw new UsageError('doctor checks a subprocess client: give --client-cmd "<command>" (or clientCmd in the config file)');
      const clientCmd = opts.clientCmd;
      const { interruptible } = await load.interrupt();
      const { doctor } = await load.doctor();
      await reap();
      // Its client and PKI live in a run folder too: a signal removes them like a run's.
      const stop = interruptible((l) => printErr(l + '\n'), 'the check');
      try {
        process.exitCode = await untilStopped(
          stop,
          doctor(clientCmd, (l) => print(l + '\n')),
        );
      } finally {
        stop.dispose();
      }
    });
}
