/** The verdict tables the READMEs publish (written by bench/scenario-table.mjs), read back for the client tests. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResults } from '../../harness/core/results.js';
import { ROOT } from './cli.js';

/** The verdict table a README publishes between its result markers: scenario id → verdict. */
export function publishedVerdicts(readme: string, marker: string): Record<string, string> {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const section = text.slice(text.indexOf(`<!-- results:${marker}:start -->`), text.indexOf(`<!-- results:${marker}:end -->`));
  return Object.fromEntries([...section.matchAll(/^\| `([^`]+)` \| [A-Z0-9-]+ \| \*\*([A-Z_]+)\*\*(?: \(glue\))? \|/gm)].map((m) => [m[1]!, m[2]!]));
}

export const verdicts = (r: RunResults) => Object.fromEntries(r.results.map((x) => [x.id, x.verdict]));

/** The results whose verdict differs from a published table, each with the check behind it and its attempts: what a failing comparison must say. */
export function differences(r: RunResults, published: Record<string, string>): string[] {
  return r.results
    .filter((x) => published[x.id] !== x.verdict)
    .map((x) => {
      const c = x.checks.find((k) => k.verdict === x.verdict);
      return `${x.id}: ${published[x.id] ?? 'absent'} → ${x.verdict}${c ? ` (${c.rule}, ${c.basis ?? '?'}: ${c.reason})` : ''}${x.lag?.lagged ? ` [lagged: ${x.lag.why}]` : ''}${x.attempts?.length ? ` [attempts: ${x.attempts.map((a) => a.verdict).join(', ')}]` : ''}`;
    });
}
