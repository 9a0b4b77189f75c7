/**
 * `npm run baselines [-- <client> …]`: runs every built-in client (or those named) and the Python
 * example through the whole catalogue with the CLI, two at a time, and writes each one's verdicts to
 * baselines/<client>.json with `run --update-expectations --pin-every-verdict`: the product's own
 * expectations format, an entry for every verdict. The client tests compare their full runs with these
 * files, and `npm run docs` renders the docs' verdict tables from them. Takes a few minutes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';
import { BASELINE_CLIENTS, baselineFile } from './baseline-tables.js';

const run = promisify(execFile);
const bin = join(PACKAGE_ROOT, 'bin/a2a-conformance.mjs');
const asked = process.argv.slice(2);
const unknown = asked.filter((c) => !BASELINE_CLIENTS.some((b) => b.name === c));
if (unknown.length) {
  process.stderr.write(`no baseline for ${unknown.join(', ')}: the clients are ${BASELINE_CLIENTS.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}
const queue = BASELINE_CLIENTS.filter((b) => !asked.length || asked.includes(b.name));
const total = queue.length;
let done = 0;
const started = Date.now();
await Promise.all(
  [0, 1].map(async () => {
    for (let b = queue.shift(); b; b = queue.shift()) {
      const out = await mkdtemp(join(tmpdir(), 'a2a-baseline-'));
      try {
        const args = ['run', ...b.args, '--update-expectations', baselineFile(b.name), '--pin-every-verdict', '--seed', 'baseline', '--out', out];
        await run(process.execPath, [bin, ...args], { cwd: PACKAGE_ROOT, maxBuffer: 1 << 26 }).catch((err: { code?: number; stderr?: string }) => {
          // Judged by the baseline it writes, a run exits 0; anything else is a problem of the run.
          throw new Error(
            `${b.name}: exit ${err.code}: ${String(err.stderr ?? '')
              .trim()
              .split('\n')
              .slice(-3)
              .join(' | ')}`,
          );
        });
        done += 1;
        process.stdout.write(
          `[${done}/${total}] ${b.name} → ${baselineFile(b.name).slice(PACKAGE_ROOT.length + 1)} (${Math.round((Date.now() - started) / 1000)} s)\n`,
        );
      } finally {
        await rm(out, { recursive: true, force: true });
      }
    }
  }),
);
process.stdout.write('now `npm run docs` renders the tables from them\n');
