/**
 * One property run of the reference client, end to end in its own process, from the compiled code
 * that ships (dist/; bench.ts builds it first): the run (cases, wall time, CPU time), then its report
 * written as the CLI writes it (index.html, results.json, junit.xml, summary.md), and the process's
 * peak RSS over both. Then render-bench.mjs renders the same report from results.json in a process
 * of its own, for the rendering's own peak. bench.ts starts this as a child, so each figure is this
 * run's alone. Usage: node bench/property-bench.mjs <runs per family> <lanes|default> [<workers|default>]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAMILIES } from '../dist/harness/properties/families/index.js';
import { runProperties } from '../dist/harness/runner/properties/run.js';
import { writeReports } from '../dist/reports/index.js';

const runs = Number(process.argv[2] ?? 100);
// `default`: what `properties` takes when --lanes or --workers is not given.
const lanes = process.argv[3] === undefined || process.argv[3] === 'default' ? undefined : Number(process.argv[3]);
const workers = process.argv[4] === undefined || process.argv[4] === 'default' ? 'auto' : Number(process.argv[4]);
const cpu = process.cpuUsage();
const t0 = performance.now();
const r = await runProperties({ client: 'reference', families: FAMILIES, runs, seed: 1, ...(lanes ? { lanes } : {}), workers });
const wallMs = performance.now() - t0;
const used = process.cpuUsage(cpu);
const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-report-'));
try {
  const t1 = performance.now();
  const out = await writeReports(r, join(dir, 'report'));
  const reportMs = performance.now() - t1;
  const rssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  const render = JSON.parse(
    execFileSync(process.execPath, [join(import.meta.dirname, 'render-bench.mjs'), out.results, join(dir, 'again')], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1),
  );
  console.log(
    JSON.stringify({
      cases: r.properties.reduce((n, f) => n + f.ran, 0),
      failed: r.properties.filter((f) => f.failed).map((f) => f.family),
      lanes: r.lanes.start,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round((used.user + used.system) / 1000),
      reportMs: Math.round(reportMs),
      rssMiB,
      htmlKiB: Math.round(statSync(out.html).size / 1024),
      jsonKiB: Math.round(statSync(out.results).size / 1024),
      renderMs: render.renderMs,
      renderRssMiB: render.renderRssMiB,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
