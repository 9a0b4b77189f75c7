/**
 * `properties` and `replay`: the property families against a client, from the command line. Progress
 * goes to stderr, one line per family (and one per shrink step); the report is written as for `run`;
 * `--export` writes each counterexample as a `.scenario.json` that runs as a plain scenario, its
 * `expect` being the reference client's verdict on it.
 */
import type { PropertyFamilyResult, RunResults, ScenarioResult } from '../core/results.js';
import type { Scenario } from '../core/scenario/scenario.js';
import type { Binding } from '../core/protocol/types.js';
import { shown } from './reporters.js';
import { scenarioVerdict, VERDICT_KINDS } from '../core/verdict.js';
import { printable, printableInline } from '../core/text.js';
import type { Family } from '../properties/family.js';
import { runProperties, shellWord, type PropertyRunOptions } from '../runner/properties/run.js';
import { runConformance } from '../runner/engine/run.js';
import { writeFileAtomic } from './output.js';
import type { StatusLine } from './io.js';

export interface PropertiesCommand {
  client?: string;
  clientCmd?: string;
  families: Family[];
  runs?: number;
  seed: number;
  path?: string;
  /** `replay --without-faults`: the nemesis family's case with none of its faults laid. */
  withoutFaults?: boolean;
  /** `--shard i/n`, checked. */
  shard?: { index: number; count: number };
  strict: boolean;
  deadlineMultiplier: number;
  lanes?: number;
  /** `--workers`: threads with lanes (worker-pool.ts). */
  workers?: number;
  /** `--binding`, as asked (the run checks them against the client's hello). */
  bindings?: Binding[];
  /** A checked, writable `.scenario.json` path. */
  exportTo?: string;
  signal: AbortSignal;
  err: (text: string) => void;
  /** Where the sweep's progress is drawn in place on a terminal (io.ts), and what leads it (matrix: the client's name). */
  status?: { line: StatusLine; prefix?: string };
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function counts(f: PropertyFamilyResult): string {
  return VERDICT_KINDS.filter((k) => f.verdicts[k])
    .map((k) => `${k} ${f.verdicts[k]}`)
    .join(' · ');
}

export async function propertiesCommand(c: PropertiesCommand): Promise<RunResults> {
  const clientArgs = c.clientCmd !== undefined ? `--client-cmd ${shellWord(c.clientCmd)}` : `--client ${shellWord(c.client ?? 'reference')}`;
  const o: PropertyRunOptions = {
    families: c.families,
    seed: c.seed,
    strict: c.strict,
    deadlineMultiplier: c.deadlineMultiplier,
    clientArgs,
    signal: c.signal,
    ...(c.client !== undefined ? { client: c.client } : {}),
    ...(c.clientCmd !== undefined ? { clientCmd: c.clientCmd } : {}),
    ...(c.runs !== undefined ? { runs: c.runs } : {}),
    ...(c.path !== undefined ? { path: c.path } : {}),
    ...(c.withoutFaults ? { withoutFaults: true } : {}),
    ...(c.shard !== undefined ? { shard: c.shard } : {}),
    ...(c.lanes !== undefined ? { lanes: c.lanes } : {}),
    workers: c.workers ?? 'auto',
    ...(c.bindings?.length ? { bindings: c.bindings } : {}),
  };
  let lastTick = Date.now();
  // When each family's sweep began: the progress lines estimate what is left of it from its pace so far.
  const began = new Map<string, number>();
  o.onCase = (family, done, total, pc, failing) => {
    const now = Date.now();
    if (!began.has(family)) began.set(family, now);
    const left = () => secs(((now - began.get(family)!) / done) * (total - done));
    if (failing) c.status?.line.clear();
    if (failing) c.err(printable(`  ${family}: the case at path ${pc.path} failed (${pc.verdict}, ${pc.rule}, story ${pc.story}); shrinking…\n`));
    else if (c.status?.line.live) {
      // On a terminal: one line, redrawn at most five times a second.
      if (now - lastTick > 200 || done === total) {
        lastTick = now;
        c.status.line.set(`${c.status.prefix ?? ''}${family}: ${done}/${total} cases · about ${left()} left in this family`);
      }
    } else if (now - lastTick > 5000) {
      lastTick = now;
      c.err(`  ${family}: ${done}/${total} cases, about ${left()} left in this family\n`);
    }
  };
  o.onShrink = (family, step, r) => {
    if (step % 5 === 1) c.err(printable(`  ${family}: shrink step ${step}: still ${r.verdict} (${r.rule})\n`));
  };
  o.onFamily = (f) => {
    c.status?.line.clear();
    const head = `${f.failed ? '✗' : '✓'} ${f.family.padEnd(12)} ${String(f.ran).padStart(5)} case(s) · ${counts(f) || 'none run'}${overBindings(f)} · ${secs(f.durationMs)}`;
    c.err(printable(`${head}${f.failed && f.shrinkMs !== undefined ? ` · shrunk in ${secs(f.shrinkMs)}` : ''}\n`));
  };
  // Once the client has said hello, which the bindings are checked against: a binding it does not declare is one line, before any other.
  o.onHello = (bindings) =>
    c.err(
      printable(
        `a2a-conformance properties · seed ${c.seed} · ${c.path !== undefined ? `path ${c.path}` : `${c.runs ?? 100} case(s) per family`}${c.shard ? ` · shard ${c.shard.index}/${c.shard.count} (cases #${c.shard.index - 1}, #${c.shard.index - 1 + c.shard.count}, …)` : ''} · ${c.families.map((f) => f.id).join(', ')}${bindings.join() === 'JSONRPC' ? '' : ` · over ${bindings.join(', ')}`}\n`,
      ),
    );
  const results = await runProperties(o);
  if (c.exportTo)
    await exportCounterexamples(
      results.results.filter((r) => r.property),
      c.exportTo,
      c,
    );
  return results;
}

/** Where a family's cases were told over other bindings than JSON-RPC alone: how many over each. */
function overBindings(f: PropertyFamilyResult): string {
  if (!f.bindings) return '';
  const over = new Map<string, number>();
  for (const x of f.cases) over.set(x.binding ?? 'JSONRPC', (over.get(x.binding ?? 'JSONRPC') ?? 0) + 1);
  return ` · over ${f.bindings.map((b) => `${b} ${over.get(b) ?? 0}`).join(', ')}`;
}

/** The lines that end a property run: each counterexample with its replay command. */
export function propertiesSummary(r: RunResults, written: { html: string; results: string }): string {
  const lines: string[] = [''];
  const fams = r.properties ?? [];
  const ran = fams.reduce((n, f) => n + f.ran, 0);
  lines.push(
    `a2a-conformance ${r.harness.version} · client ${printableInline(`${r.client.name} ${r.client.version}`)} · ${fams.length} famil${fams.length === 1 ? 'y' : 'ies'}, ${ran} case(s) · seed ${r.seed} · ${secs(r.durationMs)}`,
  );
  for (const res of r.results) {
    const p = res.property!;
    const worst = res.checks.find((x) => x.verdict === res.verdict);
    lines.push(
      `  ✗ ${p.family}: ${res.verdict} on story ${p.story}${p.drifts.length ? ` (${p.drifts.join(', ')})` : ''}, graded by ${res.rule}${worst ? ` — ${worst.rule}: ${printableInline(worst.reason)}` : ''}`,
      p.notReproduced
        ? `    the case at path ${p.path} did not fail again when replayed: flaky here (on a loaded machine, lower --lanes or raise --deadline-multiplier)`
        : p.firstFailure === p.path && p.shrinks === 0
          ? `    the case at path ${p.path}`
          : `    first failure at path ${p.firstFailure}, shrunk ${p.shrinks} time(s) to path ${p.path}${p.shrinkInterrupted ? ' (shrinking stopped at its time budget)' : ''}`,
      `    replay: ${p.replay}`,
    );
  }
  if (fams.length && !r.results.some((x) => x.property && fams.find((f) => f.family === x.property!.family)?.failed)) lines.push('  every family passed');
  lines.push(`report: ${shown(written.html)}`, `results: ${shown(written.results)}`, `exit code ${r.exitCode}`);
  return printable(lines.join('\n')) + '\n';
}

/**
 * Writes the counterexamples as one `.scenario.json`, then runs the reference client over that file
 * (loading it as any vendor file is loaded) and records its verdicts as the scenarios' `expect`.
 */
async function exportCounterexamples(results: ScenarioResult[], file: string, c: PropertiesCommand): Promise<void> {
  if (results.length === 0) {
    c.err('--export: no counterexample to write (every family passed); nothing written\n');
    return;
  }
  const scenarios: Scenario[] = results.map((r) => ({ ...r.property!.scenario, expect: 'PASS' }));
  await writeFileAtomic(file, JSON.stringify(scenarios, null, 2) + '\n');
  const reference = await runConformance({ client: 'reference', files: [file], signal: c.signal, lanes: 1 });
  // The scenario's own verdict: a run of rejections alone is not credited (runner/dialect.ts), but beside the
  // built-in scenarios, where the exported file is meant to run, it is.
  const own = (r: ScenarioResult) => (r.checks[0]?.rule === 'DIALECT' ? scenarioVerdict(r.checks.slice(1), r.rule) : r.verdict);
  const verdicts = new Map(reference.results.map((r) => [r.id, own(r)]));
  const settled = scenarios.map((s) => ({ ...s, expect: verdicts.get(s.id) ?? s.expect }));
  await writeFileAtomic(file, JSON.stringify(settled, null, 2) + '\n');
  c.err(
    printable(
      `exported ${settled.length} counterexample(s) to ${file} (expect: the reference client's verdict, ${settled.map((s) => s.expect).join(', ')}); run it with --scenarios ${file}\n`,
    ),
  );
}
