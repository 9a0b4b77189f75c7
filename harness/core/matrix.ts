/**
 * The conformance matrix's data model (`a2a-conformance/matrix@1`, docs/matrix.schema.json): built by
 * harness/runner/judge/matrix.ts from results.json documents, rendered by reports/matrix.ts. Change it
 * only by addition.
 */
import type { RunResults } from './results.js';
import type { Level } from './sources.js';
import type { Capability } from './protocol/capabilities.js';
import type { VerdictKind } from './verdict.js';

/** A check that keeps a client from a tier: where it is and what it got. */
export interface TierBlocker {
  /** The condition it breaks, in a line. */
  condition: string;
  /** The checks (scenario, rule, verdict, level) or families behind it; at most a few listed, `more` counts the rest. */
  items: Array<{
    scenario?: string;
    rule?: string;
    family?: string;
    verdict?: string;
    level?: string;
    why: string;
    /** What the client's hello says of the check's scenario: a choice of its glue, not of the library under it (Hello.glue). */
    glue?: string[];
  }>;
  more: number;
}

export interface TierResult {
  /** 1, 2, or null (unranked). */
  tier: 1 | 2 | null;
  label: 'tier 1' | 'tier 2' | 'unranked';
  /** The run was of a selection of the scenarios (`selected by --rule …`): its tier is of those alone, and its badge says so. */
  selection?: string;
  /**
   * The capabilities the client declares it does not implement (hello.notImplemented), each with its
   * reason and the scenarios left out for it: the tier is for the declared capabilities, and says so.
   */
  declared?: Array<{ capability: Capability; reason: string; notRun: number }>;
  /** Why a client is unranked before any tier condition is looked at (nothing graded, a harness ERROR). */
  withheld?: string;
  /** MUST and security rules: graded, passed (no FAIL or TIMEOUT in any of their checks), and the share. */
  mustRules: { graded: number; passed: number; exercised: number };
  harm: number;
  /** The property families: passed at the Tier 1 runs, or why not. */
  properties: { given: boolean; passed: number; families: number };
  /** What keeps it from the next tier up (empty at Tier 1). */
  blockers: TierBlocker[];
  /** The frozen requirement set the tier was computed against (docs/requirements/<ruleset>.json). */
  requirements?: string;
  /** What ran but the set does not score: built-in scenarios, and checks of rules, added after it. */
  notScored?: {
    scenarios: number;
    checks: number;
    /** The scenarios not scored (at most 100), each with why. */
    which?: Array<{ id: string; reason: string }>;
    /** The rules added after the set whose checks were set aside, with how many. */
    rules?: Array<{ rule: string; checks: number }>;
  };
}

export const MATRIX_SCHEMA = 'a2a-conformance/matrix@1';

export interface LevelCounts {
  /** Checks of this level that graded the client (PASS, NON_STRICT, FAIL, TIMEOUT; not where the rule did not bind). */
  graded: number;
  passed: number;
  /** NON_STRICT: met the rule's minimum, missed what its level asks beyond it. */
  missed: number;
  /** FAIL or TIMEOUT. */
  failed: number;
}

export interface MatrixClient {
  /** A short name for files and anchors, unique in the matrix (`reference-0.1.0`). */
  id: string;
  name: string;
  version: string;
  scenarios: { ran: number; notRun: number; summary: Record<VerdictKind, number>; unexpected: number; exitCode: number; shard: string | null };
  levels: Record<Level, LevelCounts>;
  /** Checks that failed on harm the wire shows (any level). */
  harm: number;
  properties: { seed: number; exitCode: number; families: Array<{ family: string; runs: number; ran: number; failed: boolean }> } | null;
  tier: TierResult;
  /** Where this client's own reports are, relative to the matrix page. */
  report: string;
  propertiesReport?: string;
  badge: { svg: string; endpoint: string };
}

export interface Matrix {
  schema: typeof MATRIX_SCHEMA;
  harness: { name: string; version: string };
  ruleset: string;
  generatedAt: string;
  clients: MatrixClient[];
  /** One row per rule the scenarios name, worst first: for each client (by id), its scenarios' verdicts counted. */
  rules: Array<{ rule: string; cells: Record<string, Partial<Record<VerdictKind, number>>> }>;
  /** One row per scenario: each client's verdict (absent: not run for it). */
  scenarios: Array<{ id: string; rule: string; verdicts: Record<string, VerdictKind> }>;
  /** The highest exit code of the clients' runs (2: a harness ERROR; 1: unexpected verdicts; 0). */
  exitCode: number;
}

/** A client's runs, merged: what its reports are rendered from. */
export interface MatrixEntry {
  client: MatrixClient;
  run: RunResults;
  properties?: RunResults;
}

/**
 * A tier in the words its badge shows: the label, `(selection)` for a run of some of the scenarios,
 * `(scoped)` for a client that declares capabilities it does not implement, `(subset)` for both.
 */
export function tierWords(t: Pick<TierResult, 'label' | 'selection' | 'declared'>): string {
  const selection = !!t.selection;
  const scoped = !!t.declared?.length;
  return `${t.label}${selection && scoped ? ' (subset)' : selection ? ' (selection)' : scoped ? ' (scoped)' : ''}`;
}
