/**
 * Expectations files (DESIGN.md §4.3; JSON Schema: docs/expectations.schema.json): a vendor's
 * baseline of known verdicts, for incremental adoption. An entry (scenario id or glob → verdict,
 * reason) decides the scenarios it matches; an expected failure that passes is unexpected; an entry
 * that matches nothing in the whole catalogue is stale, and stale is unexpected. Catalogue-wide, so
 * shards and fixed-profile clients are not punished for what they did not run.
 */
import picomatch from 'picomatch';
import { checkBehind, type RunResults, type ScenarioResult } from '../core/results.js';
import { VERDICT_KINDS, type VerdictKind } from '../core/verdict.js';
import { unexpectedWhy, type Policy } from './policy.js';
import { schemaValidator } from './json-schema.js';

export const EXPECTATIONS_SCHEMA = 'a2a-conformance/expectations@1';

export interface ExpectationEntry {
  /** A scenario id, or a glob over ids (`neg-live-input/*`). */
  scenario: string;
  verdict: VerdictKind;
  reason: string;
}

export interface Expectations {
  schema: typeof EXPECTATIONS_SCHEMA;
  client?: string;
  entries: ExpectationEntry[];
}

export class ExpectationsError extends Error {
  override readonly name = 'ExpectationsError';
  readonly code = 'A2A_EXPECTATIONS';
}

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
  o.entries.forEach((e, i) => {
    if (!e || typeof e.scenario !== 'string' || !e.scenario) throw new ExpectationsError(`${source}: entries[${i}].scenario must be a scenario id or glob`);
    if (!VERDICT_KINDS.includes(e.verdict)) throw new ExpectationsError(`${source}: entries[${i}].verdict must be one of ${VERDICT_KINDS.join(', ')}`);
    if (typeof e.reason !== 'string') throw new ExpectationsError(`${source}: entries[${i}].reason must be a string`);
    // Compiled now, not after the run: a glob picomatch refuses (over 64 KiB, say) is a load error.
    try {
      matcher(e.scenario);
    } catch (err) {
      throw new ExpectationsError(`${source}: entries[${i}].scenario is not a usable glob: ${(err as Error).message.slice(0, 200)}`);
    }
  });
  // Everything else the published schema says (docs/expectations.schema.json): no unknown keys, for one.
  const validate = schemaValidator('expectations.schema.json');
  if (!validate(doc)) {
    const e = validate.errors![0]!;
    const at = e.instancePath.replace(/^\//, '').replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.') || 'expectations';
    const extra = (e.params as { additionalProperty?: string }).additionalProperty;
    throw new ExpectationsError(`${source}: ${at}: ${e.message}${extra ? ` "${extra}"` : ''} (docs/expectations.schema.json)`);
  }
  return o as Expectations;
}

const matcher = (pattern: string) => picomatch(pattern, { dot: true });

export interface Judgement {
  unexpected: RunResults['unexpected'];
}

/**
 * Which verdicts are unexpected. Without expectations the default policy decides; with them, the
 * first matching entry decides its scenarios and the default decides the rest.
 */
export function judge(results: ScenarioResult[], policy: Policy, expectations: Expectations | undefined, catalogueIds: string[]): Judgement {
  const unexpected: RunResults['unexpected'] = [];
  const entries = (expectations?.entries ?? []).map((e) => ({ ...e, match: matcher(e.scenario) }));
  for (const r of results) {
    const entry = entries.find((e) => e.match(r.id));
    if (entry) {
      if (entry.verdict !== r.verdict)
        unexpected.push({ id: r.id, verdict: r.verdict, why: `the expectations file says ${entry.verdict} (${entry.reason || 'no reason given'})` });
      continue;
    }
    const why = unexpectedWhy(r.verdict, policy);
    if (why) unexpected.push({ id: r.id, verdict: r.verdict, why });
  }
  for (const e of entries)
    if (!catalogueIds.some((id) => e.match(id)))
      unexpected.push({ id: e.scenario, verdict: e.verdict, why: 'stale expectation: it matches no scenario in the catalogue' });
  return { unexpected };
}

/** A baseline that makes this run expected: one exact entry per verdict the default policy rejects. */
export function baselineFrom(results: ScenarioResult[], policy: Policy, client: string): Expectations {
  const entries: ExpectationEntry[] = [];
  for (const r of results) {
    if (!unexpectedWhy(r.verdict, policy)) continue;
    const worst = checkBehind(r);
    entries.push({ scenario: r.id, verdict: r.verdict, reason: worst ? `${worst.rule}: ${worst.reason}` : '' });
  }
  return { schema: EXPECTATIONS_SCHEMA, client, entries };
}
