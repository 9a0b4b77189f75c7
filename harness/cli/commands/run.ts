/** `run`: the scenarios against a client, graded, and the report written. */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { RunResults } from '../../core/results.js';
import type { CatalogueEntry } from '../../runner/load/catalogue.js';
import type { ScenarioPick } from '../../runner/engine/select.js';
import type { Binding, Dialect } from '../../core/protocol/types.js';
import { tellOver } from '../../core/card-binding.js';
import { type Nemesis, parseNemesis } from '../../core/scenario/nemesis.js';
import { PlaceError, RunInterrupted, Stopped, UsageError } from '../../faults.js';
import { checkClientChoice, checkScenarioIds, finishWriting, load, readExpectations, reap, scenarioFiles, startEarly, usedConfig } from '../context.js';
import { printErr, shownPath, writeRaw } from '../io.js';
import {
  shardOf,
  configOption,
  noConfigOption,
  bindingOption,
  dialectOption,
  grepOption,
  lanesOf,
  workersOf,
  multiplierOf,
  noBuiltinOption,
  ruleOption,
  scenarioIdOption,
  scenariosOption,
  type Grep,
} from '../options.js';
import { makeReporters, parseReporters, REPORTERS, reportersProblem, wantsColour, type ReporterChoice } from '../reporters.js';

/** The options of `run`, as commander gives them. */
interface RunOpts {
  client?: string;
  clientCmd?: string;
  scenarios?: string[];
  builtin: boolean;
  rule?: string[];
  dialect?: Dialect;
  binding?: Binding[];
  out: string;
  strict: boolean;
  deadlineMultiplier: number;
  seed?: string;
  lanes?: number;
  workers?: number;
  expectations?: string;
  updateExpectations?: string;
  pinEveryVerdict?: boolean;
  shard?: string;
  scenario?: string[];
  grep?: Grep;
  lastFailed?: boolean;
  shardTimings?: string;
  bail: boolean;
  reporter?: ReporterChoice[];
  nemesis?: string;
}

type ResultsInput = Awaited<ReturnType<typeof load.resultsInput>>;

/**
 * `--last-failed`: the scenarios the previous report in `out` found unexpected that the catalogue
 * still holds (a stale expectation names none), and a sentence that says what was found.
 */
function lastFailed(out: string, catalogue: Set<string>, input: ResultsInput, nemesis: Nemesis | undefined): { ids: string[]; said: string } {
  const file = join(resolve(out), 'results.json');
  if (!existsSync(file))
    throw new UsageError(`--last-failed reads the previous report in --out, and ${out} holds none (no results.json): run once without it first`);
  let previous: RunResults;
  try {
    [previous] = input.readResultsFiles([file], () => {}) as [RunResults];
  } catch (err) {
    throw new PlaceError(`--last-failed: ${(err as Error).message}`);
  }
  if (JSON.stringify(previous.nemesis ?? null) !== JSON.stringify(nemesis ?? null))
    throw new UsageError(
      previous.nemesis
        ? `--last-failed: the previous report in ${out} ran under --nemesis; give the same schedule again (${JSON.stringify(previous.nemesis).slice(0, 200)})`
        : `--last-failed: the previous report in ${out} ran without --nemesis; run its failures again without it`,
    );
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

export function register(program: Command): void {
  program
    .command('run')
    .description('run the scenarios against a client and write <out>/results.json')
    .addOption(configOption())
    .addOption(noConfigOption())
    .option('--client <name>', 'a built-in client (reference, naive, a2a-js-sdk, …; see `list --clients`)')
    .option('--client-cmd <command>', 'any other client: a command that speaks the NDJSON protocol (docs/protocol.md)')
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .addOption(ruleOption())
    .addOption(dialectOption())
    .addOption(bindingOption())
    .option('--out <dir>', 'where the report goes: index.html, results.json, junit.xml, summary.md', 'conformance-report')
    .option('--expectations <file>', 'known verdicts (docs/expectations.schema.json): they decide what is unexpected')
    .option('--update-expectations <file>', "write a baseline that makes this run's verdicts expected")
    .option('--pin-every-verdict', 'with --update-expectations: an entry for every verdict, PASS and INFORMATIONAL too, so any change is unexpected')
    .option('--shard <index/count>', 'run one shard of the scenario files; merge with `report`')
    .option('--strict', 'treat NON_STRICT as unexpected', false)
    .option('--deadline-multiplier <x>', 'scale every scenario deadline (slow machines)', multiplierOf, 1)
    .option('--seed <salt>', 'salt of the opaque scenario ids (random by default)')
    .option(
      '--lanes <n>',
      'scenarios in flight at once, each on its own listeners and client (default: 8 per core, at most 16, for a built-in client, or 16 per thread where the run uses several; 2 per core, at most 8, for --client-cmd)',
      lanesOf,
    )
    .option(
      '--workers <n>',
      "threads the lanes are spread across, this one included (default for a built-in client's run of 60 scenarios or more, without --bail: one per core, at most 4; else 1)",
      workersOf,
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
      '--nemesis <schedule>',
      'lay faults over every scenario\'s peer where its story leaves room: a JSON schedule inline or in a file, e.g. \'{"faults":[{"kind":"unavailable","retryAfterSeconds":1}]}\' (docs/nemesis.md)',
    )
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
    .action(runAction);
}

/** Everything `run` checked and read before anything starts. */
interface RunPlan {
  expectations: Awaited<ReturnType<typeof readExpectations>> | undefined;
  catalogue: CatalogueEntry[];
  pick: ScenarioPick;
  shardTimings: Map<string, number> | undefined;
  updateTo: string | undefined;
  reporters: ReporterChoice[];
  reporterFiles: Array<{ name: string; file: string }>;
  nemesis: Nemesis | undefined;
}

async function runAction(opts: RunOpts): Promise<void> {
  // The run's certificates, and the worker threads its lanes may use, start on the other cores while the catalogue loads.
  await startEarly(opts, opts.clientCmd === undefined && !opts.bail);
  const plan = await planRun(opts);
  if (plan) await executeRun(opts, plan);
}

/**
 * Everything is checked before anything runs: the arguments, the scenario files (all of them), then
 * every path written. Undefined when `--last-failed` leaves nothing to run (said, exit 0).
 */
async function planRun(opts: RunOpts): Promise<RunPlan | undefined> {
  if (opts.shard !== undefined) shardOf(opts.shard);
  // The first baseline: --update-expectations writes the file --expectations (or the config's
  // `expectations`) names; where it does not exist yet, this run is judged without one, and says so.
  const firstBaseline =
    opts.expectations !== undefined &&
    opts.updateExpectations !== undefined &&
    resolve(opts.expectations) === resolve(opts.updateExpectations) &&
    !existsSync(resolve(opts.expectations));
  if (firstBaseline)
    printErr(
      `a2a-conformance: ${opts.expectations} does not exist yet: this run is judged without expectations, and --update-expectations writes its baseline\n`,
    );
  const expectations = opts.expectations && !firstBaseline ? await readExpectations(opts.expectations) : undefined;
  await checkClientChoice(opts);
  const { loadCatalogue } = await load.catalogue();
  const { checkWritableFile, within } = await load.output();
  // Told over the bindings asked for, so --scenario and --grep see the tellings' ids (the run tells them again after hello: the same).
  const catalogue = tellOver(await loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin)), opts.binding ?? []);
  const nemesis = opts.nemesis !== undefined ? await nemesisOf(opts.nemesis) : undefined;
  const pick = await pickOf(opts, catalogue, nemesis);
  if (!pick) return undefined;
  const empty = (await load.select()).filtersProblem(catalogue, opts.rule, opts.dialect, pick);
  if (empty) throw new UsageError(empty);
  if (opts.shardTimings !== undefined && !opts.shard) throw new UsageError('--shard-timings balances the shards of --shard: give --shard too');
  const shardTimings = opts.shardTimings !== undefined ? timingsFrom(opts.shardTimings, await load.resultsInput()) : undefined;
  if (opts.pinEveryVerdict && opts.updateExpectations === undefined)
    throw new UsageError('--pin-every-verdict says what --update-expectations writes: give --update-expectations <file> too');
  const updateTo = opts.updateExpectations !== undefined ? checkWritableFile('--update-expectations', opts.updateExpectations, opts.out) : undefined;
  const reporters = opts.reporter ?? [{ name: 'progress' as const }];
  const clash = reportersProblem(reporters);
  if (clash) throw new UsageError(clash);
  // A reporter's file may name folders that do not exist yet (as vitest's outputFile may): they are made.
  const reporterFiles = reporters.flatMap((c) => {
    if (c.file === undefined) return [];
    // Before any folder is made for it (checkWritableFile says why).
    if (c.file.trim() && within(resolve(c.file), opts.out)) return [{ name: c.name, file: checkWritableFile(`--reporter ${c.name}=`, c.file, opts.out) }];
    try {
      if (c.file.trim()) mkdirSync(dirname(resolve(c.file)), { recursive: true });
    } catch {
      // Said in one line by the check below (a file in the way, no permission).
    }
    return [{ name: c.name, file: checkWritableFile(`--reporter ${c.name}=`, c.file, opts.out) }];
  });
  return { expectations, catalogue, pick, shardTimings, updateTo, reporters, reporterFiles, nemesis };
}

/** `--nemesis`: a schedule written inline (JSON, `{` or `[` first) or in a file; a problem is one line. */
async function nemesisOf(v: string): Promise<Nemesis> {
  const inline = /^\s*[[{]/.test(v);
  let text: string;
  try {
    text = inline ? v : await (await load.inputFile()).readInputFile(v, 64 * 1024);
  } catch (err) {
    throw new UsageError(`--nemesis ${v.slice(0, 80)}: ${(err as Error).message}`);
  }
  const where = inline ? '--nemesis' : `--nemesis ${v.slice(0, 80)}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${where}: not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  let n: Nemesis;
  try {
    n = parseNemesis(value);
  } catch (err) {
    throw new UsageError(`${where}: ${(err as Error).message}`);
  }
  // `run` would leave a stall on every scenario (no expect stands under a task that never ends): said, not run for nothing.
  const stall = n.faults.findIndex((f) => f.kind === 'stall');
  if (stall >= 0)
    throw new UsageError(
      `${where}: fault ${stall + 1} (stall): a task that never ends is laid only by the nemesis family (properties --family nemesis); under run no scenario's expect could stand`,
    );
  return n;
}

/** The scenarios `--scenario`, `--grep` and `--last-failed` pick; undefined when `--last-failed` finds nothing to run again. */
async function pickOf(opts: RunOpts, catalogue: CatalogueEntry[], nemesis: Nemesis | undefined): Promise<ScenarioPick | undefined> {
  checkScenarioIds(catalogue, opts.scenario);
  let ids = opts.scenario;
  if (opts.lastFailed) {
    const again = lastFailed(opts.out, new Set(catalogue.map((e) => e.scenario.id)), await load.resultsInput(), nemesis);
    if (again.ids.length === 0) {
      // Nothing is left to run again: the previous report stays as it is, and so does its verdict.
      printErr(`a2a-conformance: --last-failed: ${again.said}; nothing to run again (the report in ${opts.out} is left as it is)\n`);
      return undefined;
    }
    ids = opts.scenario ? opts.scenario.filter((id) => again.ids.includes(id)) : again.ids;
    printErr(`a2a-conformance: --last-failed: ${again.said}\n`);
    if (ids.length === 0)
      throw new UsageError(
        `--scenario ${opts.scenario!.join(',')} names none of the scenarios the previous report found unexpected (${again.ids.slice(0, 5).join(', ')}${again.ids.length > 5 ? ', …' : ''})`,
      );
  }
  return { ...(ids ? { ids } : {}), ...(opts.grep ? { grep: opts.grep } : {}) };
}

/** The run itself, its report, and the reporters' files. */
async function executeRun(opts: RunOpts, plan: RunPlan): Promise<void> {
  const { claimOutput, writeFileAtomic } = await load.output();
  const { interruptible } = await load.interrupt();
  const { runConformance } = await load.run();
  const { catalogue, reporterFiles } = plan;
  await reap();
  const out = await claimOutput('--out', opts.out);
  const stop = interruptible((l) => printErr(l + '\n'), 'the run', { onStop: (s) => out.abandon(`it was stopped by ${s}`) });
  const reporter = makeReporters(plan.reporters, {
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
      ...(opts.binding ? { bindings: opts.binding } : {}),
      strict: opts.strict,
      deadlineMultiplier: opts.deadlineMultiplier,
      seed: opts.seed,
      ...(opts.lanes ? { lanes: opts.lanes } : {}),
      workers: opts.workers ?? 'auto',
      expectations: plan.expectations,
      shard: opts.shard,
      signal: stop.signal,
      pick: plan.pick,
      ...(plan.shardTimings ? { shardTimings: plan.shardTimings } : {}),
      bail: opts.bail,
      ...(plan.nemesis ? { nemesis: plan.nemesis } : {}),
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
  // The config file that filled in options, where one did (docs/ci.md): the results say what they were made with.
  let done = usedConfig.file ? { ...results, config: shownPath(process.cwd(), usedConfig.file) } : results;
  const written = await finishWriting(stop, out, async () => {
    if (plan.updateTo) done = await withBaseline(done, plan.updateTo, opts.strict, opts.pinEveryVerdict === true);
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
}

/** `--update-expectations`: the baseline written, and the run judged by it. */
async function withBaseline(done: RunResults, updateTo: string, strict: boolean, every: boolean): Promise<RunResults> {
  const { writeFileAtomic } = await load.output();
  const baseline = (await load.expectations()).baselineFrom(done, { strict }, every);
  await writeFileAtomic(updateTo, JSON.stringify(baseline, null, 2) + '\n');
  printErr(`wrote ${baseline.entries.length} expectation(s) to ${updateTo}\n`);
  // Writing the baseline is the run's purpose, not a failure: judged by it, every verdict is expected.
  const { judge } = await load.expectations();
  const { exitCode } = await load.policy();
  const catalogueIds = [...done.results.map((x) => x.id), ...done.notRun.map((n) => n.id)];
  const { unexpected } = judge(done.results, { strict }, baseline, catalogueIds);
  return { ...done, expectations: baseline, unexpected, exitCode: exitCode(done.results, unexpected) };
}
