/**
 * One property run of the reference client, measured from inside its own process: cases, wall time,
 * CPU time, peak RSS, and the report's rendering time and size. bench.ts starts it as a child, so
 * each figure is that run's alone. Usage: node --import tsx bench/property-bench.ts <runs per family> <lanes>
 */
import { renderHtmlReport } from '../reports/html/report.js';
import { FAMILIES } from '../harness/gen/families/index.js';
import { runProperties } from '../harness/runner/properties.js';

const runs = Number(process.argv[2] ?? 100);
const lanes = Number(process.argv[3] ?? 4);
const cpu = process.cpuUsage();
const t0 = performance.now();
const r = await runProperties({ client: 'reference', families: FAMILIES, runs, seed: 1, lanes });
const wallMs = performance.now() - t0;
const used = process.cpuUsage(cpu);
const cases = r.properties!.reduce((n, f) => n + f.ran, 0);
const t1 = performance.now();
const html = renderHtmlReport(r);
const json = JSON.stringify(r, null, 2);
const renderMs = performance.now() - t1;
console.log(JSON.stringify({
  cases,
  failed: r.properties!.filter((f) => f.failed).map((f) => f.family),
  wallMs: Math.round(wallMs),
  cpuMs: Math.round((used.user + used.system) / 1000),
  rssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  renderMs: Math.round(renderMs),
  htmlKiB: Math.round(html.length / 1024),
  jsonKiB: Math.round(json.length / 1024),
}));
