#!/usr/bin/env node
// Prints the README's verdict table: every built-in client through every scenario (two at a time),
// counted from each run's results.json. Usage: npm run verdicts
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const bin = new URL('../bin/a2a-conformance.mjs', import.meta.url).pathname;
const run = promisify(execFile);
const { stdout } = await run(process.execPath, [bin, 'list', '--clients']);
const clients = stdout.trim().split('\n');
const rows = new Map();
const queue = [...clients];
await Promise.all(
  [0, 1].map(async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const out = await mkdtemp(join(tmpdir(), 'a2a-verdicts-'));
      const code = await run(process.execPath, [bin, 'run', '--client', c, '--out', out], { maxBuffer: 1 << 26 }).then(
        () => 0,
        (e) => e.code,
      );
      const r = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
      await rm(out, { recursive: true, force: true });
      const s = r.summary;
      rows.set(c, `| ${c} | ${s.PASS} | ${s.INFORMATIONAL} | ${s.NON_STRICT} | ${s.FAIL} | ${s.TIMEOUT} | ${s.ERROR} | ${code} |`);
    }
  }),
);
console.log('| client | PASS | INFORMATIONAL | NON_STRICT | FAIL | TIMEOUT | ERROR | exit |');
console.log('|---|---|---|---|---|---|---|---|');
for (const c of clients) console.log(rows.get(c));
