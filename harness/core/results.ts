/**
 * The results model (`a2a-conformance/results@1`, DESIGN.md §4.2). Reports are rendered from this
 * alone. JSON Schema: docs/results.schema.json. Change it only by addition.
 */
import type { PeerRuntime } from './scenario.js';
import type { TaskRecord, WireEvent } from './transcript.js';
import type { ClientProfile, ClientReport, Dialect, TaskClass, TaskIntent } from './vocabulary/types.js';
import type { Check, VerdictKind } from './verdict.js';

export const RESULTS_SCHEMA = 'a2a-conformance/results@1';

/** The check that gave a result its verdict (or `verdict`, where an expectation speaks of another): the first with it. */
export function checkBehind(r: Pick<ScenarioResult, 'checks' | 'verdict'> | undefined, verdict: VerdictKind | undefined = r?.verdict): Check | undefined {
  return r?.checks.find((c) => c.verdict === verdict);
}

/** A card signature as the harness read it (harness/runner/signature-status.ts): for the report, never graded. */
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
}

export interface RunResults {
  schema: typeof RESULTS_SCHEMA;
  harness: { name: string; version: string };
  ruleset: string;
  client: { name: string; version: string; profile: ClientProfile | null; taskClasses: TaskClass[]; extensions?: string[]; dialects?: Dialect[] };
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
  /** The expectations file the run was judged with (DESIGN.md §4.3), so `report` can re-judge. */
  expectations?: { schema: string; client?: string; entries: Array<{ scenario: string; verdict: VerdictKind; reason: string }> } | null;
  /** Scenario ids whose verdict was unexpected under the run's policy, with why. */
  unexpected: Array<{ id: string; verdict: VerdictKind; why: string }>;
  exitCode: number;
}
