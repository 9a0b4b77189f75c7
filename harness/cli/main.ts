/**
 * `a2a-conformance`: run the conformance scenarios against an A2A client and grade it from the wire.
 * Exit codes (docs/ci.md): 0 all verdicts expected; 1 an unexpected verdict or nothing graded;
 * 2 a harness ERROR, bad arguments or a bad input file (found before anything runs); 128 + n when a
 * run is stopped by signal n (130 SIGINT, 143 SIGTERM), after it has removed everything it started.
 */
import { Command, CommanderError } from 'commander';
import {
  ClientFault,
  ConfigError,
  ExpectationsError,
  MergeError,
  OutputError,
  PlaceError,
  ResultsInputError,
  ScenarioLoadError,
  Stopped,
  UsageError,
} from '../faults.js';
import { harnessVersion } from '../runner/infrastructure/package-root.js';
import * as checkScenarios from './commands/check-scenarios.js';
import * as doctor from './commands/doctor.js';
import * as list from './commands/list.js';
import * as matrix from './commands/matrix.js';
import * as properties from './commands/properties.js';
import * as proxy from './commands/proxy.js';
import * as report from './commands/report.js';
import * as run from './commands/run.js';
import * as serve from './commands/serve.js';
import * as verifyBundle from './commands/verify-bundle.js';
import { codeOf, load, stopEarly, usedConfig } from './context.js';
import { printableInline } from '../core/text.js';
import { print, printErr, shownPath, watchStream } from './io.js';

/**
 * Each command is a file of ./commands that registers itself, in the order `--help` lists them.
 * They and the modules above are light: `--version`, `--help` and argument errors answer from them
 * alone (a fraction of a second); the rest of the harness loads when a command acts (context.ts).
 */
const COMMANDS = [run, properties, matrix, checkScenarios, report, verifyBundle, doctor, serve, proxy, list];

export function buildProgram(): Command {
  const program = new Command('a2a-conformance')
    .description('Conformance harness for A2A (Agent2Agent) clients: scripted vendor peers over real TLS/mTLS, graded from the wire.')
    .version(harnessVersion())
    // Set before the subcommands are made: they copy these settings, so their errors exit 2 as well.
    .exitOverride()
    // Commander's own argument errors read like ours: "a2a-conformance: <what>", then the usage line (main).
    .configureOutput({ writeOut: (s) => print(s), writeErr: (s) => printErr(s), outputError: (s) => printErr(s.replace(/^error: /, 'a2a-conformance: ')) })
    // A config file fills in what the command line left out, before the command acts.
    .hook('preAction', async (_program, cmd) => {
      usedConfig.file = undefined;
      if (!cmd.options.some((o) => o.long === '--config')) return;
      const given = cmd.getOptionValue('config') as string | false | undefined;
      // --no-config: none, whatever the current folder holds.
      if (given === false) return;
      const { applyConfig, findConfig, loadConfig } = await load.config();
      const cwd = process.cwd();
      const file = findConfig(cwd, given);
      if (!file) return;
      applyConfig(cmd, await loadConfig(file), file, cwd, (m) => new UsageError(m));
      // Said once, on stderr: a value the command line did not give came from here.
      printErr(`a2a-conformance: using the config file ${printableInline(shownPath(cwd, file))}\n`);
      usedConfig.file = file;
    });
  for (const c of COMMANDS) c.register(program);
  return program;
}

/**
 * The usage line printed after an argument error: the command's own (the first word of the arguments
 * that names one), or the program's.
 */
function usageLine(program: Command, argv: string[]): string {
  const words = argv.slice(2);
  const cmd = program.commands.find((c) => c.name() === words.find((w) => !w.startsWith('-')));
  return cmd
    ? `usage: a2a-conformance ${cmd.name()} ${cmd.usage()}  (a2a-conformance ${cmd.name()} --help: every option)\n`
    : `usage: a2a-conformance <command> [options]  (a2a-conformance --help: the commands)\n`;
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await command(argv);
  } finally {
    // A thread started early for a run that never came is ended here, not by the process's exit.
    await stopEarly();
  }
}

async function command(argv: string[]): Promise<number> {
  const program = buildProgram();
  watchStream(process.stdout);
  watchStream(process.stderr);
  try {
    process.cwd();
  } catch (err) {
    // Every relative path resolves against it: said once, here, not as a stack trace from wherever it is first needed.
    printErr(`a2a-conformance: the current folder no longer exists (${codeOf(err)}): run the command from a folder that does\n`);
    return 2;
  }
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0 through here too; an argument error has been said, in one line.
      if (err.exitCode === 0) return 0;
      printErr(usageLine(program, argv));
      return 2;
    }
    if (err instanceof Stopped) return (await load.interrupt()).signalExitCode(err.signal); // the signal handler has said so
    if (err instanceof UsageError) {
      printErr(`a2a-conformance: ${err.message}\n`);
      printErr(usageLine(program, argv));
      return 2;
    }
    if (err instanceof PlaceError) {
      printErr(`a2a-conformance: ${err.message}\n`);
      return 2;
    }
    if (err instanceof ClientFault) {
      // The client's fault, not the harness's: nothing could be graded (docs/ci.md: exit 1).
      printErr(`a2a-conformance: ${err.message}\nNothing was graded. Check the client with: a2a-conformance doctor --client-cmd "<command>"\n`);
      return 1;
    }
    if (
      err instanceof ScenarioLoadError ||
      err instanceof ExpectationsError ||
      err instanceof MergeError ||
      err instanceof OutputError ||
      err instanceof ResultsInputError ||
      err instanceof ConfigError
    ) {
      printErr(`a2a-conformance: ${err.message}\n`);
      return 2;
    }
    printErr(`a2a-conformance: internal error (exit 2): ${(err as Error).stack ?? String(err)}\n`);
    return 2;
  }
}
