/**
 * `report`: results.json files re-rendered (several, the shards of one run, merged) and optionally
 * re-judged; the results of several clients make the matrix (as `matrix` writes it); `--compare old new`
 * lists what changed between two runs, exit 1 on a regression.
 */
import type { Command } from 'commander';
import { finishWriting, load, readExpectations } from '../context.js';
import type { RunResults } from '../../core/results.js';
import { UsageError } from '../../faults.js';
import { print, printErr } from '../io.js';
import { summaryText, wantsColour } from '../reporters.js';
import { writeMatrix } from './matrix.js';
import { printableInline } from '../../core/text.js';

export function register(program: Command): void {
  program
    .command('report')
    .description(
      're-render reports from results.json files; several (shards of one run) are merged; the results of several clients make a matrix; --compare old new lists regressions',
    )
    .argument('<results...>', 'results.json files')
    .option('--out <dir>', 'where the merged report goes', 'conformance-report')
    .option('--expectations <file>', 're-judge the merged results against this expectations file')
    .option('--strict', 'with --expectations: treat NON_STRICT as unexpected', false)
    .option(
      '--requirements <ruleset>',
      "several clients: score the tiers against this frozen requirement set (docs/requirements/; default: the runs' own ruleset)",
    )
    .option('--compare', 'compare two runs: the first results.json is the old one, the second the new (exit 1 on a regression); nothing is written')
    .option('--json', 'with --compare: print the comparison as JSON (docs/compare.schema.json) instead of text', false)
    .option(
      '--bundle <file>',
      'also write an evidence bundle (a zip): the results as given, the report, the scenario definitions, the requirement set, the environment, a manifest of SHA-256 digests (check it with verify-bundle)',
    )
    .option('--scenarios <glob...>', 'with --bundle: your scenario files, whose definitions go into the bundle beside the built-in ones')
    .option(
      '--format <format>',
      "a2a-cli: print the a2a-cli compliance report (YAML) of one client's scenario run to stdout, filled from its wire verdicts (docs/a2a-cli.md); nothing is written",
    )
    .action(async (files: string[], opts: ReportOptions) => {
      if (opts.compare && opts.requirements)
        throw new UsageError('--compare lists changed verdicts, not tiers: --requirements scores the tiers of a matrix (report without --compare, or matrix)');
      if (opts.compare && opts.bundle) throw new UsageError('--compare writes nothing: --bundle goes with a report (report without --compare)');
      if (opts.scenarios && !opts.bundle) throw new UsageError('--scenarios names the definitions a bundle carries: give --bundle <file> too');
      if (opts.format !== undefined) {
        if (opts.format !== 'a2a-cli')
          throw new UsageError(`--format ${JSON.stringify(opts.format)}: the one format is a2a-cli (the report itself is written without --format)`);
        if (opts.compare || opts.bundle || opts.expectations || opts.requirements)
          throw new UsageError('--format a2a-cli prints one report to stdout: leave out --compare, --bundle, --expectations and --requirements');
        return a2aCliAction(files);
      }
      if (opts.json && !opts.compare) throw new UsageError('--json prints a comparison: give --compare too');
      if (opts.compare) return compareAction(files, opts.json);
      const bundle = opts.bundle ? (await load.output()).checkWritableFile('--bundle', opts.bundle, opts.out) : undefined;
      const { parseExpectations, judge } = await load.expectations();
      const { mergeResults } = await load.merge();
      const { exitCode } = await load.policy();
      const { checkOutput, writeOutput } = await load.output();
      const { renderReports } = await load.reports();
      // Each file bounded in size and depth and checked against its schema (harness/cli/results-input.ts).
      const notes: string[] = [];
      const runs = (await load.resultsInput()).readResultsFiles(files, (l) => notes.push(l));
      // The expectations a run was judged with travel inside it: checked as strictly as a file.
      for (const [i, r] of runs.entries()) if (r.expectations) parseExpectations(JSON.stringify(r.expectations), `${files[i]} (its "expectations")`);
      const { severalClients } = await load.matrix();
      // Several clients, or one client's scenario run beside its property run: the matrix (a tier needs both).
      const mixed = runs.some((r) => !!r.properties) && runs.some((r) => !r.properties);
      if (severalClients(runs) || mixed) {
        if (opts.expectations)
          throw new UsageError("--expectations re-judges one run: give the results of one client's run, or leave it out to write the matrix");
        await matrixFrom(runs, opts.out, notes, opts.requirements);
        if (bundle) await bundleAction(bundle, files, runs, opts);
        return;
      }
      if (opts.requirements)
        throw new UsageError(
          "--requirements scores the tiers of a matrix: give the results of several clients, or a client's scenario run beside its property run",
        );
      let merged = mergeResults(runs);
      if (opts.expectations) {
        const catalogue = [...merged.results.map((x) => x.id), ...merged.notRun.map((n) => n.id)];
        const { unexpected } = judge(merged.results, { strict: opts.strict || merged.strict }, await readExpectations(opts.expectations), catalogue);
        merged = { ...merged, unexpected, exitCode: Math.max(exitCode(merged.results, unexpected), merged.incomplete ? 1 : 0) };
      }
      // Every input read and judged, the folder checked and the whole report rendered before --out is
      // touched: a bad input, or data that cannot be rendered, never costs the previous report.
      checkOutput('--out', opts.out);
      const rendered = renderReports(merged);
      for (const l of [...notes, ...rendered.notes]) printErr(`a2a-conformance: ${l}\n`);
      // A signal while the files go into place lets them finish, then stops (exit 128+n).
      const { interruptible } = await load.interrupt();
      const stop = interruptible((l) => printErr(l + '\n'), 'the report');
      const written = await finishWriting(stop, undefined, () => writeOutput('--out', opts.out, rendered));
      print(summaryText(merged, written, wantsColour(process.stdout)));
      if (bundle) await bundleAction(bundle, files, runs, opts);
      process.exitCode = merged.exitCode;
    });
}

/** `--format a2a-cli`: the compliance YAML of one client's scenario run (its shards merged), on stdout. */
async function a2aCliAction(files: string[]): Promise<void> {
  const notes: string[] = [];
  const runs = (await load.resultsInput()).readResultsFiles(files, (l) => notes.push(l));
  for (const l of notes) printErr(`a2a-conformance: ${l}\n`);
  if (runs.some((r) => r.properties))
    throw new UsageError('--format a2a-cli reads a scenario run: its requirements are graded by scenarios, not property cases');
  if ((await load.matrix()).severalClients(runs))
    throw new UsageError("--format a2a-cli reports one client: give the results of one client's run (its shards)");
  const run = (await load.merge()).mergeResults(runs);
  const { a2aCliYaml } = await import('../a2a-cli-yaml.js');
  print(a2aCliYaml(run));
  process.exitCode = 0;
}

interface ReportOptions {
  out: string;
  expectations?: string;
  strict: boolean;
  compare?: boolean;
  requirements?: string;
  bundle?: string;
  scenarios?: string[];
  format?: string;
  json: boolean;
}

/** `--bundle`: the report just written, with what it was made from, in one zip; its digest printed. */
async function bundleAction(file: string, inputs: string[], runs: RunResults[], opts: ReportOptions): Promise<void> {
  const { writeBundle } = await import('../bundle.js');
  const b = await writeBundle({ file, inputs, runs, out: opts.out, requirements: opts.requirements, scenarioGlobs: opts.scenarios });
  if (b.missing.length)
    printErr(
      `a2a-conformance: ${b.missing.length} scenario(s) of these runs are neither built in nor in --scenarios (${b.missing.slice(0, 3).join(', ')}${b.missing.length > 3 ? ', …' : ''}): the bundle holds their results but not their definitions, so verify-bundle cannot grade them again\n`,
    );
  print(
    `bundle: ${printableInline(file)} · ${b.files} files, ${b.scenarios} scenario definitions · sha256 ${b.digest} (verify it: a2a-conformance verify-bundle ${printableInline(file)})\n`,
  );
}

/** The results of several clients: the matrix, written to --out as `matrix` writes it (every input read first). */
async function matrixFrom(runs: RunResults[], out: string, notes: string[], requirements?: string): Promise<void> {
  (await load.output()).checkOutput('--out', out);
  const { interruptible } = await load.interrupt();
  await writeMatrix(
    runs,
    out,
    interruptible((l) => printErr(l + '\n'), 'the matrix'),
    notes,
    requirements,
  );
}

/** `report --compare old new`: what changed, scenario by scenario; exit 1 on a regression, else 0. */
async function compareAction(files: string[], json = false): Promise<void> {
  if (files.length !== 2)
    throw new UsageError(
      `--compare takes two results.json files, the old run's then the new run's (got ${files.length}); merge a run's shards with \`report\` first`,
    );
  const notes: string[] = [];
  const [older, newer] = (await load.resultsInput()).readResultsFiles(files, (l) => notes.push(l)) as [RunResults, RunResults];
  for (const l of notes) printErr(`a2a-conformance: ${l}\n`);
  if (!!older.properties !== !!newer.properties)
    throw new UsageError('--compare: one of the two is a property run and the other a scenario run: compare like with like');
  const { compareRuns, comparisonText, regressed } = await load.compare();
  const c = compareRuns(older, newer);
  const worse = regressed(c);
  // Client names and reasons are the runs' own text: JSON.stringify keeps them data.
  print(json ? `${JSON.stringify({ schema: 'a2a-conformance/compare@1', ...c, regressed: worse }, null, 2)}\n` : comparisonText(c));
  process.exitCode = worse ? 1 : 0;
}
