/**
 * `report --compare old new`: what changed between two runs, scenario by scenario (an SDK upgrade, a
 * client against another). A regression is a scenario whose verdict got worse and is now NON_STRICT
 * or worse (FAIL, TIMEOUT, ERROR), or a property family that passed and now fails; an improvement the
 * reverse. Moves among PASS, INFORMATIONAL and UNSUPPORTED are listed as changes, not graded: the
 * rule did not bind, or the client declined the task class, which a tier accounts for elsewhere.
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
  old: { client: string; startedAt: string };
  new: { client: string; startedAt: string };
  regressions: Change[];
  improvements: Change[];
  /** Other verdict changes (among PASS, INFORMATIONAL, UNSUPPORTED). */
  changed: Change[];
  /** Scenarios in one run only. */
  added: string[];
  removed: string[];
  families: Array<{ family: string; from: 'passed' | 'failed'; to: 'passed' | 'failed' }>;
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
    old: { client: `${older.client.name} ${older.client.version}`, startedAt: older.startedAt },
    new: { client: `${newer.client.name} ${newer.client.version}`, startedAt: newer.startedAt },
    regressions: [],
    improvements: [],
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
    else if (sn < so && so >= severity('NON_STRICT')) out.improvements.push(change(o, n));
    else out.changed.push(change(o, n));
  }
  const fams = new Map((older.properties ?? []).map((f) => [f.family, f.failed]));
  for (const f of newer.properties ?? []) {
    const was = fams.get(f.family);
    if (was === undefined || was === f.failed) continue;
    out.families.push({ family: f.family, from: was ? 'failed' : 'passed', to: f.failed ? 'failed' : 'passed' });
  }
  const bySeverity = (a: Change, b: Change) => severity(b.to) - severity(a.to) || a.scenario.localeCompare(b.scenario);
  out.regressions.sort(bySeverity);
  out.improvements.sort((a, b) => severity(b.from) - severity(a.from) || a.scenario.localeCompare(b.scenario));
  out.changed.sort(bySeverity);
  return out;
}

/** Whether the comparison holds a regression (exit 1). */
export const regressed = (c: Comparison) => c.regressions.length > 0 || c.families.some((f) => f.to === 'failed');

/** The comparison as text for a terminal (and a CI log). */
export function comparisonText(c: Comparison): string {
  const lines = [`compared ${c.old.client} (${c.old.startedAt}) → ${c.new.client} (${c.new.startedAt})`];
  const row = (x: Change) => `  ${x.scenario}  ${x.from} → ${x.to}  ${x.rule} (${x.level})${x.why ? `: ${x.why}` : ''}`;
  lines.push(`regressions: ${c.regressions.length + c.families.filter((f) => f.to === 'failed').length}`);
  for (const x of c.regressions) lines.push(row(x));
  for (const f of c.families.filter((f) => f.to === 'failed')) lines.push(`  property family ${f.family}: passed → failed`);
  lines.push(`improvements: ${c.improvements.length + c.families.filter((f) => f.to === 'passed').length}`);
  for (const x of c.improvements) lines.push(row(x));
  for (const f of c.families.filter((f) => f.to === 'passed')) lines.push(`  property family ${f.family}: failed → passed`);
  if (c.changed.length) {
    lines.push(`other changes: ${c.changed.length}`);
    for (const x of c.changed) lines.push(row(x));
  }
  if (c.added.length) lines.push(`only in the new run: ${c.added.length} (${c.added.slice(0, 10).join(', ')}${c.added.length > 10 ? ', …' : ''})`);
  if (c.removed.length) lines.push(`only in the old run: ${c.removed.length} (${c.removed.slice(0, 10).join(', ')}${c.removed.length > 10 ? ', …' : ''})`);
  lines.push(`unchanged: ${c.same}`);
  return lines.join('\n') + '\n';
}
