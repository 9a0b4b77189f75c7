/**
 * Renderers from results.json: HTML report, JUnit XML, Markdown summary. Each is a function of the
 * results alone, so `a2a-conformance report` can re-render and merge later.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResults } from '../harness/core/results.js';
import { writableResults } from './bound.js';
import { renderHtmlReport } from './html/report.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';

export { renderHtmlReport, renderJunit, renderMarkdown };

export interface WrittenReport {
  dir: string;
  html: string;
  results: string;
  junit: string;
  markdown: string;
}

/** The four files of a report, rendered (results.json as pieces, written as they come), in the order they are put in place (results.json last). */
export interface RenderedReport {
  /** A report's four files, or a matrix's (reports/matrix.ts): its own, and each client's report in a folder of its own (`clients/<id>/index.html`). */
  files: Array<{ name: string; text: string | Iterable<string> }>;
  /** What had to change for the results to be written (values nested too deep, a scenario whose data does not serialise). */
  notes: string[];
}

/**
 * Renders every file of the report (summary.md names index.html by its relative path: the files live
 * side by side). Nothing is written: a caller that must not lose a previous report renders first.
 */
export function renderReports(r: RunResults): RenderedReport {
  const { results, notes } = writableResults(r);
  return {
    files: [
      { name: 'junit.xml', text: renderJunit(results) },
      { name: 'summary.md', text: renderMarkdown(results, 'index.html') },
      { name: 'index.html', text: renderHtmlReport(results) },
      { name: 'results.json', text: resultsJson(results) },
    ],
    notes,
  };
}

/** Property cases written to results.json per piece: one line each, so a run of 100,000 cases is never one string. */
const CASES_PER_PIECE = 1000;

/**
 * results.json in pieces, written as they are made: the document as JSON.stringify indents it, but
 * each family's `cases` one compact case per line, a thousand lines a piece. Parsed, it is the same
 * document; a run of any size is never held as one string (125,000 cases make about 38 MiB).
 */
export function* resultsJson(r: RunResults): Generator<string> {
  const families = r.properties ?? [];
  if (!families.some((f) => f.cases.length > 0)) {
    yield JSON.stringify(r, null, 2) + '\n';
    return;
  }
  // Each family's cases stand in the indented document as a placeholder no value can spell.
  const token = `a2a-conformance-cases-${randomUUID()}-`;
  const text = JSON.stringify({ ...r, properties: families.map((f, i) => ({ ...f, cases: `${token}${i}` })) }, null, 2) + '\n';
  let at = 0;
  for (const [i, f] of families.entries()) {
    const placeholder = `"${token}${i}"`;
    const m = text.indexOf(placeholder, at);
    if (m < 0) throw new Error(`[harness] results.json: the placeholder of family ${f.family} is missing`);
    yield text.slice(at, m);
    at = m + placeholder.length;
    if (f.cases.length === 0) {
      yield '[]';
      continue;
    }
    for (let k = 0; k < f.cases.length; k += CASES_PER_PIECE)
      yield (k === 0 ? '[\n' : ',\n') +
        f.cases
          .slice(k, k + CASES_PER_PIECE)
          .map((c) => `        ${JSON.stringify(c) ?? 'null'}`)
          .join(',\n');
    yield '\n      ]';
  }
  yield text.slice(at);
}

/** Writes the report files into `dir` (rendered here unless the caller rendered them). */
export async function writeReports(r: RunResults, dir: string, rendered: RenderedReport = renderReports(r)): Promise<WrittenReport> {
  await mkdir(dir, { recursive: true });
  await Promise.all(rendered.files.map((f) => writeFile(join(dir, f.name), f.text)));
  return { dir, html: join(dir, 'index.html'), results: join(dir, 'results.json'), junit: join(dir, 'junit.xml'), markdown: join(dir, 'summary.md') };
}
