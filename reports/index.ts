/**
 * Renderers from results.json: HTML report, JUnit XML, Markdown summary. Each is a function of the
 * results alone, so `a2a-conformance report` can re-render and merge later.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunResults } from '../harness/core/results.js';
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

/** Writes the report files into `dir`; `finalDir` is where they will live (summary.md names the report there). */
export async function writeReports(r: RunResults, dir: string, finalDir: string = dir): Promise<WrittenReport> {
  await mkdir(dir, { recursive: true });
  const out: WrittenReport = {
    dir,
    html: join(dir, 'index.html'),
    results: join(dir, 'results.json'),
    junit: join(dir, 'junit.xml'),
    markdown: join(dir, 'summary.md'),
  };
  await Promise.all([
    writeFile(out.results, JSON.stringify(r, null, 2) + '\n'),
    writeFile(out.html, renderHtmlReport(r)),
    writeFile(out.junit, renderJunit(r)),
    writeFile(out.markdown, renderMarkdown(r, join(finalDir, 'index.html'))),
  ]);
  return out;
}
