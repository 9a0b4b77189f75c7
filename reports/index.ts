/**
 * Renderers from results.json: HTML report, JUnit XML, Markdown summary. Each is a function of the
 * results alone, so `a2a-conformance report` can re-render and merge later.
 */
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

/** The four files of a report, rendered in memory, in the order they are put in place (results.json last). */
export interface RenderedReport {
  files: Array<{ name: 'junit.xml' | 'summary.md' | 'index.html' | 'results.json'; text: string }>;
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
      { name: 'results.json', text: JSON.stringify(results, null, 2) + '\n' },
    ],
    notes,
  };
}

/** Writes the report files into `dir` (rendered here unless the caller rendered them). */
export async function writeReports(r: RunResults, dir: string, rendered: RenderedReport = renderReports(r)): Promise<WrittenReport> {
  await mkdir(dir, { recursive: true });
  await Promise.all(rendered.files.map((f) => writeFile(join(dir, f.name), f.text)));
  return { dir, html: join(dir, 'index.html'), results: join(dir, 'results.json'), junit: join(dir, 'junit.xml'), markdown: join(dir, 'summary.md') };
}
