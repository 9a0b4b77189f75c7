/**
 * A property run (`a2a-conformance properties`): for each family, `runs` generated cases from one
 * seed, run against the client on lanes, each graded from the wire by the rule its story's
 * `applies()` labels it with. A family fails on the first case (in generation order) whose verdict
 * is FAIL, TIMEOUT or ERROR (NON_STRICT too under `--strict`); that case is shrunk by fast-check,
 * one candidate at a time, and the smallest failing case is kept, full, as the family's
 * counterexample, with the seed and path that replay it. Passing cases are kept compactly.
 *
 * The cases of a seed are fast-check's own: the i-th case is the value its runner generates for
 * path `i`, so `replay --seed --path` and shrinking find exactly the same card, profile and intent.
 */
import fc from 'fast-check';
import type { PropertyCase, PropertyFamilyResult, RunResults, ScenarioResult } from '../../core/results.js';
import { RESULTS_SCHEMA, tallyCases } from '../../core/results.js';
import { bindingProblem } from '../../core/card-binding.js';
import { BINDINGS, type Binding, DEFAULT_PROFILE, type Dialect, type Hello } from '../../core/protocol/types.js';
import { profileFor, unmetConstraint } from '../../core/scenario/profile.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import type { VerdictKind } from '../../core/verdict.js';
import { overlay } from '../../core/scenario/nemesis.js';
import { caseId, caseScenario, familyArbitrary, labelCase, type Family, type GeneratedCase } from '../../properties/family.js';
import type { RuleId } from '../../core/oracle/rules.js';
import { laneClients, laneKind, type ClientChoice } from '../engine/client-factory.js';
import { boundHeap } from '../infrastructure/heap.js';
import { confirm, stretched } from '../judge/confirm.js';
import { openLanePool, type LanePool } from '../engine/lanes.js';
import { openWorkerPool, planThreads } from '../engine/worker-pool.js';
import { harnessVersion } from '../infrastructure/package-root.js';
import { summarize } from '../judge/policy.js';
import { clientOf, greet, inRunFolder, RULESET_VERSION, runBindings, runEnvironment } from '../engine/run.js';
import { capabilityProblem } from '../engine/capability-needs.js';
import { CaseWindow, caseAt, V1 } from './cases.js';

export { caseAt, generateCases } from './cases.js';

/** Cases per family when `--runs` is not given. */
const DEFAULT_RUNS = 100;
/**
 * From how many cases a run spreads its lanes across worker threads by default: a worker thread
 * costs its start (loading the harness again: about 0.4 s installed, 1.5 s from the TypeScript
 * sources) and a second heap, which a short run does not win back.
 */
const WORKERS_FROM_CASES = 400;
/** How long a family may spend shrinking before it keeps the smallest case found so far. */
const SHRINK_BUDGET_MS = 120_000;

export interface PropertyRunOptions extends ClientChoice {
  families: Family[];
  runs?: number;
  seed: number;
  /** Replay: run only this path of each family (no sweep, no shrinking). */
  path?: string;
  /** Replay: the case with none of its nemesis faults laid, to show whether they are what it fails on. */
  withoutFaults?: boolean;
  /**
   * `--shard i/n`: this run sweeps the cases whose index is i-1 modulo n (the same cases, paths and
   * seeds as the whole run's); `report` merges the shards into the whole run.
   */
  shard?: { index: number; count: number };
  strict?: boolean;
  deadlineMultiplier?: number;
  lanes?: number;
  /**
   * Threads the lanes are spread across, this one included (worker-pool.ts). `auto` (the CLI's
   * default): one per core, at most 4, for a built-in client's sweep of 400 cases or more, else 1.
   * Absent (the programmatic API's default): 1.
   */
  workers?: number | 'auto';
  shrinkBudgetMs?: number;
  /** The client options as the user gave them, for the replay command (`--client reference`, `--client-cmd "…"`). */
  clientArgs?: string;
  /** `--binding`: tell the cases over these bindings (runBindings: each must be one the client declares; default JSON-RPC where it declares it, else its first). */
  bindings?: readonly Binding[];
  signal?: AbortSignal;
  /** Once the client has said hello: the bindings the cases are told over (in card names' order). */
  onHello?: (bindings: readonly Binding[]) => void;
  onCase?: (family: string, done: number, total: number, c: PropertyCase, failing: boolean) => void;
  onShrink?: (family: string, step: number, r: ScenarioResult) => void;
  onFamily?: (f: PropertyFamilyResult) => void;
}

/** The dialects a client speaks, as its hello declares them (none declared: v1.0). */
const dialectsOf = (hello: Hello): readonly Dialect[] => hello.dialects ?? V1;

/** How a run tells its cases: the client's dialects, the bindings (card names' order), and the replay command's `--binding` for them. */
interface Telling {
  dialects: readonly Dialect[];
  bindings: readonly Binding[];
  /** ` --binding GRPC` where the bindings are not the client's default ones; else empty. */
  bindingArg: string;
}

/** The run's telling, for this client and the bindings asked (a UsageError for one it does not declare). */
function tellingFor(hello: Hello, asked: readonly Binding[] | undefined): Telling {
  const inOrder = (bs: readonly Binding[]) => BINDINGS.filter((b) => bs.includes(b));
  const bindings = inOrder(runBindings(hello, asked));
  const byDefault = inOrder(runBindings(hello, undefined));
  return { dialects: dialectsOf(hello), bindings, bindingArg: bindings.join(',') === byDefault.join(',') ? '' : ` --binding ${bindings.join(',')}` };
}

/** Whether a verdict fails a family: FAIL, TIMEOUT and ERROR always; NON_STRICT under --strict. */
function failsProperty(v: VerdictKind, strict: boolean): boolean {
  return v === 'FAIL' || v === 'TIMEOUT' || v === 'ERROR' || (strict && v === 'NON_STRICT');
}

/** A word as a POSIX shell reads it back unchanged: bare where that is safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command that replays a counterexample (`bindingArg`: Telling's). */
function replayCommand(family: string, seed: number, path: string, clientArgs: string, bindingArg = ''): string {
  return `npx a2a-conformance replay ${clientArgs}${bindingArg} --family ${family} --seed ${seed} --path ${path}`;
}

export async function runProperties(o: PropertyRunOptions): Promise<RunResults> {
  return inRunFolder(o.signal, async (folder) => {
    const started = Date.now();
    const strict = o.strict === true;
    const choice = { client: o.client, clientCmd: o.clientCmd, ...(o.adapter ? { adapter: o.adapter } : {}), cwd: o.cwd ?? process.cwd(), runDir: folder.dir };
    const { hello, pkiDir, pems } = await greet(choice, folder, o.signal);
    const telling = tellingFor(hello, o.bindings);
    o.onHello?.(telling.bindings);
    const deadlineMultiplier = o.deadlineMultiplier ?? 1;
    const laneProblems: string[] = [];
    // A sweep of a built-in client's spreads its lanes across worker threads too (worker-pool.ts: a worker
    // thread makes the client by name; a --client-cmd client's processes are registered, for the run's
    // cleanup, on the thread that starts them); a replay runs one case, here.
    const cases = ((o.runs ?? DEFAULT_RUNS) * o.families.length) / (o.shard?.count ?? 1);
    const { threads: workers, lanes } = planThreads({
      ...(o.workers !== undefined ? { workers: o.workers } : {}),
      ...(o.lanes !== undefined ? { lanes: o.lanes } : {}),
      threadsAllowed: !!o.client && !o.adapter && o.path === undefined,
      long: cases >= WORKERS_FROM_CASES,
      kind: laneKind(choice, hello),
    });
    const env = { pkiDir, pems, hello, idSalt: String(o.seed), deadlineMultiplier };
    const onError = (m: string) => laneProblems.push(m);
    const kill = o.signal ? { kill: o.signal } : {};
    const openLocal = (n: number) => openLanePool({ lanes: n, env, client: laneClients(choice, hello), ...kill, onError });
    const pool =
      workers > 1
        ? await openWorkerPool({
            workers,
            lanes,
            env,
            choice: { client: choice.client, clientCmd: choice.clientCmd, cwd: choice.cwd, runDir: choice.runDir },
            openLocal,
            ...kill,
            onError,
          })
        : await openLocal(lanes);
    const families: PropertyFamilyResult[] = [];
    const results: ScenarioResult[] = [];
    const unbound = boundHeap(workers);
    try {
      for (const family of o.families) {
        if (o.signal?.aborted) break;
        const run =
          o.path !== undefined ? await replayFamily(family, o, hello, telling, pool, strict) : await sweepFamily(family, o, hello, telling, pool, strict);
        families.push(run.family);
        if (run.result) results.push(run.result);
        o.onFamily?.(run.family);
      }
    } finally {
      unbound();
      await pool.close();
    }
    const laneHistory = { ...pool.history };
    const failed = families.filter((f) => f.failed);
    const ran = families.reduce((n, f) => n + f.ran, 0);
    const unexpected = results
      .filter((r) => failsProperty(r.verdict, strict))
      .map((r) => ({
        id: r.id,
        verdict: r.verdict,
        why: `the ${r.property?.family ?? ''} family failed on this case${r.verdict === 'NON_STRICT' ? ' (NON_STRICT under --strict)' : ''}`,
      }));
    return {
      schema: RESULTS_SCHEMA,
      harness: { name: 'a2a-conformance', version: harnessVersion() },
      ruleset: RULESET_VERSION,
      environment: runEnvironment(),
      client: clientOf(hello),
      seed: String(o.seed),
      shard: o.shard ? `${o.shard.index}/${o.shard.count}` : null,
      strict,
      deadlineMultiplier,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      results,
      notRun: laneProblems.map((m) => ({ id: '*', reason: m })),
      summary: summarize(results),
      expectations: null,
      unexpected,
      // 2 for a harness fault; 1 for a failed family, or when no case ran at all; else 0.
      exitCode: results.some((r) => r.verdict === 'ERROR') ? 2 : failed.length > 0 || (ran === 0 && !o.shard) ? 1 : 0,
      properties: families,
      lanes: laneHistory,
    };
  });
}

interface FamilyRun {
  family: PropertyFamilyResult;
  result?: ScenarioResult;
}

/** A case as the scenario the client runs: labelled for this client's profile; undefined where a fixed profile cannot run it. */
export function toScenario(family: Family, c: GeneratedCase, id: string, hello: Hello, multiplier = 1): Scenario | undefined {
  if (hello.profile && unmetConstraint(hello.profile, c.profileConstraints)) return undefined;
  // A signed case stays v1.0, which a v0.3-only client does not speak: not run, as `run` lists such scenarios.
  if (!dialectsOf(hello).includes(c.dialect ?? 'a2a-v1')) return undefined;
  const profile = hello.profile ?? profileFor(DEFAULT_PROFILE, c.profileConstraints, hello.extensions ?? []);
  const s = caseScenario(family, c, id, labelCase(c, profile), multiplier);
  // A case that stayed JSON-RPC (it cannot be told over the run's bindings), for a client that does not declare JSON-RPC,
  // or one whose premise needs a capability the client declares absent: not run, as `run` does not run such a scenario.
  return bindingProblem(hello.profile?.bindings ?? hello.bindings, s) || capabilityProblem(hello, s) ? undefined : s;
}

function tally(family: Family, o: PropertyRunOptions, telling: Telling, cases: PropertyCase[], started: number): PropertyFamilyResult {
  return {
    family: family.id,
    title: family.title,
    rules: family.rules,
    seed: o.seed,
    runs: o.runs ?? DEFAULT_RUNS,
    ...(telling.bindings.join() !== 'JSONRPC' ? { bindings: [...telling.bindings] } : {}),
    ...tallyCases(cases),
    failed: false,
    cases,
    durationMs: Date.now() - started,
  };
}

const compact = (path: string, c: GeneratedCase, r: ScenarioResult): PropertyCase => ({
  path,
  story: c.story,
  rule: r.rule,
  verdict: r.verdict,
  ...(c.drifts.length ? { drifts: c.drifts } : {}),
  ...(c.dialect ? { dialect: c.dialect } : {}),
  ...(c.binding ? { binding: c.binding } : {}),
  ...(c.nemesis ? { faults: c.nemesis.faults } : {}),
  durationMs: r.durationMs,
  ...(r.lag?.lagged ? { lag: r.lag } : {}),
  ...(r.attempts?.length ? { attempts: r.attempts } : {}),
});

/**
 * A case run on the pool; a failure met while the harness lagged runs again on the drained pool
 * (confirm.ts) before it can fail its family.
 */
async function runCase(pool: LanePool, s: Scenario, strict: boolean, multiplier: number): Promise<ScenarioResult> {
  return confirm(
    await pool.run(s),
    (ms) => pool.runAlone(stretched(s, ms, multiplier)),
    (r) => failsProperty(r.verdict, strict),
  );
}

async function sweepFamily(family: Family, o: PropertyRunOptions, hello: Hello, telling: Telling, pool: LanePool, strict: boolean): Promise<FamilyRun> {
  const started = Date.now();
  const runs = o.runs ?? DEFAULT_RUNS;
  // Generated a window at a time as the lanes take them: a run of any size holds one window of cases.
  const cases = new CaseWindow(family, o.seed, runs, telling.dialects, telling.bindings);
  const done: Array<PropertyCase | undefined> = new Array(runs);
  // The indices this run sweeps, in order: all of them, or one shard's (every n-th, so each shard gets every story).
  const all = Array.from({ length: runs }, (_, i) => i);
  const mine = o.shard ? all.filter((i) => i % o.shard!.count === o.shard!.index - 1) : all;
  let firstFailure = Number.POSITIVE_INFINITY;
  /** The failing runs of the sweep and their cases, by index: the first one stands if shrinking cannot make it fail again. */
  const failures = new Map<number, { r: ScenarioResult; c: GeneratedCase }>();
  let next = 0;
  let count = 0;
  const failing = (x: ScenarioResult) => failsProperty(x.verdict, strict);
  /** Confirmations under way (confirm.ts), by case index: whether the failure stood. */
  const confirming = new Map<number, Promise<boolean>>();
  /**
   * A failure met while the harness lagged is confirmed on the drained pool, in case order: only one
   * that can still be the family's first needs it, so a later case waits for the earlier
   * confirmations and is left as it came once one of them stands (it changes nothing then).
   */
  const confirmInOrder = async (i: number, ran: ScenarioResult, s: Scenario): Promise<ScenarioResult> => {
    if (!failing(ran) || i > firstFailure) return ran;
    for (const [, stood] of [...confirming].filter(([k]) => k < i).sort((a, b) => a[0] - b[0])) if (await stood) return ran;
    if (i > firstFailure) return ran;
    const p = confirm(ran, (ms) => pool.runAlone(stretched(s, ms, o.deadlineMultiplier ?? 1)), failing);
    // Awaited by later cases only: a confirmation that fails (the pool closed by a signal) must not go unhandled.
    confirming.set(
      i,
      p.then(failing, () => true),
    );
    return p;
  };
  // Lanes take the cases in order; after a failure no later case starts (an earlier one still in flight may fail first).
  const worker = async () => {
    while (next < mine.length && mine[next]! < firstFailure && !o.signal?.aborted) {
      const i = mine[next++]!;
      const c = cases.at(i);
      const s = toScenario(family, c, caseId(family.id, o.seed, String(i)), hello, o.deadlineMultiplier);
      if (!s) continue;
      const ran = await pool.run(s);
      const r = await confirmInOrder(i, ran, s);
      const pc = compact(String(i), c, r);
      done[i] = pc;
      const failing = failsProperty(r.verdict, strict);
      if (failing) {
        firstFailure = Math.min(firstFailure, i);
        failures.set(i, { r, c });
      }
      o.onCase?.(family.id, ++count, mine.length, pc, failing);
    }
  };
  await Promise.all(Array.from({ length: pool.size }, worker));
  const ran = done.filter((x): x is PropertyCase => x !== undefined);
  const summary = tally(family, o, telling, ran, started);
  if (!Number.isFinite(firstFailure) || o.signal?.aborted) return { family: summary };

  // Shrink from the first failure, one candidate at a time: the last candidate that failed is the counterexample.
  const shrinkStarted = Date.now();
  let last: ScenarioResult | undefined;
  let steps = 0;
  const details = await fc.check(
    fc.asyncProperty(familyArbitrary(family, telling.dialects, telling.bindings), async (c) => {
      if (o.signal?.aborted) return true;
      const s = toScenario(family, c, caseId(family.id, o.seed, 'shrinking'), hello, o.deadlineMultiplier);
      if (!s) return true;
      const r = await runCase(pool, s, strict, o.deadlineMultiplier ?? 1);
      if (!failsProperty(r.verdict, strict)) return true;
      last = r;
      o.onShrink?.(family.id, ++steps, r);
      return false;
    }),
    // numRuns 1: the case at the path and its shrinks only; without it, a case that passes on replay
    // would have fast-check run on through the rest of the seed's cases.
    { seed: o.seed, path: String(firstFailure), numRuns: 1, interruptAfterTimeLimit: o.shrinkBudgetMs ?? SHRINK_BUDGET_MS, markInterruptAsFailure: false },
  );
  // No candidate failed: the case the sweep saw fail did not fail again (a TIMEOUT of a loaded
  // machine, typically), or a signal stopped the run before shrinking replayed it. Either way its own
  // failing run is the counterexample, never a re-run; the first is said to be unreproduced.
  const stopped = !last && o.signal?.aborted === true;
  const first = failures.get(firstFailure)!;
  const c = last ? ((details.counterexample?.[0] as GeneratedCase | undefined) ?? first.c) : first.c;
  const path = last ? (details.counterexamplePath ?? String(firstFailure)) : String(firstFailure);
  const counterexample = finish(
    family,
    o,
    telling,
    c,
    last ?? first.r,
    path,
    String(firstFailure),
    last ? details.numShrinks : 0,
    last ? details.interrupted : stopped,
    !!last || stopped,
  );
  return {
    family: { ...summary, failed: true, counterexample: counterexample.id, durationMs: Date.now() - started, shrinkMs: Date.now() - shrinkStarted },
    result: counterexample,
  };
}

async function replayFamily(family: Family, o: PropertyRunOptions, hello: Hello, telling: Telling, pool: LanePool, strict: boolean): Promise<FamilyRun> {
  const started = Date.now();
  const path = o.path!;
  const generated = caseAt(family, o.seed, path, telling.dialects, telling.bindings);
  const c = o.withoutFaults ? { ...generated, nemesis: undefined } : generated;
  const s = toScenario(family, c, caseId(family.id, o.seed, path), hello, o.deadlineMultiplier);
  if (!s) return { family: { ...tally(family, o, telling, [], started), runs: 1 } };
  const r = await runCase(pool, s, strict, o.deadlineMultiplier ?? 1);
  const summary = { ...tally(family, o, telling, [compact(path, c, r)], started), runs: 1 };
  const failing = failsProperty(r.verdict, strict);
  const result = finish(family, o, telling, c, r, path, path, 0, false);
  return { family: { ...summary, failed: failing, counterexample: result.id }, result };
}

/** The counterexample's result: its id from the seed and path, and how to replay it. */
function finish(
  family: Family,
  o: PropertyRunOptions,
  telling: Telling,
  c: GeneratedCase,
  r: ScenarioResult,
  path: string,
  firstFailure: string,
  shrinks: number,
  interrupted: boolean,
  reproduced = true,
): ScenarioResult {
  const id = caseId(family.id, o.seed, path);
  // The nemesis family's counterexample keeps what its schedule laid and left, as a `run --nemesis` result does.
  const applied = c.nemesis
    ? overlay(caseScenario(family, { ...c, nemesis: undefined }, id, r.rule as RuleId), c.nemesis, o.deadlineMultiplier ?? 1, false).applied
    : undefined;
  return {
    ...r,
    id,
    ...(applied ? { nemesis: applied } : {}),
    property: {
      family: family.id,
      seed: o.seed,
      path,
      firstFailure,
      shrinks,
      ...(interrupted ? { shrinkInterrupted: true } : {}),
      ...(reproduced ? {} : { notReproduced: true }),
      story: c.story,
      drifts: c.drifts,
      replay:
        replayCommand(
          family.id,
          o.seed,
          path,
          o.clientArgs ?? (o.clientCmd ? `--client-cmd ${shellWord(o.clientCmd)}` : `--client ${shellWord(o.client ?? 'reference')}`),
          telling.bindingArg,
        ) + (o.withoutFaults && !c.nemesis ? ' --without-faults' : ''),
      scenario: caseScenario(family, c, id, r.rule as RuleId),
    },
  };
}
