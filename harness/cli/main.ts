/**
 * `a2a-conformance`: run the conformance scenarios against an A2A client and grade it from the wire.
 * Exit codes (DESIGN.md §4.3): 0 all verdicts expected; 1 an unexpected verdict or nothing graded;
 * 2 a harness ERROR, bad arguments or a bad input file (found before anything runs); 128 + n when a
 * run is stopped by signal n (130 SIGINT, 143 SIGTERM), after it has removed everything it started.
 */
import { existsSync, mkdirSync, mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { RULE_IDS, RULES } from '../core/oracle/rules.js';
import { DIALECTS, type Dialect } from '../core/vocabulary/types.js';
import { dutyLevel } from '../core/oracle/rule.js';
import { rulesText } from '../core/oracle/describe.js';
import { checkBehind, type RunResults } from '../core/results.js';
import { harnessVersion } from '../runner/package-root.js';
import type { Expectations } from '../runner/expectations.js';
import type { ScenarioPick } from '../runner/run.js';
import type { Serving } from './serve.js';
import type { Interruptible, StopSignal } from './interrupt.js';
import type { ClaimedOutput } from './output.js';
import { makeReporters, parseReporters, REPORTERS, reportersProblem, summaryText, wantsColour, type ReporterChoice } from './reporters.js';
import { printable, printableJson } from '../core/text.js';
import { FAMILY_IDS } from '../gen/family-ids.js';

/**
 * The rest of the harness loads when a command needs it: `--version`, `--help` and argument
 * errors answer from the modules above alone (a fraction of a second), a run loads what runs.
 */
const load = {
  clients: () => import('../../clients/index.js'),
  catalogue: () => import('../runner/catalogue.js'),
  run: () => import('../runner/run.js'),
  expectations: () => import('../runner/expectations.js'),
  merge: () => import('../runner/merge.js'),
  resultsInput: () => import('./results-input.js'),
  reports: () => import('../../reports/index.js'),
  policy: () => import('../runner/policy.js'),
  serve: () => import('./serve.js'),
  subprocess: () => import('../adapters/subprocess.js'),
  doctor: () => import('./doctor.js'),
  output: () => import('./output.js'),
  interrupt: () => import('./interrupt.js'),
  workspace: () => import('../runner/workspace.js'),
  properties: () => import('./properties.js'),
  propertyRun: () => import('../runner/properties.js'),
  inputFile: () => import('./input-file.js'),
  config: () => import('./config.js'),
  families: () => import('../gen/families/index.js'),
};

/**
 * Everything the CLI prints goes through here: a client's or a file's text cannot drive the
 * terminal. A reader that goes away (`list | head`, `run 2>&1 | head`) costs its stream, never the
 * run: what would have gone there is dropped, and the exit code stays the run's.
 */
const gone = new Set<NodeJS.WriteStream>();
const write = (stream: NodeJS.WriteStream, text: string) => {
  if (!gone.has(stream)) stream.write(printable(text));
};
const print = (text: string) => write(process.stdout, text);
/** For a reporter, which has made every untrusted piece printable itself (and may add colour). */
const writeRaw = (stream: NodeJS.WriteStream, text: string) => {
  if (!gone.has(stream)) stream.write(text);
};
const printErr = (text: string) => write(process.stderr, text);
const onStreamError = function (this: NodeJS.WriteStream) {
  gone.add(this);
};
const watchStream = (stream: NodeJS.WriteStream) => {
  if (!stream.listeners('error').includes(onStreamError)) stream.on('error', onStreamError);
};

/**
 * Says (on stderr) what a run killed with SIGKILL left, and removes it. Every command that opens a
 * run folder calls this first, before it claims `--out`: so the temp folder is checked here.
 */
const reap = async () => {
  checkTempFolder();
  for (const line of (await load.workspace()).reapDeadRuns()) printErr(`a2a-conformance: ${line}\n`);
};

class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Not the arguments but what they meet (the temp folder, the current folder, a report that cannot be written): one line, exit 2, no usage. */
class PlaceError extends Error {
  override readonly name = 'PlaceError';
}

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String((err as Error).message).split('\n')[0];

/**
 * A run's private folder is made in the temp folder (TMPDIR): one that is missing, a file or not
 * writable is said before anything is claimed or started, not as a stack trace from deep in a run.
 */
function checkTempFolder(): void {
  const dir = tmpdir();
  try {
    rmdirSync(mkdtempSync(join(dir, 'a2a-conformance-probe-')));
  } catch (err) {
    throw new PlaceError(`the temp folder ${dir} cannot be used (${codeOf(err)}): set TMPDIR to a folder you can write, or unset it`);
  }
}

/** The command was stopped by a signal and has cleaned up: exit 128 + the signal's number. */
class Stopped extends Error {
  constructor(readonly signal: StopSignal) {
    super(`stopped by ${signal}`);
  }
}

/** The work's outcome, or Stopped as soon as a signal arrives (the handler has already cleaned up). */
function untilStopped<T>(stop: Interruptible, work: Promise<T>): Promise<T> {
  const stopped = new Promise<never>((_, reject) =>
    stop.signal.addEventListener('abort', () => reject(new Stopped(stop.received ?? 'SIGINT')), { once: true }),
  );
  work.catch(() => {});
  return Promise.race([work, stopped]);
}

const resolvePath = (option: string, given: string) => {
  if (!given.trim()) throw new UsageError(`${option} needs a folder name (it was empty)`);
  return resolve(given);
};

/**
 * The scenario files of a command: the built-in catalogue (unless `--no-builtin`) plus every file
 * each `--scenarios` pattern names. A pattern that names no scenario file is an error that says so:
 * a vendor must never believe a folder ran that did not.
 */
async function scenarioFiles(globs: string[] | undefined, builtin = true): Promise<string[]> {
  const { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, matchScenarioFiles, SCENARIO_SUFFIXES } = await load.catalogue();
  const files = new Set<string>(builtin ? await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT) : []);
  if (!builtin && !globs?.length) throw new UsageError('--no-builtin leaves no scenarios: add --scenarios <glob> with your own files');
  for (const g of globs ?? []) {
    const found = await matchScenarioFiles(g, process.cwd());
    if (found.length === 0)
      throw new UsageError(
        `--scenarios ${JSON.stringify(g)} matches no scenario file (${SCENARIO_SUFFIXES.map((x) => `*${x}`).join(', ')}) from ${process.cwd()}`,
      );
    for (const f of found) files.add(f);
  }
  return [...files].sort();
}

async function readExpectations(file: string): Promise<Expectations> {
  const { EXPECTATIONS_LIMITS, parseExpectations } = await load.expectations();
  let text: string;
  try {
    text = await (await load.inputFile()).readInputFile(file, EXPECTATIONS_LIMITS.bytes);
  } catch (err) {
    throw new UsageError(`cannot read the expectations file ${file}: ${(err as Error).message}`);
  }
  return parseExpectations(text, file);
}

/**
 * The end of a command that writes a report, in the signal handler's `writing` state (interrupt.ts);
 * the handler is removed after it. A signal that came as the work ended has already marked the
 * folder stopped: no report, 128 + n. One during the write lets it finish, then 128 + n. A write
 * that fails is one line, the folder marked incomplete with the reason.
 */
async function finishWriting<T>(stop: Interruptible, out: ClaimedOutput | undefined, write: () => Promise<T>): Promise<T> {
  try {
    if (stop.received) throw new Stopped(stop.received);
    stop.writing((s) => out?.abandon(`it was stopped by ${s} while its report was being written`));
    let written: T;
    try {
      written = await write();
    } catch (err) {
      if (stop.received) throw new Stopped(stop.received);
      const why = String((err as Error).message).split('\n')[0]!;
      out?.abandon(`writing the report failed: ${why}`);
      throw new PlaceError(`could not write the report${out ? ` in ${out.dir}` : ''}: ${why}`);
    }
    if (stop.received) throw new Stopped(stop.received);
    return written;
  } finally {
    stop.dispose();
  }
}

/** How a run picks by `--grep` (the run's own type). */
type Grep = NonNullable<ScenarioPick['grep']>;

/** `--grep`: `/regex/flags` is a regular expression; anything else a case-insensitive substring. */
function grepOf(v: string): Grep {
  const m = /^\/(.+)\/([a-z]*)$/s.exec(v);
  if (m) {
    let re: RegExp;
    try {
      re = new RegExp(m[1]!, m[2]!.replace(/[gy]/g, ''));
    } catch (err) {
      throw new UsageError(`--grep ${v}: not a regular expression: ${(err as Error).message}`);
    }
    return { source: v, test: (t) => re.test(t) };
  }
  if (!v) throw new UsageError('--grep needs a text or a /regex/');
  const needle = v.toLowerCase();
  return { source: v, test: (t) => t.toLowerCase().includes(needle) };
}

function ruleList(v: string, prev: string[] = []): string[] {
  const ids = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const id of ids) if (!RULE_IDS.includes(id as never)) throw new UsageError(`unknown rule "${id}". Rules: ${RULE_IDS.join(', ')}`);
  return [...prev, ...ids];
}

/** The filters `run` and `list` share (a new Option per command). */
const ruleOption = () => new Option('--rule <id>', 'only scenarios of this rule (repeatable, or comma-separated)').argParser(ruleList);
const dialectOption = () =>
  new Option('--dialect <name>', `only scenarios whose peer speaks this A2A dialect (${DIALECTS.join(', ')})`).argParser((v) => {
    if (!(DIALECTS as readonly string[]).includes(v)) throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got "${v}"`);
    return v as Dialect;
  });
const scenarioIdOption = () =>
  new Option('--scenario <id>', 'only this scenario (repeatable, or comma-separated)').argParser((v: string, prev: string[] = []) => [
    ...prev,
    ...v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ]);
const grepOption = () =>
  new Option('--grep <text|/regex/>', 'only scenarios whose id or title contains the text (case-insensitive) or matches /regex/flags').argParser(grepOf);

/** `--config`, on every command a config file can feed (harness/cli/config.ts). */
const configOption = () =>
  new Option(
    '--config <file>',
    'the config file (default: a2a-conformance.config.json, .ts, .mts, .mjs or .js in the current folder; docs/config.schema.json)',
  );

/** `--scenarios` and `--no-builtin`, as `run`, `serve` and `list` take them (a new Option per command). */
const scenariosOption = () =>
  new Option('--scenarios <glob...>', 'your scenario files, folders or globs, run with the built-in ones (*.scenario.ts|mts|js|mjs|json)');
const noBuiltinOption = () => new Option('--no-builtin', 'leave out the built-in scenarios: only those of --scenarios');

type ResultsInput = Awaited<ReturnType<typeof load.resultsInput>>;

/**
 * `--last-failed`: the scenarios the previous report in `out` found unexpected that the catalogue
 * still holds (a stale expectation names none), and a sentence that says what was found.
 */
function lastFailed(out: string, catalogue: Set<string>, input: ResultsInput): { ids: string[]; said: string } {
  const file = join(resolve(out), 'results.json');
  if (!existsSync(file))
    throw new UsageError(`--last-failed reads the previous report in --out, and ${out} holds none (no results.json): run once without it first`);
  let previous: RunResults;
  try {
    [previous] = input.readResultsFiles([file], () => {}) as [RunResults];
  } catch (err) {
    throw new PlaceError(`--last-failed: ${(err as Error).message}`);
  }
  const ids = [...new Set(previous.unexpected.map((u) => u.id))].filter((id) => catalogue.has(id));
  const said = `the previous report in ${out} (${previous.startedAt}) found ${previous.unexpected.length} unexpected verdict(s)${ids.length ? `; running ${ids.length} scenario(s) again` : ''}`;
  return { ids, said };
}

/** `--shard-timings`: what each scenario took in an earlier run, by id (a merged report holds every shard's). */
function timingsFrom(file: string, input: ResultsInput): Map<string, number> {
  let runs: RunResults[];
  try {
    runs = input.readResultsFiles([file], () => {});
  } catch (err) {
    throw new PlaceError(`--shard-timings: ${(err as Error).message}`);
  }
  return new Map(runs.flatMap((r) => r.results.filter((x) => Number.isFinite(x.durationMs) && x.durationMs >= 0).map((x) => [x.id, x.durationMs] as const)));
}

/** The options `properties` and `replay` share, as commander gives them. */
interface PropertyOpts {
  client?: string;
  clientCmd?: string;
  out: string;
  strict: boolean;
  deadlineMultiplier: number;
  lanes?: number;
  export?: string;
}

function wholeNumber(option: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= min && n <= max)) throw new UsageError(`${option} must be a whole number from ${min} to ${max}, got "${v}"`);
  return n;
}

const multiplierOf = (v: string) => {
  const x = Number(v);
  if (!(x > 0 && x <= 100)) throw new UsageError(`--deadline-multiplier must be a number in (0, 100], got "${v}"`);
  return x;
};

const lanesOf = (v: string) => wholeNumber('--lanes', v, 1, 64);

/** `--client` or `--client-cmd`, exactly one, and a built-in client that exists: as `run`, `properties` and `replay` take them. */
async function checkClientChoice(opts: { client?: string; clientCmd?: string }): Promise<void> {
  if (opts.client && opts.clientCmd) throw new UsageError('give --client or --client-cmd, not both');
  if (!opts.client && !opts.clientCmd)
    throw new UsageError('say which client to run: --client <name> (see `a2a-conformance list --clients`) or --client-cmd "<command>"');
  const { BUILTIN_CLIENTS } = await load.clients();
  if (opts.client && !BUILTIN_CLIENTS.some((c) => c.name === opts.client))
    throw new UsageError(`unknown client "${opts.client}". Built-in clients: ${BUILTIN_CLIENTS.map((c) => c.name).join(', ')}`);
}

/** `--family`: ids of the built-in families (checked against the list `list --families` prints). */
function familyList(v: string, prev: string[] = []): string[] {
  const ids = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const id of ids) if (!FAMILY_IDS.includes(id)) throw new UsageError(`unknown family "${id}". Families: ${FAMILY_IDS.join(', ')}`);
  return [...prev, ...ids];
}

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
      if (!cmd.options.some((o) => o.long === '--config')) return;
      const { applyConfig, findConfig, loadConfig } = await load.config();
      const cwd = process.cwd();
      const file = findConfig(cwd, cmd.getOptionValue('config') as string | undefined);
      if (file) applyConfig(cmd, await loadConfig(file), file, cwd, (m) => new UsageError(m));
    });

  program
    .command('run')
    .description('run the scenarios against a client and write <out>/results.json')
    .addOption(configOption())
    .option('--client <name>', 'a built-in client (reference, naive, a2a-js-sdk, …; see `list --clients`)')
    .option('--client-cmd <command>', 'any other client: a command that speaks the NDJSON protocol (docs/protocol.md)')
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .addOption(ruleOption())
    .addOption(dialectOption())
    .option('--out <dir>', 'where the report goes: index.html, results.json, junit.xml, summary.md', 'conformance-report')
    .option('--expectations <file>', 'known verdicts (docs/expectations.schema.json): they decide what is unexpected')
    .option('--update-expectations <file>', "write a baseline that makes this run's verdicts expected")
    .option('--shard <index/count>', 'run one shard of the scenario files; merge with `report`')
    .option('--strict', 'treat NON_STRICT as unexpected', false)
    .option('--deadline-multiplier <x>', 'scale every scenario deadline (slow machines)', multiplierOf, 1)
    .option('--seed <salt>', 'salt of the opaque scenario ids (random by default)')
    .option(
      '--lanes <n>',
      'scenarios in flight at once, each on its own listeners and client (default: 8 per core, at most 16, for a built-in client; 2 per core, at most 8, for --client-cmd)',
      lanesOf,
    )
    .addOption(scenarioIdOption())
    .addOption(grepOption())
    .option('--last-failed', 'only the scenarios the previous report in --out found unexpected (its results.json); the new report replaces it')
    .option(
      '--shard-timings <results.json>',
      'balance --shard by what each scenario took in that earlier run (the last merged report); without it, by an estimate',
    )
    .option('--bail', 'stop starting scenarios after the first unexpected verdict (the rest are listed as not run)', false)
    .option(
      '--reporter <name[=file]>',
      `what it prints: ${REPORTERS.join(', ')}; repeatable (several at once), name=file writes one to a file (default: progress)`,
      (v: string, prev?: ReporterChoice[]) => {
        try {
          return parseReporters(v, prev);
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
      },
    )
    .action(
      async (opts: {
        client?: string;
        clientCmd?: string;
        scenarios?: string[];
        builtin: boolean;
        rule?: string[];
        dialect?: Dialect;
        out: string;
        strict: boolean;
        deadlineMultiplier: number;
        seed?: string;
        lanes?: number;
        expectations?: string;
        updateExpectations?: string;
        shard?: string;
        scenario?: string[];
        grep?: Grep;
        lastFailed?: boolean;
        shardTimings?: string;
        bail: boolean;
        reporter?: ReporterChoice[];
      }) => {
        if (opts.shard !== undefined && !/^[1-9]\d*\/[1-9]\d*$/.test(opts.shard)) throw new UsageError(`--shard must look like 1/3, got "${opts.shard}"`);
        if (opts.shard) {
          const [i, n] = opts.shard.split('/').map(Number) as [number, number];
          if (i > n) throw new UsageError(`--shard ${opts.shard}: the index must be at most the count`);
        }
        const expectations = opts.expectations ? await readExpectations(opts.expectations) : undefined;
        await checkClientChoice(opts);
        // Everything is checked before anything runs: the scenario files (all of them), then every path written.
        const { loadCatalogue } = await load.catalogue();
        const { checkWritableFile, claimOutput, writeFileAtomic } = await load.output();
        const { interruptible } = await load.interrupt();
        const { runConformance, RunInterrupted } = await load.run();
        const catalogue = await loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin));
        const unknown = (opts.scenario ?? []).filter((id) => !catalogue.some((e) => e.scenario.id === id));
        if (unknown.length) throw new UsageError(`--scenario: no scenario "${unknown[0]}" in the catalogue (see \`a2a-conformance list\`)`);
        let ids = opts.scenario;
        if (opts.lastFailed) {
          const again = lastFailed(opts.out, new Set(catalogue.map((e) => e.scenario.id)), await load.resultsInput());
          if (again.ids.length === 0) {
            // Nothing is left to run again: the previous report stays as it is, and so does its verdict.
            printErr(`a2a-conformance: --last-failed: ${again.said}; nothing to run again (the report in ${opts.out} is left as it is)\n`);
            return;
          }
          ids = opts.scenario ? opts.scenario.filter((id) => again.ids.includes(id)) : again.ids;
          printErr(`a2a-conformance: --last-failed: ${again.said}\n`);
          if (ids.length === 0)
            throw new UsageError(
              `--scenario ${opts.scenario!.join(',')} names none of the scenarios the previous report found unexpected (${again.ids.slice(0, 5).join(', ')}${again.ids.length > 5 ? ', …' : ''})`,
            );
        }
        const pick = { ...(ids ? { ids } : {}), ...(opts.grep ? { grep: opts.grep } : {}) };
        const empty = (await load.run()).filtersProblem(catalogue, opts.rule, opts.dialect, pick);
        if (empty) throw new UsageError(empty);
        if (opts.shardTimings !== undefined && !opts.shard) throw new UsageError('--shard-timings balances the shards of --shard: give --shard too');
        const shardTimings = opts.shardTimings !== undefined ? timingsFrom(opts.shardTimings, await load.resultsInput()) : undefined;
        const updateTo = opts.updateExpectations !== undefined ? checkWritableFile('--update-expectations', opts.updateExpectations) : undefined;
        const reporters = opts.reporter ?? [{ name: 'progress' as const }];
        const clash = reportersProblem(reporters);
        if (clash) throw new UsageError(clash);
        // A reporter's file may name folders that do not exist yet (as vitest's outputFile may): they are made.
        const reporterFiles = reporters.flatMap((c) => {
          if (c.file === undefined) return [];
          try {
            if (c.file.trim()) mkdirSync(dirname(resolve(c.file)), { recursive: true });
          } catch {
            // Said in one line by the check below (a file in the way, no permission).
          }
          return [{ name: c.name, file: checkWritableFile(`--reporter ${c.name}=`, c.file) }];
        });
        await reap();
        const out = await claimOutput('--out', opts.out);
        const stop = interruptible((l) => printErr(l + '\n'), 'the run', { onStop: (s) => out.abandon(`it was stopped by ${s}`) });
        const reporter = makeReporters(reporters, {
          stdout: (t) => writeRaw(process.stdout, t),
          stderr: (t) => writeRaw(process.stderr, t),
          colour: { stdout: wantsColour(process.stdout), stderr: wantsColour(process.stderr) },
        });
        let results: RunResults;
        try {
          results = await runConformance({
            client: opts.client,
            clientCmd: opts.clientCmd,
            files: catalogue.map((e) => e.file),
            catalogue,
            rules: opts.rule,
            ...(opts.dialect ? { dialect: opts.dialect } : {}),
            strict: opts.strict,
            deadlineMultiplier: opts.deadlineMultiplier,
            seed: opts.seed,
            ...(opts.lanes ? { lanes: opts.lanes } : {}),
            expectations,
            shard: opts.shard,
            signal: stop.signal,
            pick,
            ...(shardTimings ? { shardTimings } : {}),
            bail: opts.bail,
            onStart: (id) => reporter.start(id),
            onProgress: (n, total, r, unexpected) => reporter.result(n, total, r, unexpected),
            onDeferred: (n, total, r) => reporter.deferred?.(n, total, r),
          });
        } catch (err) {
          stop.dispose();
          reporter.failed(stop.received ? `stopped by ${stop.received}` : (err as Error).message);
          if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
          out.abandon(`it failed: ${(err as Error).message}`);
          throw err;
        } finally {
          reporter.dispose();
        }
        let done = results;
        const written = await finishWriting(stop, out, async () => {
          if (updateTo) {
            const baseline = (await load.expectations()).baselineFrom(done.results, { strict: opts.strict }, done.client.name);
            await writeFileAtomic(updateTo, JSON.stringify(baseline, null, 2) + '\n');
            printErr(`wrote ${baseline.entries.length} expectation(s) to ${updateTo}\n`);
            // Writing the baseline is the run's purpose, not a failure: judged by it, every verdict is expected.
            const { judge } = await load.expectations();
            const { exitCode } = await load.policy();
            const catalogueIds = [...done.results.map((x) => x.id), ...done.notRun.map((n) => n.id)];
            const { unexpected } = judge(done.results, { strict: opts.strict }, baseline, catalogueIds);
            done = { ...done, expectations: baseline, unexpected, exitCode: exitCode(done.results, unexpected) };
          }
          return out.commit(done);
        });
        reporter.end(done, written);
        // The reporters given a file (`--reporter junit=junit.xml`) are written now, each whole.
        for (const [i, f] of reporter.files().entries()) {
          try {
            await writeFileAtomic(reporterFiles[i]!.file, f.text);
          } catch (err) {
            throw new PlaceError(`could not write --reporter ${reporterFiles[i]!.name}=${f.file}: ${String((err as Error).message).split('\n')[0]}`);
          }
        }
        process.exitCode = done.exitCode;
      },
    );

  /** The options `properties` and `replay` share. */
  const propertyCommand = (name: string, description: string) =>
    program
      .command(name)
      .description(description)
      .addOption(configOption())
      .option('--client <name>', 'a built-in client (reference, naive, a2a-js-sdk, …; see `list --clients`)')
      .option('--client-cmd <command>', 'any other client: a command that speaks the NDJSON protocol (docs/protocol.md)')
      // A folder of its own by default: a property run or a replay never overwrites the run's report (conformance-report).
      .option(
        '--out <dir>',
        'where the report goes: index.html, results.json, junit.xml, summary.md',
        `conformance-${name === 'replay' ? 'replay' : 'properties'}`,
      )
      .option('--strict', 'a NON_STRICT case fails its family too', false)
      .option('--deadline-multiplier <x>', 'scale every case deadline (slow machines)', multiplierOf, 1)
      .option(
        '--lanes <n>',
        'cases in flight at once, each on its own listeners and client (default: 8 per core, at most 16, for a built-in client; 2 per core, at most 8, for --client-cmd)',
        lanesOf,
      )
      .option('--export <file>', 'write each counterexample as a .scenario.json that runs as a plain scenario (--scenarios <file>)');

  propertyCommand(
    'properties',
    'run the property families: generated cards, profiles, intents and runtimes; a family fails on its first FAIL or TIMEOUT, which is shrunk and can be replayed',
  )
    .option('--family <id>', 'only this family (repeatable, or comma-separated; see `list --families`)', familyList)
    .option('--runs <n>', 'generated cases per family (default 100)', (v) => wholeNumber('--runs', v, 1, 1_000_000))
    .option('--seed <n>', 'the seed of the generated cases (random by default; a fixed seed gives the same cases)', (v) =>
      wholeNumber('--seed', v, 0, 2 ** 31 - 1),
    )
    .action(async (opts: PropertyOpts & { family?: string[]; runs?: number; seed?: number }) => {
      const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
      await propertyAction(opts, { seed, ...(opts.runs !== undefined ? { runs: opts.runs } : {}) }, opts.family);
    });

  propertyCommand('replay', 'run one generated case again, by the seed and path a property run printed')
    .requiredOption('--seed <n>', 'the seed of the run', (v) => wholeNumber('--seed', v, 0, 2 ** 31 - 1))
    .requiredOption('--path <path>', 'the path of the case (e.g. 17:3:0)', (v) => {
      if (!/^\d+(:\d+)*$/.test(v)) throw new UsageError(`--path must look like 17 or 17:3:0, got "${v.slice(0, 80)}"`);
      // fast-check walks to a path one generated value (or shrink) at a time, synchronously: a path
      // past what a property run can print would hold the process, signals unheard, for ever.
      const steps = v.split(':');
      if (steps.length > MAX_PATH_STEPS || steps.some((n) => n.length > 7 || Number(n) > MAX_PATH_NUMBER))
        throw new UsageError(
          `--path ${v.length > 40 ? `${v.slice(0, 40)}…` : v}: at most ${MAX_PATH_STEPS} steps, each a number up to ${MAX_PATH_NUMBER} (what a property run prints)`,
        );
      return v;
    })
    .option('--family <id>', 'the family (default: the path in every family)', familyList)
    .action(async (opts: PropertyOpts & { family?: string[]; seed: number; path: string }) => {
      await propertyAction({ ...opts, lanes: opts.lanes ?? 1 }, { seed: opts.seed, path: opts.path }, opts.family);
    });

  /** A replay path's bounds: the first number is a case of at most --runs (1,000,000), the rest shrink steps. */
  const MAX_PATH_STEPS = 1000;
  const MAX_PATH_NUMBER = 999_999;

  /** What `properties` and `replay` do once their options are read. */
  async function propertyAction(opts: PropertyOpts, what: { seed: number; runs?: number; path?: string }, familyIds?: string[]) {
    await checkClientChoice(opts);
    const { FAMILIES } = await load.families();
    const families = familyIds?.length ? FAMILIES.filter((f) => familyIds.includes(f.id)) : FAMILIES;
    const { checkWritableFile, claimOutput } = await load.output();
    if (opts.export !== undefined && !opts.export.endsWith('.scenario.json'))
      throw new UsageError(`--export must name a .scenario.json file (so --scenarios finds it), got "${opts.export}"`);
    const exportTo = opts.export !== undefined ? checkWritableFile('--export', opts.export) : undefined;
    const { interruptible } = await load.interrupt();
    const { propertiesCommand, propertiesSummary } = await load.properties();
    const { RunInterrupted } = await load.run();
    await reap();
    const out = await claimOutput('--out', opts.out);
    const stop = interruptible((l) => printErr(l + '\n'), 'the run', { onStop: (s) => out.abandon(`it was stopped by ${s}`) });
    let results: RunResults;
    try {
      results = await propertiesCommand({
        ...(opts.client !== undefined ? { client: opts.client } : {}),
        ...(opts.clientCmd !== undefined ? { clientCmd: opts.clientCmd } : {}),
        families,
        ...what,
        strict: opts.strict,
        deadlineMultiplier: opts.deadlineMultiplier,
        ...(opts.lanes !== undefined ? { lanes: opts.lanes } : {}),
        ...(exportTo !== undefined ? { exportTo } : {}),
        signal: stop.signal,
        err: (t) => printErr(t),
      });
    } catch (err) {
      stop.dispose();
      if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
      out.abandon(`it failed: ${(err as Error).message}`);
      if (err instanceof (await load.propertyRun()).ReplayPathError) throw new PlaceError((err as Error).message);
      throw err;
    }
    const done = results;
    const written = await finishWriting(stop, out, () => out.commit(done));
    print(propertiesSummary(results, written));
    process.exitCode = results.exitCode;
  }

  program
    .command('check-scenarios')
    .description(
      'run the reference client over your scenario files; exit 1 naming each scenario whose verdict differs from its `expect`, or that grades nothing (a careless client gets the same INFORMATIONAL)',
    )
    .argument('<patterns...>', 'scenario files, folders or globs (the built-in scenarios are not included)')
    .option('--out <dir>', 'also write the report of the reference run here')
    .action(async (patterns: string[], opts: { out?: string }) => {
      const { loadCatalogue } = await load.catalogue();
      const { runConformance, RunInterrupted } = await load.run();
      const { interruptible } = await load.interrupt();
      const { claimOutput } = await load.output();
      const catalogue = await loadCatalogue(await scenarioFiles(patterns, false));
      await reap();
      const out = opts.out !== undefined ? await claimOutput('--out', opts.out) : undefined;
      const stop = interruptible((l) => printErr(l + '\n'), 'the check', { onStop: (s) => out?.abandon(`it was stopped by ${s}`) });
      let results: RunResults;
      try {
        results = await runConformance({ client: 'reference', files: catalogue.map((e) => e.file), catalogue, signal: stop.signal });
      } catch (err) {
        stop.dispose();
        if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
        out?.abandon(`it failed: ${(err as Error).message}`);
        throw err;
      }
      // A scenario the reference leaves INFORMATIONAL, with no assertion of its own, may grade nothing at
      // all: run a careless client over those; where it gets the same verdict, nothing tells them apart.
      const idle = results.results.filter((r) => r.verdict === 'INFORMATIONAL' && !catalogue.find((e) => e.scenario.id === r.id)?.scenario.assertions?.length);
      const nothing = new Set<string>();
      if (idle.length > 0) {
        const subset = catalogue.filter((e) => idle.some((r) => r.id === e.scenario.id));
        let control: RunResults;
        try {
          control = await runConformance({ client: 'naive', files: subset.map((e) => e.file), catalogue: subset, signal: stop.signal });
        } catch (err) {
          stop.dispose();
          if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
          out?.abandon(`it failed: ${(err as Error).message}`);
          throw err;
        }
        for (const r of control.results) if (r.verdict === 'INFORMATIONAL') nothing.add(r.id);
      }
      const done = results;
      await finishWriting(stop, out, async () => out?.commit(done));
      const differ = results.results.filter((r) => r.verdict !== r.expect);
      for (const r of results.results) {
        if (r.verdict === r.expect && !nothing.has(r.id)) {
          print(`ok   ${r.id} (${r.verdict})\n`);
          continue;
        }
        if (r.verdict === r.expect) {
          print(
            `✗    ${r.id}: grades nothing: the reference and a careless client (naive) get the same verdict (INFORMATIONAL); give it a rule that binds where it leads (docs/scenarios.md, "What a scenario grades"), or assertions of its own\n`,
          );
          continue;
        }
        const worst = checkBehind(r);
        print(`✗    ${r.id}: declares ${r.expect}, the reference client got ${r.verdict}${worst ? ` — ${worst.rule}: ${worst.reason}` : ''}\n`);
      }
      for (const n of results.notRun) print(`skip ${n.id}: ${n.reason}\n`);
      print(
        `${results.results.length} scenario(s): ${results.results.length - differ.length} as declared, ${differ.length} differ${differ.length ? ` (${differ.map((r) => r.id).join(', ')})` : ''}${nothing.size ? `, ${nothing.size} grade nothing (${[...nothing].join(', ')})` : ''}\n`,
      );
      process.exitCode = differ.length > 0 || nothing.size > 0 || results.results.length === 0 ? 1 : 0;
    });

  program
    .command('report')
    .description('re-render reports from results.json files; several (shards of one run) are merged')
    .argument('<results...>', 'results.json files')
    .option('--out <dir>', 'where the merged report goes', 'conformance-report')
    .option('--expectations <file>', 're-judge the merged results against this expectations file')
    .option('--strict', 'with --expectations: treat NON_STRICT as unexpected', false)
    .action(async (files: string[], opts: { out: string; expectations?: string; strict: boolean }) => {
      const { parseExpectations, judge } = await load.expectations();
      const { mergeResults } = await load.merge();
      const { exitCode } = await load.policy();
      const { checkOutput, writeOutput } = await load.output();
      const { renderReports } = await load.reports();
      // Each file bounded in size and depth and checked against its schema (harness/cli/results-input.ts).
      const notes: string[] = [];
      const runs = (await load.resultsInput()).readResultsFiles(files, (l) => notes.push(l));
      // The expectations a run was judged with travel inside it: checked as strictly as a file.
      for (const [i, r] of runs.entries()) if (r.expectations) parseExpectations(JSON.stringify(r.expectations), `${files[i]} (its "expectations")`);
      let merged = mergeResults(runs);
      if (opts.expectations) {
        const catalogue = [...merged.results.map((x) => x.id), ...merged.notRun.map((n) => n.id)];
        const { unexpected } = judge(merged.results, { strict: opts.strict || merged.strict }, await readExpectations(opts.expectations), catalogue);
        merged = { ...merged, unexpected, exitCode: Math.max(exitCode(merged.results, unexpected), merged.incomplete ? 1 : 0) };
      }
      // Every input read and judged, the folder checked and the whole report rendered before --out is
      // touched: a bad input, or data that cannot be rendered, never costs the previous report.
      checkOutput('--out', opts.out);
      const rendered = renderReports(merged);
      for (const l of [...notes, ...rendered.notes]) printErr(`a2a-conformance: ${l}\n`);
      // A signal while the files go into place lets them finish, then stops (exit 128+n).
      const { interruptible } = await load.interrupt();
      const stop = interruptible((l) => printErr(l + '\n'), 'the report');
      const written = await finishWriting(stop, undefined, () => writeOutput('--out', opts.out, rendered));
      print(summaryText(merged, written, wantsColour(process.stdout)));
      process.exitCode = merged.exitCode;
    });

  program
    .command('doctor')
    .description("check a subprocess client's protocol (handshake, and a plain text task in each dialect it declares) before grading")
    .addOption(configOption())
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

  program
    .command('serve')
    .description('start the scripted peers on 127.0.0.1 for debugging a client by hand; Ctrl-C stops')
    .option('--peer <name>', 'a scenario id or a peer factory name (default: every scenario)')
    .option('--pki-dir <dir>', 'keep the certificates here and reuse them across runs')
    .addOption(configOption())
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .action(async (opts: { peer?: string; pkiDir?: string; scenarios?: string[]; builtin: boolean }) => {
      const catalogue = await (await load.catalogue()).loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin));
      const { interruptible } = await load.interrupt();
      const { serve } = await load.serve();
      const { OutputError } = await load.output();
      await reap();
      const stop = interruptible((l) => printErr(l + '\n'), 'the peers', { setsExitCode: false });
      let serving: Serving;
      try {
        serving = await serve({
          catalogue,
          peer: opts.peer,
          pkiDir: opts.pkiDir !== undefined ? resolvePath('--pki-dir', opts.pkiDir) : undefined,
          out: (l) => print(l + '\n'),
        });
      } catch (err) {
        stop.dispose();
        if (err instanceof OutputError) throw err;
        throw new UsageError((err as Error).message);
      }
      try {
        await new Promise<void>((done) => stop.signal.addEventListener('abort', () => done(), { once: true }));
        print('stopping…\n');
        await serving.stop();
      } finally {
        stop.dispose();
      }
      // Ctrl-C is how `serve` ends: exit 0 once everything is closed and removed.
    });

  program
    .command('list')
    .description(
      'list the scenarios (or, with --clients, the built-in clients; with --rules, the rules and their sources; with --families, the property families)',
    )
    .option('--clients', 'print the built-in clients, one per line')
    .option('--families', 'print the property families: id, rules, title')
    .option('--rules', 'print every rule with its sources (quoted, with section and level) and how it grades')
    .addOption(configOption())
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .addOption(ruleOption())
    .addOption(dialectOption())
    .addOption(scenarioIdOption())
    .addOption(grepOption())
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        clients?: boolean;
        rules?: boolean;
        families?: boolean;
        scenarios?: string[];
        builtin: boolean;
        json?: boolean;
        rule?: string[];
        dialect?: Dialect;
        scenario?: string[];
        grep?: Grep;
      }) => {
        if (opts.families) {
          const { FAMILIES } = await load.families();
          if (opts.json)
            write(
              process.stdout,
              printableJson(
                FAMILIES.map((f) => ({ id: f.id, title: f.title, rules: f.rules, spec: f.spec })),
                2,
              ) + '\n',
            );
          else for (const f of FAMILIES) print(`${f.id.padEnd(14)} ${f.rules.join(',').padEnd(90)} ${f.title}\n`);
          return;
        }
        if (opts.rules) {
          if (opts.json)
            write(
              process.stdout,
              printableJson(
                RULES.map((r) => ({
                  id: r.id,
                  title: r.title,
                  family: r.family,
                  scope: r.scope,
                  level: dutyLevel(r) ?? null,
                  sources: r.sources,
                  limits: r.limits ?? [],
                  grades: r.grades,
                  notBinding: r.notBinding,
                  ...(r.otherwise ? { otherwise: r.otherwise } : {}),
                })),
                2,
              ) + '\n',
            );
          else print(rulesText());
          return;
        }
        if (opts.clients) {
          const { BUILTIN_CLIENTS } = await load.clients();
          if (opts.json)
            write(
              process.stdout,
              printableJson(
                BUILTIN_CLIENTS.map(({ name, description, caughtBy, atLeast }) => ({ name, description, ...(caughtBy ? { caughtBy, atLeast } : {}) })),
                2,
              ) + '\n',
            );
          else print(BUILTIN_CLIENTS.map((c) => c.name).join('\n') + '\n');
          return;
        }
        const all = await (await load.catalogue()).loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin));
        // The filters `run` takes, with the same answer when they select nothing (exit 2, one line).
        const { filterCatalogue, filtersProblem } = await load.run();
        const pick = { ...(opts.scenario ? { ids: opts.scenario } : {}), ...(opts.grep ? { grep: opts.grep } : {}) };
        const empty = filtersProblem(all, opts.rule, opts.dialect, pick);
        if (empty) throw new UsageError(empty);
        const catalogue = filterCatalogue(all, opts.rule, opts.dialect, pick);
        if (opts.json) {
          write(
            process.stdout,
            printableJson(
              catalogue.map((e) => ({ id: e.scenario.id, rule: e.scenario.rule, title: e.scenario.title, expect: e.scenario.expect })),
              2,
            ) + '\n',
          );
          return;
        }
        for (const e of catalogue) print(`${e.scenario.id.padEnd(52)} ${e.scenario.rule.padEnd(22)} ${e.scenario.expect}\n`);
      },
    );
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
    // An error of a module a command loaded: its class comes from the same (cached) module.
    const [{ ClientFault }, { ScenarioLoadError }, { ExpectationsError }, { MergeError }, { OutputError }, { ResultsInputError }, { ConfigError }] =
      await Promise.all([load.subprocess(), load.catalogue(), load.expectations(), load.merge(), load.output(), load.resultsInput(), load.config()]);
    if (err instanceof ClientFault) {
      // The client's fault, not the harness's: nothing could be graded (DESIGN.md §4.3: exit 1).
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
