/**
 * What the tests pin per built-in client: its baseline (baselines/<client>.json, the expectations format
 * with an entry for every verdict, written by `npm run baselines`), and its row of the built-in clients'
 * matrix in docs/clients/README.md (`npm run docs:matrix`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResults } from '../../harness/core/results.js';
import { buildMatrix } from '../../harness/runner/judge/matrix.js';
import { mustCell, scenarioCell } from '../../reports/matrix.js';
import { pinnedVerdicts, readBaseline } from '../../scripts/baseline-tables.js';
import { ROOT } from './cli.js';

/** The verdicts baselines/<client>.json pins: scenario id → verdict. */
export const baselineVerdicts = (client: string): Record<string, string> => pinnedVerdicts(readBaseline(client));

export const verdicts = (r: RunResults) => Object.fromEntries(r.results.map((x) => [x.id, x.verdict]));

/** The results whose verdict differs from a baseline, each with the check behind it and its attempts: what a failing comparison must say. */
export function differences(r: RunResults, published: Record<string, string>): string[] {
  return r.results
    .filter((x) => published[x.id] !== x.verdict)
    .map((x) => {
      const c = x.checks.find((k) => k.verdict === x.verdict);
      return `${x.id}: ${published[x.id] ?? 'absent'} → ${x.verdict}${c ? ` (${c.rule}, ${c.basis ?? '?'}: ${c.reason})` : ''}${x.lag?.lagged ? ` [lagged: ${x.lag.why}]` : ''}${x.attempts?.length ? ` [attempts: ${x.attempts.map((a) => a.verdict).join(', ')}]` : ''}`;
    });
}

/**
 * What differs between a client's row of the built-in clients' matrix (docs/clients/README.md, scripts/readme-matrix.ts) and its own
 * full run: the MUST and security rules, harm and scenario columns exactly; the tier as the run alone
 * gives it (a published tier 1 needs its property run too, so the run alone must be tier 2 for that
 * reason only).
 */
export function matrixRowProblems(run: RunResults): string[] {
  const c = buildMatrix([run]).matrix.clients[0]!;
  const text = readFileSync(join(ROOT, 'docs/clients/README.md'), 'utf8');
  const section = text.slice(text.indexOf('<!-- matrix:start -->'), text.indexOf('<!-- matrix:end -->'));
  const row = section
    .split('\n')
    .map((l) => l.split(' | ').map((x) => x.replace(/^\| |\s\|$/g, '').trim()))
    .find((cells) => cells[0] === `${c.name} ${c.version}`);
  if (!row) return [`docs/clients/README.md's matrix has no row for ${c.name} ${c.version}`];
  const problems: string[] = [];
  const want = { must: mustCell(c), harm: String(c.harm), scenarios: scenarioCell(c) };
  if (row[2] !== want.must) problems.push(`MUST and security rules: README ${row[2]}, run ${want.must}`);
  if (row[3] !== want.harm) problems.push(`harm: README ${row[3]}, run ${want.harm}`);
  if (row[5] !== want.scenarios) problems.push(`scenarios: README ${row[5]}, run ${want.scenarios}`);
  const scoped = / \(scoped\)$/.test(row[1]!);
  if (scoped !== !!c.tier.declared?.length)
    problems.push(`scope: README ${scoped ? '(scoped)' : 'unscoped'}, the run declares ${c.tier.declared?.length ?? 0} capabilities absent`);
  const tier = row[1]!.replace(/\*/g, '').replace(/ \(scoped\)$/, '');
  const alone = c.tier.label;
  const ok =
    tier === 'tier 1'
      ? alone === 'tier 2' && c.tier.blockers.length === 1 && c.tier.blockers[0]!.condition.startsWith('every property family')
      : tier === alone;
  if (!ok) problems.push(`tier: README ${tier}, the run alone ${alone} (${c.tier.blockers.map((b) => b.condition).join('; ')})`);
  return problems;
}
