/**
 * Renders a run's reports from its results.json, as `a2a-conformance report` does, in a process of
 * its own (dist/): its time and its peak RSS (the whole process: Node, the renderers, the results).
 * Usage: node bench/render-bench.mjs <results.json> <out dir>
 */
import { readFileSync } from 'node:fs';
import { writeReports } from '../dist/reports/index.js';

const [file, dir] = process.argv.slice(2);
const t0 = performance.now();
await writeReports(JSON.parse(readFileSync(file, 'utf8')), dir);
console.log(JSON.stringify({ renderMs: Math.round(performance.now() - t0), renderRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }));
