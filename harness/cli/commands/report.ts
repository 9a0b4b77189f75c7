/** `report`: results.json files re-rendered (several, the shards of one run, merged) and optionally re-judged. */
import type { Command } from 'commander';
import { finishWriting, load, readExpectations } from '../context.js';
import { print, printErr } from '../io.js';
import { summaryText, wantsColour } from '../reporters.js';

export function register(program: Command): void {
  program
    .command('report')
    .description('re-render reports from results.json files; several (shards of one run) are merged')
    .argument('<results...>', 'results.json files')
    .option('--out <dir>', 'where the merged report goes', 'conformance-report')
    .option('--expectations <file>', 're-judge the merged results against this expectations file')
    .option('--strict', 'with --expectations: treat NON_STRICT as unexpected', false)
    .action(async (files: string[], opts: { out: string; expectations?: string; strict: boolean }) => {
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
      process.exitCode = merged.exitCode;
    });
}
