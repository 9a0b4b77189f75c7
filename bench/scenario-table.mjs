#!/usr/bin/env node
// Runs one client through every scenario and writes its per-scenario verdict table into a README,
// between <!-- results:<marker>:start --> and <!-- results:<marker>:end -->.
// Usage: node bench/scenario-table.mjs (--client <name> | --client-cmd "<cmd>") --readme <file> --marker <name>
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const readme = arg('--readme');
const marker = arg('--marker') ?? 'table';
const client = arg('--client') ? ['--client', arg('--client')] : ['--client-cmd', arg('--client-cmd')];
const bin = new URL('../bin/a2a-conformance.mjs', import.meta.url).pathname;
const out = await mkdtemp(join(tmpdir(), 'a2a-table-'));
await new Promise((done) => execFile(process.execPath, [bin, 'run', ...client, '--out', out, '--seed', 'table'], { maxBuffer: 1 << 26 }, () => done()));
const r = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
await rm(out, { recursive: true, force: true });
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const rows = r.results.map((s) => {
  const worst = s.checks.find((c) => c.verdict === s.verdict && c.verdict !== 'PASS') ?? s.checks.find((c) => c.rule === s.rule);
  // A verdict that follows from a choice of the shim's glue, not of the library, says so (hello.glue).
  const glue = s.glue?.length && s.verdict !== 'PASS' && s.verdict !== 'INFORMATIONAL' ? ` — *${s.glue.join('; ')}*` : '';
  return `| \`${s.id}\` | ${s.rule} | **${s.verdict}**${glue ? ' (glue)' : ''} | ${cell(worst ? `${worst.rule}: ${worst.reason}` : '')}${cell(glue)} |`;
});
const counts = Object.entries(r.summary)
  .filter(([, n]) => n > 0)
  .map(([k, n]) => `${k} ${n}`)
  .join(' · ');
const table = [
  `${r.client.name} ${r.client.version} over ${r.results.length} scenarios (a2a-conformance ${r.harness.version}): ${counts}; exit code ${r.exitCode}.${r.notRun?.length ? ` Not run: ${r.notRun.length} (${[...new Set(r.notRun.map((n) => n.reason))].join('; ')}).` : ''}`,
  '',
  '| scenario | rule | verdict | why, from the wire |',
  '|---|---|---|---|',
  ...rows,
].join('\n');
const start = `<!-- results:${marker}:start -->`;
const end = `<!-- results:${marker}:end -->`;
const text = await readFile(readme, 'utf8');
if (!text.includes(start) || !text.includes(end)) throw new Error(`${readme} lacks the markers ${start} … ${end}`);
await writeFile(readme, text.slice(0, text.indexOf(start) + start.length) + '\n' + table + '\n' + text.slice(text.indexOf(end)));
console.log(table);
