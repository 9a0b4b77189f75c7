/**
 * One conformance run: load the catalogue, greet the client, select scenarios, make the PKI, run the
 * scenarios on lanes in this process (lanes.ts), and assemble `results.json` with its exit code.
 */
import { randomBytes } from 'node:crypto';
import { clientLabel, createClient, type ClientChoice } from './client-factory.js';
import type { ControlRecord, RunResults, ScenarioResult } from '../../core/results.js';
import { RESULTS_SCHEMA } from '../../core/results.js';
import type { Binding, Dialect } from '../../core/protocol/types.js';
import type { Hello } from '../../core/protocol/types.js';
import { helloProblem } from '../../adapters/contract.js';
import { CLIENT_KEYS, type Pki, writePki } from '../../pki/index.js';
import { takePki } from '../infrastructure/pki-early.js';
import { loadCatalogue, type CatalogueEntry } from '../load/catalogue.js';
import { harnessVersion } from '../infrastructure/package-root.js';
import { exitCode, summarize } from '../judge/policy.js';
import { judge, type Expectations } from '../judge/expectations.js';
import { compileGlob, globProblem } from '../../core/glob.js';
import { shardScenarios } from './lanes.js';
import { selectScenarios, type ScenarioPick } from './select.js';
import { type Nemesis, type NemesisApplied, overlay } from '../../core/scenario/nemesis.js';
import { errorResult, runRounds } from './rounds.js';
import { creditDialect, needsControl } from './dialect.js';
import { runControl } from './control.js';
import { closeRunFolder, openRunFolder, type RunFolder } from '../infrastructure/workspace.js';
import { ClientFault, RunInterrupted, UsageError } from '../../faults.js';
import { tellOver } from '../../core/card-binding.js';
import { RULESET_VERSION } from '../../core/oracle/rules.js';
import { arch, availableParallelism, platform, release } from 'node:os';
import type { RunEnvironment } from '../../core/results.js';

/** The ruleset in force: the registry's (harness/core/oracle/rules.ts), named here too for the runner's callers. */
export { RULESET_VERSION };

export interface RunOptions extends ClientChoice {
  files: string[];
  /** The catalogue of `files`, when the caller has loaded (and so checked) it already. */
  catalogue?: CatalogueEntry[];
  rules?: string[];
  /** Only the scenarios whose peer speaks this dialect (`--dialect`). */
  dialect?: Dialect;
  /** The bindings to tell the scenarios over (`--binding`); absent: JSON-RPC where the client declares it, else its first (harness/core/card-binding.ts). */
  bindings?: Binding[];
  /** Only these ids, or those whose id or title matches (`--scenario`, `--grep`). */
  pick?: ScenarioPick;
  /** Stop after the first unexpected verdict (`--bail`): no new scenario starts; the rest are listed as not run. */
  bail?: boolean;
  strict?: boolean;
  deadlineMultiplier?: number;
  /** Salt of the opaque scenario ids (random when absent). */
  seed?: string;
  /** Each result as it comes: its place, and whether it is unexpected (by the expectations and --strict). */
  onProgress?: (done: number, total: number, r: ScenarioResult, unexpected: boolean) => void;
  /** A scenario started (its id). */
  onStart?: (scenarioId: string) => void;
  /** A failure met while the harness lagged: it runs again on a drained lane before it is reported. */
  onDeferred?: (done: number, total: number, r: ScenarioResult) => void;
  /** The harness ran its control exchange (no scenario showed the client speaking A2A): what it found. */
  onControl?: (control: ControlRecord[]) => void;
  expectations?: Expectations;
  /** `<index>/<count>`: run only this shard of the selected scenarios (balanced by cost: lanes.ts shardScenarios). */
  shard?: string;
  /** What each scenario took in an earlier run (`--shard-timings`), by id: the shards are balanced by it. */
  shardTimings?: ReadonlyMap<string, number>;
  /** Scenarios in flight at once, each on its own listeners and client (`--lanes`; defaultLanes() when absent). */
  lanes?: number;
  /** Threads the lanes are spread across, this one included (`--workers`; `auto`: the CLI's default; absent: 1; rounds.ts). */
  workers?: number | 'auto';
  /** Aborting stops the run: its processes are killed, its folder removed, and RunInterrupted thrown. */
  signal?: AbortSignal;
  /** Faults laid over every scenario's peer where its story leaves room (`--nemesis`; harness/core/scenario/nemesis.ts). */
  nemesis?: Nemesis;
}

const interrupted = (signal: AbortSignal) => new RunInterrupted(`interrupted (${String(signal.reason ?? 'aborted')})`);

export async function runConformance(o: RunOptions): Promise<RunResults> {
  const catalogue = o.catalogue ?? (await loadCatalogue(o.files));
  return inRunFolder(o.signal, (folder) => runIn(folder, catalogue, o));
}

/**
 * Runs `work` in a run folder of its own: everything it writes or starts belongs to the folder,
 * removed on every exit path; an abort of `signal` settles it at once with RunInterrupted.
 */
export async function inRunFolder<T>(signal: AbortSignal | undefined, work: (folder: RunFolder) => Promise<T>): Promise<T> {
  // Nothing of the process changes: what the run starts (the client and what it starts) is handed the
  // run's mark (after a SIGKILL of this process the next run finds them) and the run's folder as its
  // temp folder (harness/adapters/child.ts), so runs in one process stand apart.
  const folder = await openRunFolder('run');
  try {
    // An abort settles the run at once; the finally below kills its processes and removes its folder.
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(interrupted(signal));
      signal?.addEventListener('abort', () => reject(interrupted(signal)), { once: true });
    });
    aborted.catch(() => {});
    const results = await Promise.race([work(folder), aborted]);
    if (signal?.aborted) throw interrupted(signal);
    return results;
  } finally {
    await closeRunFolder(folder);
  }
}

/** Greets the client (one process, closed after hello) while the run's PKI is made; checks the hello. */
export async function greet(
  choice: ClientChoice & { cwd: string; runDir: string },
  folder: RunFolder,
  signal?: AbortSignal,
): Promise<{ hello: Hello; pkiDir: string; pems: Pki }> {
  const adapter = createClient(choice);
  // The PKI is made while the client starts and says hello: on a worker thread where the CLI started
  // it before loading the catalogue (pki-early.ts), else here.
  const pkiSoon = takePki();
  pkiSoon.catch(() => {});
  let hello: Hello;
  try {
    hello = await adapter.hello();
  } finally {
    await adapter.close?.();
  }
  const problem = helloProblem(hello);
  if (problem) throw new ClientFault(`the client ${clientLabel(choice)} answered hello badly: ${problem}`);
  if (signal?.aborted) throw interrupted(signal);
  // In the client's reach (its TMPDIR is the run folder) only the keys it is meant to use; the rest stay in memory.
  const pems = await pkiSoon;
  const pki = await writePki(pems, folder.pkiDir, CLIENT_KEYS);
  return { hello, pkiDir: pki.dir, pems };
}

/**
 * The bindings a run tells its scenarios over: those asked for (each one the client declares, or a
 * usage error), else JSON-RPC where the client declares it (none declared: it is assumed), else the
 * first binding it declares.
 */
export function runBindings(hello: Pick<Hello, 'bindings' | 'profile'>, asked: readonly Binding[] | undefined): Binding[] {
  const declared = hello.profile?.bindings ?? hello.bindings ?? ['JSONRPC'];
  if (asked?.length) {
    const missing = asked.filter((b) => !declared.includes(b));
    if (missing.length)
      throw new UsageError(
        `--binding ${missing.join(', ')}: the client declares ${declared.join(', ')} (hello.bindings); tell the scenarios over a binding it speaks`,
      );
    return [...new Set(asked)];
  }
  return [declared.includes('JSONRPC') ? 'JSONRPC' : declared[0]!];
}

/** Where this run runs (results.json's `environment`). */
export function runEnvironment(): RunEnvironment {
  return { node: process.version, platform: platform(), release: release(), arch: arch(), cpus: availableParallelism() };
}

/** The run's client, as results.json records it. */
export function clientOf(hello: Hello): RunResults['client'] {
  return {
    name: hello.name,
    version: hello.version,
    profile: hello.profile,
    taskClasses: hello.taskClasses,
    ...(hello.extensions ? { extensions: hello.extensions } : {}),
    ...(hello.dialects ? { dialects: hello.dialects } : {}),
    ...(hello.dialectsPerRun ? { dialectsPerRun: true } : {}),
    ...(hello.notImplemented?.length ? { notImplemented: hello.notImplemented } : {}),
    ...(hello.bindings ? { bindings: hello.bindings } : {}),
    ...(hello.concurrency ? { concurrency: hello.concurrency } : {}),
    ...(hello.glue?.length ? { glue: hello.glue } : {}),
  };
}

/** A result with the notes of the client's glue that name its scenario (Hello.glue): attribution only, never a verdict. */
export function withGlue(r: ScenarioResult, glue: Hello['glue']): ScenarioResult {
  return glueNotes(glue)(r);
}

/**
 * The glue's globs compiled once, for every result of a run. They come from the client: a glob past
 * the limits (harness/core/glob.ts) names nothing rather than costing the run its time (hello's
 * check refuses them first: helloProblem).
 */
function glueNotes(glue: Hello['glue']): (r: ScenarioResult) => ScenarioResult {
  const compiled = (glue ?? []).map((g) => ({ note: g.note, match: g.scenarios.filter((p) => !globProblem(p)).map(compileGlob) }));
  return (r) => {
    const notes = compiled.filter((g) => g.match.some((m) => m(r.id))).map((g) => g.note);
    return notes.length ? { ...r, glue: notes } : r;
  };
}

async function runIn(folder: RunFolder, untold: CatalogueEntry[], o: RunOptions): Promise<RunResults> {
  const started = Date.now();
  const choice = { client: o.client, clientCmd: o.clientCmd, ...(o.adapter ? { adapter: o.adapter } : {}), cwd: o.cwd ?? process.cwd(), runDir: folder.dir };
  const { hello, pkiDir, pems } = await greet(choice, folder, o.signal);
  // The scenarios as told over the run's bindings (the catalogue tells them over JSON-RPC).
  const catalogue = tellOver(untold, runBindings(hello, o.bindings));

  const { selected, notRun } = selectScenarios(catalogue, hello, o.rules, o.dialect, o.pick);

  const seed = o.seed ?? randomBytes(4).toString('hex');
  const deadlineMultiplier = o.deadlineMultiplier ?? 1;
  const fileOf = new Map(catalogue.map((e) => [e.scenario.id, e.file]));
  // With a shard, this run takes its share of the selected scenarios, balanced by their cost.
  const inShard = o.shard
    ? shardScenarios(
        selected.map((e) => e.scenario),
        o.shard,
        o.shardTimings,
      )
    : undefined;
  const ranHere = (e: CatalogueEntry) => !inShard || inShard.has(e.scenario.id);
  // A nemesis lays its faults on each scenario's peer where its story leaves room (harness/core/scenario/nemesis.ts).
  const laid = new Map<string, NemesisApplied>();
  const here = selected.filter(ranHere).map((e) => {
    if (!o.nemesis) return e;
    const { scenario, applied } = overlay(e.scenario, o.nemesis, o.deadlineMultiplier ?? 1);
    laid.set(e.scenario.id, applied);
    return { ...e, scenario };
  });
  const policy = { strict: o.strict === true };
  const ids = catalogue.map((e) => e.scenario.id);
  const { results, laneProblem, lanes, bailedAfter } = await runRounds(here, { ...o, choice, hello, pkiDir, pems, seed, deadlineMultiplier, policy, fileOf });
  // With a shard, scenarios of other shards are not run here (`report` merges the shards).
  for (const e of selected) if (!ranHere(e)) notRun.push({ id: e.scenario.id, reason: `in another shard than ${o.shard}` });
  // After --bail, what never finished was never started (or was canceled): not run, with the reason.
  if (bailedAfter !== undefined)
    for (const e of selected)
      if (ranHere(e) && !results.has(e.scenario.id))
        notRun.push({ id: e.scenario.id, reason: `not run: --bail stopped the run after the unexpected verdict of ${bailedAfter}` });
  const ran = selected.filter((e) => ranHere(e) && (bailedAfter === undefined || results.has(e.scenario.id)));
  for (const e of ran) if (!results.has(e.scenario.id)) results.set(e.scenario.id, errorResult(e, laneProblem ?? 'no result came back from the scenario run'));

  const { ordered: credited, control } = await creditRun(
    ran.map((e) => results.get(e.scenario.id)!),
    () => runControl({ choice, hello, pkiDir, pems, idSalt: seed, deadlineMultiplier, ...(o.signal ? { signal: o.signal } : {}) }),
    o.signal,
  );
  if (control) o.onControl?.(control);
  const ordered = credited.map(glueNotes(hello.glue)).map((r) => (laid.has(r.id) ? { ...r, nemesis: laid.get(r.id)! } : r));
  const { unexpected } = judge(ordered, policy, o.expectations, ids);
  // More shards than scenarios leaves a shard with none: nothing there to grade, and nobody at
  // fault. It exits 0; the merge (`report`) grades the run as a whole.
  const emptyShard = o.shard !== undefined && selected.length > 0 && ran.length === 0 && bailedAfter === undefined;
  return {
    schema: RESULTS_SCHEMA,
    harness: { name: 'a2a-conformance', version: harnessVersion() },
    ruleset: RULESET_VERSION,
    environment: runEnvironment(),
    client: clientOf(hello),
    seed,
    shard: o.shard ?? null,
    strict: policy.strict,
    deadlineMultiplier,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    results: ordered,
    notRun,
    summary: summarize(ordered),
    expectations: o.expectations ?? null,
    unexpected,
    exitCode: emptyShard ? 0 : exitCode(ordered, unexpected),
    ...(control ? { control } : {}),
    ...(lanes ? { lanes } : {}),
    ...(o.nemesis ? { nemesis: o.nemesis } : {}),
  };
}

/**
 * What a run's verdicts depend on across its scenarios: the dialect credit. Where no scenario showed
 * the client speaking A2A, the harness shows it itself (`control`, control.ts), so a scenario run
 * alone gets the verdict it gets in the full run.
 */
export async function creditRun(
  raw: ScenarioResult[],
  control: () => Promise<ControlRecord[]>,
  signal?: AbortSignal,
): Promise<{ ordered: ScenarioResult[]; control?: ControlRecord[] }> {
  const ran = needsControl(raw) && !signal?.aborted ? await control() : undefined;
  return { ordered: creditDialect(raw, ran?.find((c) => c.spoke) ?? ran?.at(-1)), ...(ran ? { control: ran } : {}) };
}
