/**
 * Expectations files (docs/ci.md; JSON Schema: docs/expectations.schema.json): a vendor's
 * baseline of known verdicts, for incremental adoption. An entry (scenario id or glob → verdict,
 * reason) decides the scenarios it matches; an expected failure that passes is unexpected; an entry
 * that matches nothing in the whole catalogue is stale, and stale is unexpected. Catalogue-wide, so
 * shards and fixed-profile clients are not punished for what they did not run.
 */
import { compileGlob, globProblem, isGlob, MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS, type IdMatcher } from '../../core/glob.js';
import { checkBehind, type RunResults, type ScenarioResult } from '../../core/results.js';
import { VERDICT_KINDS, type VerdictKind } from '../../core/verdict.js';
import { unexpectedWhy, type Policy } from './policy.js';
import { schemaValidator } from '../load/json-schema.js';
import { ExpectationsError } from '../../faults.js';

const EXPECTATIONS_SCHEMA = 'a2a-conformance/expectations@1';

export interface ExpectationEntry {
  /** A scenario id, or a glob over ids (`neg-live-input/*`). */
  scenario: string;
  verdict: VerdictKind;
  reason: string;
}

export interface Expectations {
  schema: typeof EXPECTATIONS_SCHEMA;
  client?: string;
  /** Where a baseline came from (`run --update-expectations` writes it; informational, never judged). */
  written?: BaselineProvenance;
  entries: ExpectationEntry[];
}

/** What wrote a baseline: the harness, its ruleset, the client's version, and the scenarios the run did not grade, by reason. */
export interface BaselineProvenance {
  harness: string;
  ruleset: string;
  clientVersion?: string;
  /** Every verdict has an entry (`--pin-every-verdict`), PASS and INFORMATIONAL included. */
  everyVerdict: boolean;
  notRun: Array<{ reason: string; scenarios: string[] }>;
}

/**
 * What one expectations file may hold (README "Expectations files"): every entry is matched against
 * every scenario id, so the number of entries bounds the work as much as each glob does. The most
 * bytes of a file is checked where it is read (harness/cli/input-file.ts).
 */
export const EXPECTATIONS_LIMITS = { entries: 10_000, globLength: MAX_GLOB_LENGTH, wildcards: MAX_GLOB_WILDCARDS, bytes: 8 * 1024 * 1024 } as const;

/** Parses and checks an expectations document; errors name the entry and the field. */
export function parseExpectations(text: string, source: string): Expectations {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ExpectationsError(`${source}: not JSON: ${(err as Error).message}`);
  }
  const o = doc as Partial<Expectations>;
  if (!o || typeof o !== 'object' || o.schema !== EXPECTATIONS_SCHEMA) throw new ExpectationsError(`${source}: "schema" must be "${EXPECTATIONS_SCHEMA}"`);
  if (!Array.isArray(o.entries)) throw new ExpectationsError(`${source}: "entries" must be a list`);
  if (o.entries.length > EXPECTATIONS_LIMITS.entries)
    throw new ExpectationsError(`${source}: ${o.entries.length} entries, at most ${EXPECTATIONS_LIMITS.entries} (a glob can stand for many ids)`);
  o.entries.forEach((e, i) => {
    if (!e || typeof e.scenario !== 'string' || !e.scenario) throw new ExpectationsError(`${source}: entries[${i}].scenario must be a scenario id or glob`);
    if (!VERDICT_KINDS.includes(e.verdict)) throw new ExpectationsError(`${source}: entries[${i}].verdict must be one of ${VERDICT_KINDS.join(', ')}`);
    if (typeof e.reason !== 'string') throw new ExpectationsError(`${source}: entries[${i}].reason must be a string`);
    // Checked now, not after the run: a glob past the limits is a load error, never a slow run.
    const problem = globProblem(e.scenario);
    if (problem) throw new ExpectationsError(`${source}: entries[${i}].scenario is not a usable glob: ${problem}`);
  });
  // Everything else the published schema says (docs/expectations.schema.json): no unknown keys, for one.
  const validate = schemaValidator('expectations.schema.json');
  if (!validate(doc)) {
    const e = validate.errors![0]!;
    const at =
      e.instancePath
        .replace(/^\//, '')
        .replace(/\/(\d+)/g, '[$1]')
        .replace(/\//g, '.') || 'expectations';
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    throw new ExpectationsError(`${source}: ${at}: ${e.message}${extra ? ` "${extra}"` : ''} (docs/expectations.schema.json)`);
  }
  return o as Expectations;
}

/** An expectations file's entries made ready to match: exact ids by lookup, globs compiled once. */
interface CompiledExpectations {
  entries: Array<ExpectationEntry & { index: number; match: IdMatcher }>;
  /** The first entry naming each exact id. */
  exact: Map<string, number>;
  /** The entries that are globs, in file order. */
  globs: number[];
}

/** Compiled once per expectations object: a run judges every result as it comes, with the same file. */
const compiledCache = new WeakMap<Expectations, CompiledExpectations>();

function compiled(expectations: Expectations): CompiledExpectations {
  let c = compiledCache.get(expectations);
  if (c) return c;
  c = { entries: [], exact: new Map(), globs: [] };
  for (const [index, e] of expectations.entries.entries()) {
    c.entries.push({ ...e, index, match: compileGlob(e.scenario) });
    if (isGlob(e.scenario)) c.globs.push(index);
    else if (!c.exact.has(e.scenario)) c.exact.set(e.scenario, index);
  }
  compiledCache.set(expectations, c);
  return c;
}

/** The first entry that matches an id: an exact entry or a glob, whichever comes first in the file. */
function entryFor(c: CompiledExpectations, id: string): CompiledExpectations['entries'][number] | undefined {
  const exact = c.exact.get(id) ?? Infinity;
  for (const g of c.globs) {
    if (g > exact) break;
    if (c.entries[g]!.match(id)) return c.entries[g];
  }
  return exact === Infinity ? undefined : c.entries[exact];
}

/** Why one result is unexpected (its entry's verdict differs, or the default policy rejects it), or undefined. */
export function unexpectedWhyFor(r: ScenarioResult, policy: Policy, expectations: Expectations | undefined): string | undefined {
  const entry = expectations ? entryFor(compiled(expectations), r.id) : undefined;
  if (entry) return entry.verdict !== r.verdict ? `the expectations file says ${entry.verdict} (${entry.reason || 'no reason given'})` : undefined;
  return unexpectedWhy(r.verdict, policy);
}

export interface Judgement {
  unexpected: RunResults['unexpected'];
}

/**
 * Which verdicts are unexpected. Without expectations the default policy decides; with them, the
 * first matching entry decides its scenarios and the default decides the rest.
 */
export function judge(results: ScenarioResult[], policy: Policy, expectations: Expectations | undefined, catalogueIds: string[]): Judgement {
  const unexpected: RunResults['unexpected'] = [];
  for (const r of results) {
    const why = unexpectedWhyFor(r, policy, expectations);
    if (why) unexpected.push({ id: r.id, verdict: r.verdict, why });
  }
  if (!expectations) return { unexpected };
  const c = compiled(expectations);
  const ids = new Set(catalogueIds);
  for (const e of c.entries)
    if (isGlob(e.scenario) ? !catalogueIds.some((id) => e.match(id)) : !ids.has(e.scenario))
      unexpected.push({ id: e.scenario, verdict: e.verdict, why: 'stale expectation: it matches no scenario in the catalogue' });
  return { unexpected };
}

/**
 * A reason as a baseline keeps it: the run's own ports and opaque path ids written as placeholders, so
 * a baseline written again changes only where a verdict or its cause did.
 */
export function stableReason(reason: string): string {
  return reason.replace(/\b127\.0\.0\.1:\d+/g, '127.0.0.1:<port>').replace(/\/t\/[0-9a-f]{8}\//g, '/t/<run>/');
}

/**
 * A baseline that makes this run expected: one exact entry per verdict the default policy rejects, or,
 * with `every`, one per scenario run (so any change of verdict is unexpected: the built-in clients'
 * baselines/ are written so). A verdict that follows from a choice of the client's glue (hello.glue)
 * says so at the end of its reason.
 */
export function baselineFrom(run: RunResults, policy: Policy, every = false): Expectations {
  const entries: ExpectationEntry[] = [];
  for (const r of run.results) {
    if (!every && !unexpectedWhy(r.verdict, policy)) continue;
    // The scenario's own rule where its check gave the verdict (a PASS says what that rule saw), else the first check that did.
    const worst = r.checks.find((c) => c.rule === r.rule && c.verdict === r.verdict) ?? checkBehind(r);
    const glue = r.glue?.length && r.verdict !== 'PASS' && r.verdict !== 'INFORMATIONAL' ? ` (the glue's: ${r.glue.join('; ')})` : '';
    entries.push({ scenario: r.id, verdict: r.verdict, reason: stableReason(worst ? `${worst.rule}: ${worst.reason}` : '') + glue });
  }
  const notRun = new Map<string, string[]>();
  for (const n of run.notRun) notRun.set(n.reason, [...(notRun.get(n.reason) ?? []), n.id]);
  const written: BaselineProvenance = {
    harness: run.harness.version,
    ruleset: run.ruleset,
    clientVersion: run.client.version,
    everyVerdict: every,
    notRun: [...notRun].map(([reason, scenarios]) => ({ reason, scenarios })),
  };
  return { schema: EXPECTATIONS_SCHEMA, client: run.client.name, written, entries };
}
