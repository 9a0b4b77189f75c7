/**
 * `report --compare old new`: what changed between two runs, scenario by scenario (an SDK upgrade, a
 * client against another). A regression is a scenario whose verdict got worse and is now NON_STRICT
 * or worse (FAIL, TIMEOUT, ERROR); a scenario the old run graded that the new one does not hold, or
 * holds UNSUPPORTED (coverage lost: the client now declines a task it took); a property family that
 * passed and now fails or is gone. An improvement is a verdict that got better
 * and is now PASS or NON_STRICT. Other moves (to UNSUPPORTED or INFORMATIONAL, FAIL to TIMEOUT) are
 * listed as changes: the client declined the task, or the rule did not bind.
 */
import { checkBehind, type RunResults, type ScenarioResult } from '../../core/results.js';
import type { VerdictKind } from '../../core/verdict.js';
import { severity } from './matrix.js';
import { checkLevel } from './tiers.js';

export interface Change {
  scenario: string;
  rule: string;
  /** The level of the check behind the worse of the two verdicts (`harm` where it was harm). */
  level: string;
  from: VerdictKind;
  to: VerdictKind;
  /** The reason the worse verdict was given, in a line. */
  why: string;
}

export interface Comparison {
  old: { client: string; startedAt: string; ruleset: string };
  new: { client: string; startedAt: string; ruleset: string };
  regressions: Change[];
  improvements: Change[];
  /** Scenarios the old run graded (PASS, NON_STRICT) that the new one holds UNSUPPORTED: coverage lost, a regression. */
  uncovered: Change[];
  /** Other verdict changes (among PASS, INFORMATIONAL, UNSUPPORTED). */
  changed: Change[];
  /** Scenarios in one run only. */
  added: string[];
  removed: string[];
  families: Array<{ family: string; from: 'passed' | 'failed'; to: 'passed' | 'failed' | 'gone' }>;
  same: number;
}

const worse = (a: ScenarioResult, b: ScenarioResult) => (severity(b.verdict) >= severity(a.verdict) ? b : a);

function change(o: ScenarioResult, n: ScenarioResult): Change {
  const w = worse(o, n);
  const c = checkBehind(w);
  return {
    scenario: n.id,
    rule: n.rule,
    level: c?.basis === 'harm' ? 'harm' : c ? checkLevel(c) : '—',
    from: o.verdict,
    to: n.verdict,
    why: (c?.reason ?? '').split('\n')[0]!.slice(0, 300),
  };
}

/** Compares two runs (each already merged from its shards). */
export function compareRuns(older: RunResults, newer: RunResults): Comparison {
  const before = new Map(older.results.map((r) => [r.id, r]));
  const after = new Map(newer.results.map((r) => [r.id, r]));
  const out: Comparison = {
    old: { client: `${older.client.name} ${older.client.version}`, startedAt: older.startedAt, ruleset: older.ruleset },
    new: { client: `${newer.client.name} ${newer.client.version}`, startedAt: newer.startedAt, ruleset: newer.ruleset },
    regressions: [],
    improvements: [],
    uncovered: [],
    changed: [],
    added: [...after.keys()].filter((id) => !before.has(id)).sort(),
    removed: [...before.keys()].filter((id) => !after.has(id)).sort(),
    families: [],
    same: 0,
  };
  for (const [id, n] of after) {
    const o = before.get(id);
    if (!o) continue;
    if (o.verdict === n.verdict) {
      out.same++;
      continue;
    }
    const [so, sn] = [severity(o.verdict), severity(n.verdict)];
    if (sn > so && sn >= severity('NON_STRICT')) out.regressions.push(change(o, n));
    else if (n.verdict === 'UNSUPPORTED' && (o.verdict === 'PASS' || o.verdict === 'NON_STRICT')) out.uncovered.push(change(o, n));
    else if (sn < so && (n.verdict === 'PASS' || n.verdict === 'NON_STRICT')) out.improvements.push(change(o, n));
    else out.changed.push(change(o, n));
  }
  const fams = new Map((older.properties ?? []).map((f) => [f.family, f.failed]));
  for (const f of newer.properties ?? []) {
    const was = fams.get(f.family);
    if (was === undefined || was === f.failed) continue;
    out.families.push({ family: f.family, from: was ? 'failed' : 'passed', to: f.failed ? 'failed' : 'passed' });
  }
  for (const [family, failed] of fams)
    if (!(newer.properties ?? []).some((f) => f.family === family)) out.families.push({ family, from: failed ? 'failed' : 'passed', to: 'gone' });
  const bySeverity = (a: Change, b: Change) => severity(b.to) - severity(a.to) || a.scenario.localeCompare(b.scenario);
  out.regressions.sort(bySeverity);
  out.improvements.sort((a, b) => severity(b.from) - severity(a.from) || a.scenario.localeCompare(b.scenario));
  out.uncovered.sort((a, b) => a.scenario.localeCompare(b.scenario));
  out.changed.sort(bySeverity);
  return out;
}

const lostFamily = (f: Comparison['families'][number]) => f.to === 'failed' || (f.to === 'gone' && f.from === 'passed');

/** Whether the comparison holds a regression (exit 1): a verdict worse, a scenario no longer graded, a family failing or gone. */
export const regressed = (c: Comparison) => c.regressions.length > 0 || c.removed.length > 0 || c.uncovered.length > 0 || c.families.some(lostFamily);

/** The comparison as text for a terminal (and a CI log). */
export function comparisonText(c: Comparison): string {
  const lines = [`compared ${c.old.client} (${c.old.startedAt}) → ${c.new.client} (${c.new.startedAt})`];
  // Graded by different rulesets, the two runs are scored against different requirement sets (docs/requirements/):
  // a scenario only in the new run is new in the catalogue, not a change of the client.
  if (c.old.ruleset !== c.new.ruleset)
    lines.push(
      `scored against different requirement sets: ${c.old.ruleset} → ${c.new.ruleset}; a scenario or rule added between them shows as only in the new run, and a tier compares only against one set (matrix --requirements)`,
    );
  const row = (x: Change) => `  ${x.scenario}  ${x.from} → ${x.to}  ${x.rule} (${x.level})${x.why ? `: ${x.why}` : ''}`;
  lines.push(`regressions: ${c.regressions.length + c.removed.length + c.uncovered.length + c.families.filter(lostFamily).length}`);
  for (const x of c.regressions) lines.push(row(x));
  if (c.uncovered.length) lines.push(`  graded before, UNSUPPORTED now (the client declines what it took): ${c.uncovered.length}`);
  for (const x of c.uncovered) lines.push(row(x));
  if (c.removed.length)
    lines.push(`  no longer graded (in the old run only): ${c.removed.length} (${c.removed.slice(0, 10).join(', ')}${c.removed.length > 10 ? ', …' : ''})`);
  for (const f of c.families.filter(lostFamily)) lines.push(`  property family ${f.family}: ${f.from} → ${f.to}`);
  lines.push(`improvements: ${c.improvements.length + c.families.filter((f) => f.to === 'passed').length}`);
  for (const x of c.improvements) lines.push(row(x));
  for (const f of c.families.filter((f) => f.to === 'passed')) lines.push(`  property family ${f.family}: failed → passed`);
  if (c.changed.length) {
    lines.push(`other changes: ${c.changed.length}`);
    for (const x of c.changed) lines.push(row(x));
  }
  if (c.added.length) lines.push(`only in the new run: ${c.added.length} (${c.added.slice(0, 10).join(', ')}${c.added.length > 10 ? ', …' : ''})`);
  lines.push(`unchanged: ${c.same}`);
  return lines.join('\n') + '\n';
}
