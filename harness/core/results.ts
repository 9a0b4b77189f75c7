/**
 * The results model (`a2a-conformance/results@1`, docs/results.schema.json). Reports are rendered from this
 * alone. JSON Schema: docs/results.schema.json. Change it only by addition.
 */
import type { Fault, Nemesis, NemesisApplied } from './scenario/nemesis.js';
import type { AbsentCapability } from './protocol/capabilities.js';
import type { PeerRuntime } from './scenario/runtime.js';
import type { Scenario } from './scenario/scenario.js';
import type { TaskRecord, WireEvent } from './transcript.js';
import type { Binding, ClientProfile, ClientReport, Dialect, GlueChoice, TaskClass, TaskIntent } from './protocol/types.js';
import type { Check, VerdictKind } from './verdict.js';

export const RESULTS_SCHEMA = 'a2a-conformance/results@1';

/** The check that gave a result its verdict (or `verdict`, where an expectation speaks of another): the first with it. */
export function checkBehind(r: Pick<ScenarioResult, 'checks' | 'verdict'> | undefined, verdict: VerdictKind | undefined = r?.verdict): Check | undefined {
  return r?.checks.find((c) => c.verdict === verdict);
}

/** A card signature as the harness read it (harness/runner/judge/signature-status.ts): for the report, never graded. */
export interface SignatureStatus {
  alg: string;
  kid: string;
  jku?: string;
  /** The JWKS of the peer's that lists the kid. */
  publishedAt?: string;
  /** The validity window of the key's x5c certificate. */
  keyWindow?: string;
  harness: 'verifies' | 'verifies, but the key is outside its window' | 'does not verify';
  why?: string;
}

/** How much the harness itself lagged while a run was in flight (harness/net/lag.ts). */
export interface LagRecord {
  /** The longest the harness's event loop was late, in ms. */
  loopDelayMaxMs: number;
  /** The share of the loop's samples that were late beyond the threshold. */
  loopDelayOverShare?: number;
  /** How late the loop ran in all, summed over the samples: time the harness did not answer on schedule. */
  loopLostMs?: number;
  /** Time the harness's main thread waited for a core (Linux only). */
  runQueueWaitMs?: number;
  wallMs: number;
  /** Over a threshold: a TIMEOUT or FAIL is confirmed on a drained lane before it is reported. */
  lagged: boolean;
  why?: string;
}

/** An earlier attempt of a scenario run (or property case): the verdict it got while the harness lagged, kept beside the one reported. */
export interface Attempt {
  verdict: VerdictKind;
  /** The check that gave it, in a line. */
  reason: string;
  lag: LagRecord;
  durationMs: number;
  /** The client's deadline in this attempt (absent in results written before it was kept): its re-run's is longer by what the harness owed this one. */
  deadlineMs?: number;
}

export interface ScenarioResult {
  id: string;
  /** The opaque id the client saw. */
  opaqueId: string;
  rule: string;
  title: string;
  description: string;
  expectation: string;
  spec: string;
  /** The verdict the reference client must get. */
  expect: VerdictKind;
  verdict: VerdictKind;
  checks: Check[];
  card: Record<string, unknown>;
  cardPointers: string[];
  /** The peer: its factory, its runtime, and the dialect it spoke (absent in results before issue 11: A2A v1.0). */
  peer: { factory: string; runtime: PeerRuntime; dialect?: Dialect };
  profile: ClientProfile;
  intent: TaskIntent;
  claims: ClientReport | null;
  /** How the client's run ended: reported, timeout, crashed (with the reason), or not run. */
  outcome: { kind: 'reported' | 'timeout' | 'crashed' | 'unsupported' | 'error'; reason?: string };
  transcript: WireEvent[];
  ledger: TaskRecord[];
  stderr?: string;
  deadlineMs: number;
  durationMs: number;
  /** Scenario file it came from, relative to the catalogue root. */
  file?: string;
  /** The served card's signatures as the harness read them (signed cards only). */
  signatures?: SignatureStatus[];
  /** For the counterexample of a property family: how to find it again (docs/properties.md). */
  property?: PropertyCounterexample;
  /** How much the harness lagged during this run. */
  lag?: LagRecord;
  /**
   * Earlier attempts of this scenario: a TIMEOUT or FAIL it got while the harness lagged, after which
   * it ran again on a drained lane; the verdict above is that re-run's (docs/rules.md, principle 7).
   */
  attempts?: Attempt[];
  /** What the client's hello says of this scenario's verdict: a choice of its glue, not of the library under it (Hello.glue). */
  glue?: string[];
  /** The run's nemesis on this scenario (`run --nemesis`): the faults laid on its peer, those left, what its deadline grew by. */
  nemesis?: NemesisApplied;
  /**
   * Why some of this result's data is missing: it could not be written (it did not serialise), so the
   * fields that could not are empty and the rest of the run's report is whole (reports/bound.ts).
   */
  unrendered?: string;
}

/** The shrunk case a property family failed on, with everything that reproduces it. */
export interface PropertyCounterexample {
  family: string;
  /** fast-check's seed and path of the shrunk case: `replay --family --seed --path` runs it alone. */
  seed: number;
  path: string;
  /** The path of the first case that failed, before shrinking. */
  firstFailure: string;
  shrinks: number;
  /** Shrinking stopped at its time budget: the case is the smallest found by then. */
  shrinkInterrupted?: boolean;
  /** The case did not fail again when shrinking replayed it (flaky: a TIMEOUT under load, typically); its first failing run is kept. */
  notReproduced?: boolean;
  /** The generated case: its story, its runtime's drifts, and the rule it was graded by (the card, profile, intent and runtime are the result's own). */
  story: string;
  drifts: string[];
  /** The command that replays it (client options as the run had them). */
  replay: string;
  /** The case as a plain scenario (its card a template, as the peer was given it): what `--export` writes. */
  scenario: Scenario;
}

/** One case of a property family, compactly: enough to find it again and count it. */
export interface PropertyCase {
  path: string;
  story: string;
  rule: string;
  verdict: VerdictKind;
  drifts?: string[];
  /** Told by an A2A v0.3 peer (absent: v1.0). */
  dialect?: 'a2a-v0.3';
  /** Told over this binding, its card's one interface of it (absent: JSON-RPC). */
  binding?: Exclude<Binding, 'JSONRPC'>;
  /** The nemesis family: the case's schedule of faults (docs/nemesis.md). */
  faults?: Fault[];
  durationMs: number;
  /** The harness lagged during the case (its measures), where it did. */
  lag?: LagRecord;
  /** A verdict it got while the harness lagged, before the re-run on a drained lane gave the one above. */
  attempts?: Attempt[];
}

/** A property family's run: its counts, its cases, and its counterexample where it failed. */
export interface PropertyFamilyResult {
  family: string;
  title: string;
  rules: string[];
  seed: number;
  /** Cases asked for (`--runs`) and cases run (fewer after a failure stops the sweep, or a signal). */
  runs: number;
  /** The bindings the cases were told over (`--binding`; card names' order), where they were other than JSON-RPC alone. */
  bindings?: Binding[];
  ran: number;
  verdicts: Partial<Record<VerdictKind, number>>;
  /** Cases per story. */
  stories: Record<string, number>;
  /** Cases whose rule bound, per rule (the label of each case). */
  labels: Record<string, number>;
  failed: boolean;
  /** The id of the counterexample's result in `results`. */
  counterexample?: string;
  cases: PropertyCase[];
  durationMs: number;
  /** Time spent shrinking. */
  shrinkMs?: number;
}

/** A family's counts from its cases: how many ran, by verdict, by story, and by the rule that labelled each. */
export function tallyCases(cases: readonly PropertyCase[]): Pick<PropertyFamilyResult, 'ran' | 'verdicts' | 'stories' | 'labels'> {
  const verdicts: PropertyFamilyResult['verdicts'] = {};
  const stories: Record<string, number> = {};
  const labels: Record<string, number> = {};
  for (const c of cases) {
    verdicts[c.verdict] = (verdicts[c.verdict] ?? 0) + 1;
    stories[c.story] = (stories[c.story] ?? 0) + 1;
    labels[c.rule] = (labels[c.rule] ?? 0) + 1;
  }
  return { ran: cases.length, verdicts, stories, labels };
}

/**
 * The control exchange of a run (harness/runner/engine/control.ts): where none of the run's scenarios
 * showed the client speaking A2A, the harness ran a plain text task of its own on a clean peer, to
 * establish that it does before crediting a rejection (docs/rules.md, principle 5). Not a scenario: never graded.
 */
export interface ControlRecord {
  dialect: Dialect;
  /** Whether the client took an A2A operation there (a request the peer took in its dialect). */
  spoke: boolean;
  /** What happened, in a line: the requests and methods the peer saw, and how the run ended. */
  summary: string;
  /** How the client's run ended (its decision, or timeout / crashed). */
  outcome: ScenarioResult['outcome']['kind'];
  decision?: string;
  durationMs: number;
  /** The control's transcript, as the scenarios' are kept. */
  transcript: WireEvent[];
}

/** The control exchanges of a run in a sentence, for the summary and the report. */
export function controlSentence(control: readonly ControlRecord[]): string {
  const spoke = control.find((c) => c.spoke);
  const tried = control.map((c) => `${c.dialect}: ${c.summary}`).join('; ');
  return `no scenario of this run showed the client speaking A2A, so the harness ran its control exchange (a plain text task on a clean peer; ${tried}): ${
    spoke
      ? `the client speaks ${spoke.dialect}, so its rejections are credited`
      : 'it took no A2A operation there either, so nothing it declined is credited (UNSUPPORTED)'
  }`;
}

export interface RunResults {
  schema: typeof RESULTS_SCHEMA;
  harness: { name: string; version: string };
  ruleset: string;
  /** The config file the command ran with, relative to where it ran (absent: none). */
  config?: string;
  /** Where the run ran: Node's version, the OS and its release, the architecture, the CPUs it could use (absent in results before bundles). */
  environment?: RunEnvironment;
  client: {
    name: string;
    version: string;
    profile: ClientProfile | null;
    taskClasses: TaskClass[];
    extensions?: string[];
    dialects?: Dialect[];
    dialectsPerRun?: boolean;
    bindings?: Binding[];
    concurrency?: number;
    glue?: GlueChoice[];
    /** Capabilities the client declares it does not implement (Hello.notImplemented): its tier is for the rest. */
    notImplemented?: AbsentCapability[];
  };
  /** The faults laid over the scenarios' peers (`run --nemesis`): the schedule as given. */
  nemesis?: Nemesis;
  /** A run against a live agent through the recording proxy (`proxy`, docs/live.md): which agent, when, and what was graded. */
  live?: LiveRecord;
  /** Salt of the opaque scenario ids in this run. */
  seed: string;
  shard: string | null;
  strict: boolean;
  deadlineMultiplier: number;
  startedAt: string;
  durationMs: number;
  results: ScenarioResult[];
  notRun: Array<{ id: string; reason: string }>;
  summary: Record<VerdictKind, number>;
  /** The expectations file the run was judged with (docs/ci.md; docs/expectations.schema.json), so `report` can re-judge. */
  expectations?: { schema: string; client?: string; entries: Array<{ scenario: string; verdict: VerdictKind; reason: string }> } | null;
  /** Scenario ids whose verdict was unexpected under the run's policy, with why. */
  unexpected: Array<{ id: string; verdict: VerdictKind; why: string }>;
  exitCode: number;
  /** A property run (`a2a-conformance properties`): one entry per family; `results` holds the counterexamples. */
  properties?: PropertyFamilyResult[];
  /**
   * The control exchanges the harness ran because no scenario of the run showed the client speaking
   * A2A (absent: the scenarios showed it, or nothing needed the credit), in the order they ran.
   */
  control?: ControlRecord[];
  /** How the lanes ran: the number asked for, the fewest open at once after backing off while the harness lagged, and how often. */
  lanes?: { start: number; min: number; backoffs: number };
  /**
   * A merge that lacks some of the run's shards: the shards missing (`3/4`, where their count is
   * known) and the scenarios they held (also in `notRun`, not graded). Incomplete is exit code 1.
   */
  incomplete?: { why: string; shards?: string[]; missing: string[] };
}

/** A not-run reason that says the scenario belongs to another shard (run.ts writes it; merge.ts reads it). */
export const inAnotherShard = (reason: string) => reason.startsWith('in another shard') || reason.startsWith('in a shard missing');

/** What the console, summary.md and the HTML say of an incomplete merge, in one sentence. */
export function incompleteSentence(i: NonNullable<RunResults['incomplete']>): string {
  return `incomplete: ${i.missing.length} scenario(s) ${i.shards?.length ? `of shard(s) ${i.shards.join(', ')} ` : ''}are missing from the merge and were not graded (exit code 1): ${i.why}`;
}

/** Where a run ran (results.json's `environment`; an evidence bundle carries it). */
export interface RunEnvironment {
  node: string;
  platform: string;
  release: string;
  arch: string;
  cpus: number;
}

/** What a live run says of its agent: it was not scripted, and only what its wire shows was graded. */
export interface LiveRecord {
  /** Where the agent's card was read. */
  cardUrl: string;
  /** The agent's name, as its card gives it. */
  name: string;
  /** When the card was read (ISO 8601). */
  readAt: string;
  scripted: false;
  /** The rules graded; the others are reported not measured. */
  measured: string[];
  /** What the proxy did to the agent's traffic, where asked. */
  cuts: string[];
}
