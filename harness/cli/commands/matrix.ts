/**
 * `matrix`: several clients over one selection, one report. Each client runs the scenarios (as `run`)
 * and, unless --no-properties, the property families (as `properties`, every client with the same
 * seed), one client after another; then the matrix (harness/runner/judge/matrix.ts) is written to
 * --out with each client's tier, badge and own reports (reports/matrix.ts). Exit: the highest of the
 * clients' runs by the usual rules (2 for a harness ERROR, 1 for an unexpected verdict, else 0).
 */
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { tierWords, type Matrix } from '../../core/matrix.js';
import type { RunResults } from '../../core/results.js';
import type { RenderedReport } from '../../../reports/index.js';
import type { Interruptible } from '../interrupt.js';
import { RunInterrupted, Stopped, UsageError } from '../../faults.js';
import { checkScenarioIds, finishWriting, load, readExpectations, reap, scenarioFiles, unknownClient } from '../context.js';
import { errStatus, print, printErr } from '../io.js';
import { printableInline } from '../../core/text.js';
import {
  bindingOption,
  configOption,
  dialectOption,
  grepOption,
  type Grep,
  lanesOf,
  multiplierOf,
  noBuiltinOption,
  noConfigOption,
  ruleOption,
  scenarioIdOption,
  scenariosOption,
  wholeNumber,
  workersOf,
} from '../options.js';
import type { Binding, Dialect } from '../../core/protocol/types.js';
import type { Expectations } from '../../runner/judge/expectations.js';

interface MatrixOpts {
  client?: string[];
  clientCmd?: string[];
  scenarios?: string[];
  builtin: boolean;
  rule?: string[];
  out: string;
  strict: boolean;
  deadlineMultiplier: number;
  properties: boolean;
  runs?: number;
  seed?: number;
  workers?: number;
  lanes?: number;
  requirements?: string;
  dialect?: Dialect;
  binding?: Binding[];
  scenario?: string[];
  grep?: Grep;
  expectations?: string[];
}

/** One client of the matrix: a built-in one, or a command with the name it is shown by while it runs. */
type MatrixClientChoice = { label: string; client: string } | { label: string; clientCmd: string };

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function register(program: Command): void {
  program
    .command('matrix')
    .description(
      'run several clients over the same scenarios (and property families) and write one report: the clients side by side, each with its tier and badge',
    )
    .addOption(configOption())
    .addOption(noConfigOption())
    .option('--client <name>', 'a built-in client (repeatable; see `list --clients`)', collect)
    .option('--client-cmd <name=command>', 'any other client, named for the progress lines: name=command speaking the NDJSON protocol (repeatable)', collect)
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .addOption(ruleOption())
    .addOption(dialectOption())
    .addOption(bindingOption())
    .addOption(scenarioIdOption())
    .addOption(grepOption())
    .option(
      '--expectations <[client=]file>',
      "known verdicts (docs/expectations.schema.json): client=file for one client (by its --client name or --client-cmd's name), a bare file for every client without its own (repeatable)",
      collect,
    )
    .option('--out <dir>', 'where the matrix goes: index.html, matrix.json, summary.md, badges/, clients/<id>/', 'conformance-matrix')
    .option('--strict', 'treat NON_STRICT as unexpected', false)
    .option('--requirements <ruleset>', 'score the tiers against this frozen requirement set (docs/requirements/; default: the current ruleset)')
    .option('--deadline-multiplier <x>', 'scale every scenario deadline (slow machines)', multiplierOf, 1)
    .option('--no-properties', 'skip the property families (a client cannot reach tier 1 without them)')
    .option('--runs <n>', 'generated cases per property family (default 100, what tier 1 asks)', (v) => wholeNumber('--runs', v, 1, 1_000_000))
    .option('--seed <n>', 'the seed of the property runs, the same for every client (random by default)', (v) => wholeNumber('--seed', v, 0, 2 ** 31 - 1))
    .option('--workers <n>', 'threads each run spreads its lanes across (as `run --workers`)', workersOf)
    .option('--lanes <n>', 'scenarios in flight at once in each run (as `run --lanes`)', lanesOf)
    .action(matrixAction);
}

function clientsOf(opts: MatrixOpts, builtin: readonly string[]): MatrixClientChoice[] {
  const out: MatrixClientChoice[] = [];
  for (const c of opts.client ?? []) {
    if (!builtin.includes(c)) throw new UsageError(unknownClient(c, builtin));
    out.push({ label: c, client: c });
  }
  for (const c of opts.clientCmd ?? []) {
    const at = c.indexOf('=');
    if (at <= 0 || !c.slice(at + 1).trim())
      throw new UsageError(`--client-cmd ${JSON.stringify(c.slice(0, 80))}: give name=command (e.g. --client-cmd "mysdk=python3 shim.py")`);
    out.push({ label: c.slice(0, at), clientCmd: c.slice(at + 1) });
  }
  if (out.length === 0) throw new UsageError('say which clients to compare: --client <name> (repeatable) and/or --client-cmd "name=command"');
  const labels = out.map((c) => c.label);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice) throw new UsageError(`the client "${twice}" is named twice`);
  return out;
}

/**
 * Each client's expectations file: `client=file` for the client of that name, a bare file for every
 * client without its own. Each file is read (and checked) before any client runs.
 */
async function expectationsOf(given: string[], choices: MatrixClientChoice[]): Promise<Map<string, Expectations | undefined>> {
  const labels = choices.map((c) => c.label);
  const own = new Map<string, string>();
  let every: string | undefined;
  for (const g of given) {
    const at = g.indexOf('=');
    const label = at > 0 ? g.slice(0, at) : undefined;
    if (label !== undefined && labels.includes(label)) {
      if (own.has(label)) throw new UsageError(`--expectations: the client "${label}" is given two files`);
      own.set(label, g.slice(at + 1));
    } else {
      if (label !== undefined && !/[/\\.]/.test(label))
        throw new UsageError(`--expectations ${JSON.stringify(g.slice(0, 80))}: "${label}" is no client of this matrix (${labels.join(', ')})`);
      if (every !== undefined) throw new UsageError('--expectations: two files for every client; name the client of each (client=file)');
      every = g;
    }
  }
  const read = new Map<string, Expectations>();
  const out = new Map<string, Expectations | undefined>();
  for (const l of labels) {
    const file = own.get(l) ?? every;
    if (file === undefined) continue;
    if (!read.has(file)) read.set(file, await readExpectations(file));
    out.set(l, read.get(file));
  }
  return out;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function matrixAction(opts: MatrixOpts): Promise<void> {
  const { BUILTIN_CLIENTS } = await load.clients();
  const choices = clientsOf(
    opts,
    BUILTIN_CLIENTS.map((c) => c.name),
  );
  const { loadCatalogue } = await load.catalogue();
  const { tellOver } = await import('../../core/card-binding.js');
  // Told over the bindings asked for, as `run` tells them, so --scenario and --grep see the tellings' ids.
  const catalogue = tellOver(await loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin)), opts.binding ?? []);
  checkScenarioIds(catalogue, opts.scenario);
  const pick = { ...(opts.scenario ? { ids: opts.scenario } : {}), ...(opts.grep ? { grep: opts.grep } : {}) };
  const { filterCatalogue, filtersProblem } = await load.select();
  const empty = filtersProblem(catalogue, opts.rule, opts.dialect, pick);
  if (empty) throw new UsageError(empty);
  const expectations = await expectationsOf(opts.expectations ?? [], choices);
  if (!opts.properties && opts.runs !== undefined) throw new UsageError('--runs sets the property runs, and --no-properties skips them: give one of the two');
  // A requirement set that does not exist is said before any client runs.
  if (opts.requirements) (await load.requirements()).loadRequirementSet(opts.requirements);
  const { checkOutput } = await load.output();
  checkOutput('--out', opts.out);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const { FAMILIES } = await load.families();
  const { runConformance } = await load.run();
  const { propertiesCommand } = await load.properties();
  const { interruptible } = await load.interrupt();
  await reap();
  const stop = interruptible((l) => printErr(l + '\n'), 'the matrix');
  const runs: RunResults[] = [];
  const status = errStatus();
  let current = '';
  try {
    printErr(
      `a2a-conformance matrix: ${choices.length} client(s), ${filterCatalogue(catalogue, opts.rule, opts.dialect, pick).length} scenario(s) each (at most)${opts.properties ? `, property families at seed ${seed}` : ''}\n`,
    );
    for (const c of choices) {
      current = c.label;
      const who = 'client' in c ? { client: c.client } : { clientCmd: c.clientCmd };
      const t0 = Date.now();
      let tick = t0;
      // Each run takes the signal itself: stopped, it cleans up and throws RunInterrupted.
      const run = await runConformance({
        ...who,
        files: catalogue.map((e) => e.file),
        catalogue,
        rules: opts.rule,
        ...(opts.dialect ? { dialect: opts.dialect } : {}),
        ...(opts.binding ? { bindings: opts.binding } : {}),
        pick,
        ...(opts.lanes ? { lanes: opts.lanes } : {}),
        expectations: expectations.get(c.label),
        strict: opts.strict,
        // Its progress: on a terminal a line drawn in place, elsewhere a line every 10 s; each with the time left at its pace.
        onProgress: (n, total) => {
          const now = Date.now();
          const left = n > 0 ? ` · about ${secs(((now - t0) / n) * (total - n))} left` : '';
          if (status.live) {
            if (now - tick <= 200 && n !== total) return;
            status.set(`  ${c.label}: ${n}/${total} scenarios${left}`);
          } else {
            if (now - tick <= 10_000) return;
            printErr(`  ${c.label}: ${n}/${total} scenarios${left}\n`);
          }
          tick = now;
        },
        deadlineMultiplier: opts.deadlineMultiplier,
        workers: opts.workers ?? 'auto',
        signal: stop.signal,
      });
      // Clients are told apart by the name and version their hello gives: a second one is said now, not after every run.
      const same = runs.find((r) => !r.properties && r.client.name === run.client.name && r.client.version === run.client.version);
      if (same)
        throw new UsageError(
          `${c.label} says it is ${printableInline(`${run.client.name} ${run.client.version}`)}, as an earlier client did: the matrix tells clients apart by the name and version of their hello`,
        );
      status.clear();
      runs.push(run);
      const s = run.summary;
      printErr(
        `  ${c.label}: ${run.results.length} scenario(s) · PASS ${s.PASS} · NON_STRICT ${s.NON_STRICT} · FAIL ${s.FAIL} · TIMEOUT ${s.TIMEOUT} · ERROR ${s.ERROR} · ${secs(Date.now() - t0)}\n`,
      );
      if (opts.properties) {
        const t1 = Date.now();
        const p = await propertiesCommand({
          ...who,
          families: FAMILIES,
          seed,
          ...(opts.runs !== undefined ? { runs: opts.runs } : {}),
          strict: opts.strict,
          deadlineMultiplier: opts.deadlineMultiplier,
          ...(opts.workers !== undefined ? { workers: opts.workers } : {}),
          signal: stop.signal,
          status: { line: status, prefix: `  ${c.label} · ` },
          // Its progress and each family's line, under the client's name: a sweep of minutes is never silent.
          err: (l) => {
            if (/^\s|^[✓✗]/.test(l)) printErr(`  ${c.label} · ${l.trimStart()}`);
          },
        });
        runs.push(p);
        const fams = p.properties ?? [];
        printErr(
          `  ${c.label}: property families ${fams.filter((f) => !f.failed).length} of ${fams.length} without a failure (${fams.reduce((n, f) => n + f.ran, 0)} cases) · ${secs(Date.now() - t1)}\n`,
        );
      }
    }
  } catch (err) {
    status.clear();
    stop.dispose();
    if (err instanceof RunInterrupted || err instanceof Stopped || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
    // A client's own refusal (a --binding its hello does not declare): said with its name; the matrix writes nothing.
    if (err instanceof UsageError && current && !err.message.startsWith(current))
      throw new UsageError(`${current}: ${err.message} (the matrix stops at the first client that cannot run the selection)`);
    throw err;
  }
  await writeMatrix(runs, opts.out, stop, [], opts.requirements);
}

/**
 * The matrix of these runs, rendered whole and then written to `out` (`matrix`, and `report` given
 * several clients): the clients' tiers printed, the exit code set. `stop` is the command's signal
 * handler, disposed whatever happens.
 */
export async function writeMatrix(runs: RunResults[], out: string, stop: Interruptible, notes: string[] = [], requirements?: string): Promise<void> {
  let rendered: RenderedReport;
  let matrix: Matrix;
  try {
    const { buildMatrix } = await load.matrix();
    const { renderMatrixReports } = await load.matrixReports();
    const built = buildMatrix(runs, undefined, requirements);
    matrix = built.matrix;
    rendered = renderMatrixReports(matrix, built.entries);
  } catch (err) {
    stop.dispose();
    throw err;
  }
  for (const l of [...notes, ...rendered.notes]) printErr(`a2a-conformance: ${l}\n`);
  const { writeOutput } = await load.output();
  const written = await finishWriting(stop, undefined, () => writeOutput('--out', out, rendered));
  print(matrixSummary(matrix, written.dir));
  process.exitCode = matrix.exitCode;
}

/** The lines `matrix` and `report` print for a matrix: each client's tier, and where the page is. */
function matrixSummary(m: Matrix, dir: string): string {
  const lines = ['', `a2a-conformance matrix · ${m.clients.length} client(s)`];
  for (const c of m.clients)
    lines.push(
      `  ${tierWords(c.tier).padEnd(9)} ${printableInline(`${c.name} ${c.version}`)}${c.tier.blockers.length ? ` — kept from the next tier by: ${c.tier.blockers.map((b) => b.condition).join('; ')}` : ''}`,
    );
  // Scored against an earlier requirement set: what it leaves out is said, not hidden.
  const set = m.clients.find((c) => c.tier.requirements && c.tier.requirements !== m.ruleset)?.tier;
  if (set)
    lines.push(
      `  scored against the requirement set ${set.requirements} (the runs' ruleset is ${m.ruleset}): ${m.clients.map((c) => `${printableInline(c.name)} ${c.tier.notScored?.scenarios ?? 0} scenario(s) and ${c.tier.notScored?.checks ?? 0} check(s) not scored`).join('; ')}`,
    );
  const rel = relative(process.cwd(), dir);
  const at = rel.startsWith('..') ? dir : rel || '.';
  lines.push(`matrix: ${join(at, 'index.html')} · data: ${join(at, 'matrix.json')} · badges: ${join(at, 'badges')}/`, `exit code ${m.exitCode}`, '');
  return lines.join('\n');
}
