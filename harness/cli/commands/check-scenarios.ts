/** `check-scenarios`: the reference client over a vendor's scenario files, each verdict checked against its `expect`. */
import type { Command } from 'commander';
import { checkBehind, type RunResults } from '../../core/results.js';
import { RunInterrupted, Stopped } from '../../faults.js';
import { finishWriting, load, reap, scenarioFiles } from '../context.js';
import { print, printErr } from '../io.js';

export function register(program: Command): void {
  program
    .command('check-scenarios')
    .description(
      'run the reference client over your scenario files; exit 1 naming each scenario whose verdict differs from its `expect`, or that grades nothing (a careless client gets the same INFORMATIONAL)',
    )
    .argument('<patterns...>', 'scenario files, folders or globs (the built-in scenarios are not included)')
    .option('--out <dir>', 'also write the report of the reference run here')
    .option('--json', 'print the outcome as JSON (docs/check-scenarios.schema.json) instead of text', false)
    .action(async (patterns: string[], opts: { out?: string; json: boolean }) => {
      const { loadCatalogue } = await load.catalogue();
      const { runConformance } = await load.run();
      const { interruptible } = await load.interrupt();
      const { claimOutput } = await load.output();
      const catalogue = await loadCatalogue(await scenarioFiles(patterns, false));
      await reap();
      const out = opts.out !== undefined ? await claimOutput('--out', opts.out) : undefined;
      const stop = interruptible((l) => printErr(l + '\n'), 'the check', { onStop: (s) => out?.abandon(`it was stopped by ${s}`) });
      let results: RunResults;
      try {
        results = await runConformance({ client: 'reference', files: catalogue.map((e) => e.file), catalogue, signal: stop.signal });
      } catch (err) {
        stop.dispose();
        if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
        out?.abandon(`it failed: ${(err as Error).message}`);
        throw err;
      }
      // A scenario the reference leaves INFORMATIONAL, with no assertion of its own, may grade nothing at
      // all: run a careless client over those; where it gets the same verdict, nothing tells them apart.
      const idle = results.results.filter((r) => r.verdict === 'INFORMATIONAL' && !catalogue.find((e) => e.scenario.id === r.id)?.scenario.assertions?.length);
      const nothing = new Set<string>();
      if (idle.length > 0) {
        const subset = catalogue.filter((e) => idle.some((r) => r.id === e.scenario.id));
        let control: RunResults;
        try {
          control = await runConformance({ client: 'naive', files: subset.map((e) => e.file), catalogue: subset, signal: stop.signal });
        } catch (err) {
          stop.dispose();
          if (err instanceof RunInterrupted || stop.received) throw new Stopped(stop.received ?? 'SIGINT');
          out?.abandon(`it failed: ${(err as Error).message}`);
          throw err;
        }
        for (const r of control.results) if (r.verdict === 'INFORMATIONAL') nothing.add(r.id);
      }
      const done = results;
      await finishWriting(stop, out, async () => out?.commit(done));
      const differ = results.results.filter((r) => r.verdict !== r.expect);
      process.exitCode = differ.length > 0 || nothing.size > 0 || results.results.length === 0 ? 1 : 0;
      if (opts.json) {
        // The same outcome as data; ids and reasons are the vendor's text, kept as data by JSON.stringify.
        const scenarios = results.results.map((r) => {
          const worst = r.verdict === r.expect ? undefined : checkBehind(r);
          const outcome = r.verdict !== r.expect ? 'differs' : nothing.has(r.id) ? 'grades-nothing' : 'as-declared';
          return { id: r.id, expect: r.expect, verdict: r.verdict, outcome, ...(worst ? { why: `${worst.rule}: ${worst.reason.split('\n')[0]}` } : {}) };
        });
        const doc = {
          schema: 'a2a-conformance/check-scenarios@1',
          scenarios,
          notRun: results.notRun,
          summary: {
            scenarios: results.results.length,
            asDeclared: results.results.length - differ.length - nothing.size,
            differ: differ.length,
            gradeNothing: nothing.size,
          },
          exitCode: process.exitCode,
        };
        print(`${JSON.stringify(doc, null, 2)}\n`);
        return;
      }
      for (const r of results.results) {
        if (r.verdict === r.expect && !nothing.has(r.id)) {
          print(`ok   ${r.id} (${r.verdict})\n`);
          continue;
        }
        if (r.verdict === r.expect) {
          print(
            `✗    ${r.id}: grades nothing: the reference and a careless client (naive) get the same verdict (INFORMATIONAL); give it a rule that binds where it leads (docs/scenarios.md, "What a scenario grades"), or assertions of its own\n`,
          );
          continue;
        }
        const worst = checkBehind(r);
        print(`✗    ${r.id}: declares ${r.expect}, the reference client got ${r.verdict}${worst ? ` — ${worst.rule}: ${worst.reason}` : ''}\n`);
      }
      for (const n of results.notRun) print(`skip ${n.id}: ${n.reason}\n`);
      print(
        `${results.results.length} scenario(s): ${results.results.length - differ.length} as declared, ${differ.length} differ${differ.length ? ` (${differ.map((r) => r.id).join(', ')})` : ''}${nothing.size ? `, ${nothing.size} grade nothing (${[...nothing].join(', ')})` : ''}\n`,
      );
    });
}
