#!/usr/bin/env node
// Verdicts on a quiet and on a loaded machine (issue 23): the same commands with and without eight
// busy loops on the cores (scripts/busy.mjs), each timed, their verdicts compared. `npm run bench --
// --load` runs it (a few minutes); it prints figures for the README, never asserts.
//
// - run --client reference: every scenario's verdict against its `expect`;
// - run --client a2a-js-sdk: every verdict against the same command's on the quiet machine;
// - properties --client reference --runs 100 --seed 11: its exit code;
// each with the wall time, the scenarios (or cases) run again after the harness lagged, and how far
// the lanes backed off.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = join(root, 'bin/a2a-conformance.mjs');
const workers = Number(process.env.BUSY_WORKERS ?? 8);

function cli(args) {
  const out = mkdtempSync(join(tmpdir(), 'a2a-load-'));
  const t = performance.now();
  const r = spawnSync(process.execPath, [bin, ...args, '--out', out], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallMs = performance.now() - t;
  const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
  return { code: r.status, wallMs, results };
}

const reruns = (r) =>
  r.properties ? r.properties.reduce((n, f) => n + f.cases.filter((c) => c.attempts?.length).length, 0) : r.results.filter((x) => x.attempts?.length).length;
const lagged = (r) =>
  r.properties ? r.properties.reduce((n, f) => n + f.cases.filter((c) => c.lag?.lagged).length, 0) : r.results.filter((x) => x.lag?.lagged).length;
const verdicts = (r) => Object.fromEntries(r.results.map((x) => [x.id, x.verdict]));
const lanes = (r) => (r.lanes ? `lanes ${r.lanes.start}→${r.lanes.min} (${r.lanes.backoffs} back-off(s))` : '');

function measure(label) {
  const ref = cli(['run', '--client', 'reference']);
  const off = ref.results.results.filter((x) => x.verdict !== x.expect);
  console.log(
    `${label.padEnd(7)} run --client reference: ${(ref.wallMs / 1000).toFixed(1)} s, exit ${ref.code}, ${ref.results.results.length} scenarios, ${off.length} not their expect${off.length ? ` (${off.map((x) => `${x.id} ${x.verdict}`).join(', ')})` : ''}; ${lagged(ref.results)} lagged, ${reruns(ref.results)} re-run; ${lanes(ref.results)}`,
  );
  const sdk = cli(['run', '--client', 'a2a-js-sdk']);
  console.log(
    `${label.padEnd(7)} run --client a2a-js-sdk: ${(sdk.wallMs / 1000).toFixed(1)} s, exit ${sdk.code}, ${JSON.stringify(sdk.results.summary)}; ${lagged(sdk.results)} lagged, ${reruns(sdk.results)} re-run; ${lanes(sdk.results)}`,
  );
  const prop = cli(['properties', '--client', 'reference', '--runs', '100', '--seed', '11']);
  console.log(
    `${label.padEnd(7)} properties --runs 100 --seed 11: ${(prop.wallMs / 1000).toFixed(1)} s, exit ${prop.code}, ${prop.results.properties.map((f) => `${f.family} ${f.failed ? 'FAILED' : 'passed'}`).join(', ')}; ${lagged(prop.results)} case(s) lagged, ${reruns(prop.results)} re-run; ${lanes(prop.results)}`,
  );
  return { sdk: verdicts(sdk.results) };
}

const quiet = measure('quiet');
const busy = spawn(process.execPath, [join(root, 'scripts/busy.mjs'), '--workers', String(workers), '--seconds', '1200'], { stdio: 'ignore' });
await new Promise((r) => setTimeout(r, 1000));
let loaded;
try {
  loaded = measure(`${workers} busy`);
} finally {
  busy.kill('SIGTERM');
}
const differ = Object.keys(quiet.sdk).filter((id) => quiet.sdk[id] !== loaded.sdk[id]);
console.log(
  `a2a-js-sdk verdicts, loaded against quiet: ${differ.length ? `${differ.length} differ: ${differ.map((id) => `${id} ${quiet.sdk[id]}→${loaded.sdk[id]}`).join(', ')}` : 'the same, scenario by scenario'}`,
);
