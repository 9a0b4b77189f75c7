/** `properties` and `replay`: the property families, and one generated case again. */
import type { Command } from 'commander';
import type { RunResults } from '../../core/results.js';
import { PlaceError, ReplayPathError, RunInterrupted, Stopped, UsageError } from '../../faults.js';
import { checkClientChoice, finishWriting, load, reap, startEarly } from '../context.js';
import { errStatus, print, printErr } from '../io.js';
import type { Binding } from '../../core/protocol/types.js';
import { bindingOption, configOption, noConfigOption, familyList, lanesOf, multiplierOf, shardOf, wholeNumber, workersOf } from '../options.js';

/** The options `properties` and `replay` share, as commander gives them. */
interface PropertyOpts {
  client?: string;
  clientCmd?: string;
  out: string;
  strict: boolean;
  deadlineMultiplier: number;
  lanes?: number;
  workers?: number;
  binding?: Binding[];
  export?: string;
}

/** The options `properties` and `replay` share. */
const propertyCommand = (program: Command, name: string, description: string) =>
  program
    .command(name)
    .description(description)
    .addOption(configOption())
    .addOption(noConfigOption())
    .option('--client <name>', 'a built-in client (reference, naive, a2a-js-sdk, …; see `list --clients`)')
    .option('--client-cmd <command>', 'any other client: a command that speaks the NDJSON protocol (docs/protocol.md)')
    // A folder of its own by default: a property run or a replay never overwrites the run's report (conformance-report).
    .option(
      '--out <dir>',
      'where the report goes: index.html, results.json, junit.xml, summary.md',
      `conformance-${name === 'replay' ? 'replay' : 'properties'}`,
    )
    .addOption(
      Object.assign(bindingOption(), {
        description:
          'tell the generated cases over this protocol binding (JSONRPC, HTTP+JSON, GRPC, or jsonrpc, rest, grpc; repeatable): each case over one of them where its card can be (default: JSONRPC where the client declares it, else its first); replay takes the same to find the same case',
      }),
    )
    .option('--strict', 'a NON_STRICT case fails its family too', false)
    .option('--deadline-multiplier <x>', 'scale every case deadline (slow machines)', multiplierOf, 1)
    .option(
      '--lanes <n>',
      name === 'replay'
        ? 'families replayed at once, each on its own listeners and client (default: 1)'
        : 'cases in flight at once, each on its own listeners and client (default: 8 per core, at most 16, for a built-in client, or 16 per thread where the sweep uses several; 2 per core, at most 8, for --client-cmd)',
      lanesOf,
    )
    .option('--export <file>', 'write each counterexample as a .scenario.json that runs as a plain scenario (--scenarios <file>)');

export function register(program: Command): void {
  propertyCommand(
    program,
    'properties',
    'run the property families: generated cards, profiles, intents and runtimes; a family fails on its first FAIL or TIMEOUT, which is shrunk and can be replayed',
  )
    .option('--family <id>', 'only this family (repeatable, or comma-separated; see `list --families`)', familyList)
    .option('--runs <n>', 'generated cases per family (default 100)', (v) => wholeNumber('--runs', v, 1, 1_000_000))
    .option('--seed <n>', 'the seed of the generated cases (random by default; a fixed seed gives the same cases)', (v) =>
      wholeNumber('--seed', v, 0, 2 ** 31 - 1),
    )
    // A replay runs on this thread: threads are a sweep's.
    .option(
      '--workers <n>',
      "threads the lanes are spread across, this one included (default for a built-in client's sweep of 400 cases or more: one per core, at most 4; else 1; 1 runs every lane on one thread, which holds memory lowest)",
      workersOf,
    )
    .option(
      '--shard <index/count>',
      'sweep one shard of the cases (every count-th, from index-1; the same cases, paths and seeds); merge the shards with `report`',
    )
    .action(async (opts: PropertyOpts & { family?: string[]; runs?: number; seed?: number; shard?: string }) => {
      const shard = opts.shard === undefined ? undefined : shardOf(opts.shard);
      if (shard && opts.seed === undefined) throw new UsageError('--shard needs --seed: every shard must sweep the same cases');
      const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
      await propertyAction(opts, { seed, ...(opts.runs !== undefined ? { runs: opts.runs } : {}), ...(shard ? { shard } : {}) }, opts.family);
    });

  propertyCommand(program, 'replay', 'run one generated case again, by the seed and path a property run printed')
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
    .option('--without-faults', "the nemesis family's case with none of its faults laid: whether they are what it fails on")
    .action(async (opts: PropertyOpts & { family?: string[]; seed: number; path: string; withoutFaults?: boolean }) => {
      if (opts.withoutFaults && !opts.family?.includes('nemesis'))
        throw new UsageError('--without-faults: only the nemesis family lays faults; add --family nemesis');
      await propertyAction(
        { ...opts, lanes: opts.lanes ?? 1 },
        { seed: opts.seed, path: opts.path, ...(opts.withoutFaults ? { withoutFaults: true } : {}) },
        opts.family,
      );
    });
}

/** A replay path's bounds: the first number is a case of at most --runs (1,000,000), the rest shrink steps. */
const MAX_PATH_STEPS = 1000;
const MAX_PATH_NUMBER = 999_999;

/** What `properties` and `replay` do once their options are read. */
async function propertyAction(
  opts: PropertyOpts,
  what: { seed: number; runs?: number; path?: string; withoutFaults?: boolean; shard?: { index: number; count: number } },
  familyIds?: string[],
) {
  // Threads for a built-in client's sweep of 400 cases or more (run.ts), never for a replay.
  const cases = (what.runs ?? 100) * (familyIds?.length || 5);
  await startEarly(opts, opts.clientCmd === undefined && what.path === undefined && cases >= 400);
  await checkClientChoice(opts);
  const { ALL_FAMILIES, FAMILIES } = await load.families();
  const families = familyIds?.length ? ALL_FAMILIES.filter((f) => familyIds.includes(f.id)) : FAMILIES;
  const { checkWritableFile, claimOutput } = await load.output();
  if (opts.export !== undefined && !opts.export.endsWith('.scenario.json'))
    throw new UsageError(`--export must name a .scenario.json file (so --scenarios finds it), got "${opts.export}"`);
  const exportTo = opts.export !== undefined ? checkWritableFile('--export', opts.export, opts.out) : undefined;
  const { interruptible } = await load.interrupt();
  const { propertiesCommand, propertiesSummary } = await load.properties();
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
      ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
      ...(opts.binding?.length ? { bindings: opts.binding } : {}),
      ...(exportTo !== undefined ? { exportTo } : {}),
      signal: stop.signal,
      err: (t) => printErr(t),
      status: { line: errStatus() },
    });
  } catch (err) {
    errStatus().clear();
    stop.dispose();
    if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
    out.abandon(`it failed: ${(err as Error).message}`);
    if (err instanceof ReplayPathError) throw new PlaceError((err as Error).message);
    throw err;
  }
  const done = results;
  const written = await finishWriting(stop, out, () => out.commit(done));
  print(propertiesSummary(results, written));
  process.exitCode = results.exitCode;
}
