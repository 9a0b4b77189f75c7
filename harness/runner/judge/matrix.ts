/**
 * The conformance matrix (`a2a-conformance matrix`, or `report` given the results of several
 * clients): every client on one page, the rules it was graded by with their verdicts, the levels,
 * harm, and each client's tier (tiers.ts). Built from results.json documents alone: each client's
 * scenario runs (shards merged) and property runs (shards merged) are grouped by the client's name
 * and version. Published as JSON (`a2a-conformance/matrix@1`, docs/matrix.schema.json).
 */
import type { RunResults } from '../../core/results.js';
import { LEVELS, type Level } from '../../core/sources.js';
import { VERDICT_KINDS, type VerdictKind } from '../../core/verdict.js';
import { MergeError } from '../../faults.js';
import { toldFrom } from '../../core/card-binding.js';
import { mergeResults } from './merge.js';
import { gradedChecks, tierOf } from './tiers.js';
import { loadRequirementSet, requirementSets, type RequirementSet } from './requirements.js';
import { RULESET_VERSION } from '../../core/oracle/rules.js';
import { MATRIX_SCHEMA, type LevelCounts, type Matrix, type MatrixClient, type MatrixEntry } from '../../core/matrix.js';

export { MATRIX_SCHEMA, type LevelCounts, type Matrix, type MatrixClient, type MatrixEntry };

/** How bad a verdict is, for ordering (worst first). */
const SEVERITY: Record<VerdictKind, number> = { ERROR: 6, FAIL: 5, TIMEOUT: 5, NON_STRICT: 3, UNSUPPORTED: 1, INFORMATIONAL: 1, PASS: 0 };
export const severity = (v: VerdictKind) => SEVERITY[v];

/** A client's name and version as a file name: letters, digits, dots and dashes, never starting or ending with a dot or dash (never `.` or `..`). */
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60)
    .replace(/[-.]+$/, '') || 'client';

/** A client's graded checks counted per level (tiers.ts gradedChecks: declined scenarios and rules that did not bind grade nothing). */
function levelCounts(run: RunResults): Record<Level, LevelCounts> {
  const levels = Object.fromEntries(LEVELS.map((l) => [l, { graded: 0, passed: 0, missed: 0, failed: 0 }])) as Record<Level, LevelCounts>;
  for (const { check, level } of gradedChecks(run)) {
    const n = levels[level];
    n.graded++;
    if (check.verdict === 'PASS') n.passed++;
    else if (check.verdict === 'NON_STRICT') n.missed++;
    else n.failed++;
  }
  return levels;
}

/**
 * The matrix of these results: grouped by client (name and version), each client's scenario runs
 * merged and its property runs merged (mergeResults: shards of one run). Every client needs a
 * scenario run; all must be graded by the same ruleset.
 */
/**
 * The requirement set a matrix scores against: the one named, else the runs' own ruleset's where this
 * package has it frozen (results of a ruleset without one are scored whole, as before sets existed).
 */
function scopeOf(ruleset: string, runs: RunResults[], named?: string): { set: RequirementSet; current: RequirementSet } | undefined {
  if (!named && !requirementSets().includes(ruleset)) return undefined;
  const set = loadRequirementSet(named ?? ruleset);
  // A set that names scenarios these runs never had (a newer one) would score them as passed by their absence: refused.
  const had = new Set(runs.flatMap((r) => [...r.results.map((x) => x.id), ...r.notRun.map((n) => n.id)]).map(toldFrom));
  const missing = set.scenarios.filter((id) => !had.has(id));
  if (named && missing.length)
    throw new MergeError(
      `the requirement set ${named} names ${missing.length} scenario(s) these runs never had (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}): score them against a set of their own version or an earlier one`,
    );
  return { set, current: requirementSets().includes(RULESET_VERSION) ? loadRequirementSet() : set };
}

export function buildMatrix(runs: RunResults[], now = new Date(), requirements?: string): { matrix: Matrix; entries: MatrixEntry[] } {
  if (runs.length === 0) throw new MergeError('nothing to put in a matrix');
  const groups = new Map<string, { scenario: RunResults[]; properties: RunResults[] }>();
  for (const r of runs) {
    const key = `${r.client.name}\u0000${r.client.version}`;
    const g = groups.get(key) ?? groups.set(key, { scenario: [], properties: [] }).get(key)!;
    (r.properties ? g.properties : g.scenario).push(r);
  }
  const ruleset = runs[0]!.ruleset;
  const other = runs.find((r) => r.ruleset !== ruleset);
  if (other)
    throw new MergeError(
      `cannot compare clients graded by different rulesets (${ruleset} and ${other.ruleset}): run them with the same version of a2a-conformance`,
    );
  const scope = scopeOf(ruleset, runs, requirements);
  const used = new Set<string>();
  const entries: MatrixEntry[] = [];
  for (const g of groups.values()) {
    const any = g.scenario[0] ?? g.properties[0]!;
    if (g.scenario.length === 0)
      throw new MergeError(
        `${any.client.name} ${any.client.version} has a property run but no scenario run in these results: its tier is computed from its scenarios (add its run's results.json)`,
      );
    const run = mergeResults(g.scenario);
    const properties = g.properties.length ? mergeResults(g.properties) : undefined;
    if (properties && JSON.stringify(properties.client.notImplemented ?? []) !== JSON.stringify(run.client.notImplemented ?? []))
      throw new MergeError(
        `${run.client.name} ${run.client.version}: its scenario run and its property run declare different capabilities not implemented (hello.notImplemented): one tier is for one declaration`,
      );
    let id = slug(`${run.client.name}-${run.client.version}`);
    for (let n = 2; used.has(id); n++) id = `${slug(`${run.client.name}-${run.client.version}`)}-${n}`;
    used.add(id);
    const tier = tierOf(run, properties, scope);
    const client: MatrixClient = {
      id,
      name: run.client.name,
      version: run.client.version,
      scenarios: {
        ran: run.results.length,
        notRun: run.notRun.length,
        summary: run.summary,
        unexpected: run.unexpected.length,
        exitCode: run.exitCode,
        shard: run.shard,
      },
      levels: levelCounts(run),
      harm: tier.harm,
      properties: properties
        ? {
            seed: Number(properties.seed),
            exitCode: properties.exitCode,
            families: (properties.properties ?? []).map((f) => ({ family: f.family, runs: f.runs, ran: f.ran, failed: f.failed })),
          }
        : null,
      tier,
      report: `clients/${id}/index.html`,
      ...(properties ? { propertiesReport: `clients/${id}/properties/index.html` } : {}),
      badge: { svg: `badges/${id}.svg`, endpoint: `badges/${id}.json` },
    };
    entries.push({ client, run, ...(properties ? { properties } : {}) });
  }
  // Rules worst first (the worst verdict any client got in them, then how many failing verdicts), then by id.
  const rules = new Map<string, Record<string, Partial<Record<VerdictKind, number>>>>();
  const scenarios = new Map<string, { id: string; rule: string; verdicts: Record<string, VerdictKind> }>();
  for (const e of entries)
    for (const r of e.run.results) {
      const row = rules.get(r.rule) ?? rules.set(r.rule, {}).get(r.rule)!;
      row[e.client.id] ??= {};
      const cell = row[e.client.id]!;
      cell[r.verdict] = (cell[r.verdict] ?? 0) + 1;
      const s = scenarios.get(r.id) ?? scenarios.set(r.id, { id: r.id, rule: r.rule, verdicts: {} }).get(r.id)!;
      s.verdicts[e.client.id] = r.verdict;
    }
  const worst = (cells: Record<string, Partial<Record<VerdictKind, number>>>) =>
    Math.max(...Object.values(cells).flatMap((c) => VERDICT_KINDS.filter((k) => c[k]).map(severity)));
  const failing = (cells: Record<string, Partial<Record<VerdictKind, number>>>) =>
    Object.values(cells).reduce((n, c) => n + (c.FAIL ?? 0) + (c.TIMEOUT ?? 0) + (c.ERROR ?? 0), 0);
  const ruleRows = [...rules]
    .map(([rule, cells]) => ({ rule, cells }))
    .sort((a, b) => worst(b.cells) - worst(a.cells) || failing(b.cells) - failing(a.cells) || a.rule.localeCompare(b.rule));
  const scenarioRows = [...scenarios.values()].sort(
    (a, b) => Math.max(...Object.values(b.verdicts).map(severity)) - Math.max(...Object.values(a.verdicts).map(severity)) || a.id.localeCompare(b.id),
  );
  const first = entries[0]!.run;
  return {
    matrix: {
      schema: MATRIX_SCHEMA,
      harness: first.harness,
      ruleset,
      generatedAt: now.toISOString(),
      clients: entries.map((e) => e.client),
      rules: ruleRows,
      scenarios: scenarioRows,
      exitCode: Math.max(...entries.map((e) => Math.max(e.run.exitCode, e.properties?.exitCode ?? 0))),
    },
    entries,
  };
}

/** Whether these results hold more than one client: `report` then writes the matrix. */
export function severalClients(runs: readonly RunResults[]): boolean {
  return new Set(runs.map((r) => `${r.client.name}\u0000${r.client.version}`)).size > 1;
}
