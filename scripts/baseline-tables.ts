/**
 * The built-in clients' baselines (baselines/<client>.json, the expectations format with an entry for
 * every verdict, written by `npm run baselines`) and the docs sections rendered from them: a client's
 * per-scenario table, and the verdicts-per-client table of docs/grading.md. Pure: files in, text out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_CLIENTS } from '../clients/index.js';
import { VERDICT_KINDS, type VerdictKind } from '../harness/core/verdict.js';
import { type Expectations, parseExpectations } from '../harness/runner/judge/expectations.js';
import { exitCode, summarize, unexpectedWhy } from '../harness/runner/judge/policy.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';

/** Every client with a baseline: the built-in ones, and the Python example through its command. */
export const BASELINE_CLIENTS: Array<{ name: string; args: string[] }> = [
  ...BUILTIN_CLIENTS.map((c) => ({ name: c.name, args: ['--client', c.name] })),
  { name: 'python-simple', args: ['--client-cmd', 'python3 clients/examples/python/client.py'] },
];

/** baselines/<client>.json (a `:` of a naive mistake's name is a `.`: a file name every system takes). */
export const baselineFile = (client: string): string => join(PACKAGE_ROOT, 'baselines', `${client.replace(/:/g, '.')}.json`);

export function readBaseline(client: string): Expectations {
  const file = baselineFile(client);
  const b = parseExpectations(readFileSync(file, 'utf8'), file);
  if (!b.written?.everyVerdict) throw new Error(`${file} pins only some verdicts: write it again with npm run baselines ${client}`);
  return b;
}

/** scenario id → verdict, as a baseline pins them. */
export const pinnedVerdicts = (b: Expectations): Record<string, VerdictKind> => Object.fromEntries(b.entries.map((e) => [e.scenario, e.verdict]));

/** Each verdict's count, as a run's summary counts them. */
const counts = (b: Expectations) => summarize(b.entries);

/** The exit code of a run without an expectations file, as the CLI decides it. */
const plainExitCode = (b: Expectations) =>
  exitCode(
    b.entries,
    b.entries.filter((e) => unexpectedWhy(e.verdict, { strict: false })),
  );

/** A table cell: its pipes escaped, on one line, and its angle brackets as entities (a renderer takes `<port>` for a tag and drops it). */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const GLUE = / \(the glue's: (.*)\)$/;

/** A client's per-scenario table: its header line (counts, what was not run and why), then a row per scenario. */
export function clientTable(client: string, ruleOf: (id: string) => string | undefined): string {
  const b = readBaseline(client);
  const n = counts(b);
  const said = VERDICT_KINDS.filter((k) => n[k] > 0)
    .map((k) => `${k} ${n[k]}`)
    .join(' · ');
  const notRun = b.written!.notRun;
  const notRunCount = notRun.reduce((s, g) => s + g.scenarios.length, 0);
  const rows = b.entries.map((e) => {
    const glue = GLUE.exec(e.reason);
    const why = glue ? e.reason.slice(0, glue.index) : e.reason;
    return `| \`${e.scenario}\` | ${ruleOf(e.scenario) ?? '?'} | **${e.verdict}**${glue ? ' (glue)' : ''} | ${cell(why)}${glue ? cell(` — *${glue[1]}*`) : ''} |`;
  });
  return [
    `${b.client} ${b.written!.clientVersion ?? ''} over ${b.entries.length} scenarios (a2a-conformance ${b.written!.harness}, ruleset ${b.written!.ruleset}): ${said}; exit code ${plainExitCode(b)}.` +
      (notRunCount ? ` Not run: ${notRunCount} (${notRun.map((g) => g.reason).join('; ')}).` : ''),
    '',
    '| scenario | rule | verdict | why, from the wire |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** docs/grading.md's table: each built-in client's verdict counts, and the exit code of its run without expectations. */
export function verdictCountsTable(): string {
  const builtin = BASELINE_CLIENTS.filter((c) => c.args[0] === '--client');
  const reference = readBaseline('reference');
  const catalogue = reference.entries.length + reference.written!.notRun.reduce((s, g) => s + g.scenarios.length, 0);
  return [
    `Verdicts per built-in client over the ${catalogue} scenarios (each client runs those of the dialects it speaks: the reference ${reference.entries.length}), from baselines/ (\`npm run baselines\` writes them from runs; a scenario's verdict is the worst of its checks):`,
    '',
    '| client | PASS | INFORMATIONAL | NON_STRICT | FAIL | TIMEOUT | ERROR | exit |',
    '|---|---|---|---|---|---|---|---|',
    ...builtin.map((c) => {
      const b = readBaseline(c.name);
      const n = counts(b);
      return `| ${c.name} | ${n.PASS} | ${n.INFORMATIONAL} | ${n.NON_STRICT} | ${n.FAIL} | ${n.TIMEOUT} | ${n.ERROR} | ${plainExitCode(b)} |`;
    }),
  ].join('\n');
}

/** Replaces what sits between `<!-- name:start -->` and `<!-- name:end -->` in a page. */
export function withSection(page: string, name: string, body: string, file: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const at = page.indexOf(start);
  const to = page.indexOf(end);
  if (at < 0 || to < at) throw new Error(`${file} has no ${start} … ${end} section to write`);
  return `${page.slice(0, at + start.length)}\n${body}\n${page.slice(to)}`;
}
