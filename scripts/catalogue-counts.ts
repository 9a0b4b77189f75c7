/**
 * The counts docs/grading.md gives of the catalogue, rendered from it: the sentence that opens the
 * page (scenarios, files, dialects) and the scenarios column of its rule table (the other columns are
 * written by hand, and hold no count).
 */
import type { CatalogueEntry } from '../harness/runner/load/catalogue.js';

/** What opens docs/grading.md: how many scenarios, in how many files, with which dialects' peers. */
export function catalogueSentence(catalogue: readonly CatalogueEntry[]): string {
  const files = new Set(catalogue.map((e) => e.file)).size;
  const v03 = catalogue.filter((e) => e.scenario.peer.dialect === 'a2a-v0.3');
  const retold = v03.filter((e) => e.scenario.id.endsWith('.v03')).length;
  return (
    `${catalogue.length} scenarios in ${files} files (\`scenarios/*.scenario.ts\`): ${catalogue.length - v03.length} with A2A v1.0 peers ` +
    `and ${v03.length} with v0.3 peers (${retold} of them the families told again in v0.3, \`<id>.v03\`).`
  );
}

/**
 * The rule table's scenarios column (its second), each rule's count in the catalogue: a row of several
 * rules (`A, B`) gets a count each (`7, 2`); a cell that gives no number (`every scenario`) is left
 * as written, and so is what follows the number (`(+ every scenario whose peer has auth)`).
 */
export function withRuleCounts(table: string, catalogue: readonly CatalogueEntry[]): string {
  const count = new Map<string, number>();
  for (const e of catalogue) count.set(e.scenario.rule, (count.get(e.scenario.rule) ?? 0) + 1);
  return table
    .split('\n')
    .map((line) => {
      const cells = line.split(' | ');
      if (cells.length < 3 || !/^\| [A-Z]/.test(cells[0]!)) return line;
      const rules = cells[0]!.slice(2).split(', ');
      const m = /^(\d+(?:, \d+)*)(.*)$/.exec(cells[1]!);
      if (!m) return line;
      cells[1] = rules.map((r) => String(count.get(r) ?? 0)).join(', ') + m[2];
      return cells.join(' | ');
    })
    .join('\n');
}
