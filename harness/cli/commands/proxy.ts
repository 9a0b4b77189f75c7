/**
 * `proxy`: a client driven through a recording proxy in front of a live A2A agent (docs/live.md).
 * One run: the agent's card read, the client handed the proxy's copy of it over the run's own TLS
 * (its CA given to the client as for any run), every exchange recorded and forwarded, and graded by
 * the duties the wire shows without a scripted peer. Writes a report as `run` does.
 */
import type { Command } from 'commander';
import { checkClientChoice, finishWriting, load, reap } from '../context.js';
import { printErr, writeRaw } from '../io.js';
import { wholeNumber } from '../options.js';
import type { RunResults } from '../../core/results.js';

interface ProxyOpts {
  upstream: string;
  client?: string;
  clientCmd?: string;
  out: string;
  cutStreams?: boolean;
  refuseFirst?: string;
  deadline?: number;
  text?: string;
}

export function register(program: Command): void {
  program
    .command('proxy')
    .description('drive a client through a recording proxy in front of a live A2A agent, and grade what the wire shows (docs/live.md)')
    .requiredOption('--upstream <card URL>', "the live agent's card URL (e.g. https://agent.example/.well-known/agent-card.json)")
    .option('--client <name>', 'a built-in client (reference, naive, a2a-js-sdk, …; see `list --clients`)')
    .option('--client-cmd <command>', 'any other client: a command that speaks the NDJSON protocol (docs/protocol.md)')
    .option('--out <dir>', 'where the report goes: index.html, results.json, junit.xml, summary.md', 'conformance-live')
    .option('--cut-streams', 'end every event stream after its first event, the task left to go on (exercises stream recovery)')
    .option('--refuse-first <operation>', 'answer the first call of this A2A operation 503 with Retry-After: 1, without forwarding it')
    .option('--deadline <ms>', "the client's deadline (default 20000)", (v) => wholeNumber('--deadline', v, 1000, 600_000))
    .option('--text <message>', 'the message the client is asked to send (default "What can you do?")')
    .action(async (opts: ProxyOpts) => {
      await checkClientChoice(opts);
      const { readAgentCard, refusableOperation, runLive } = await import('../../runner/engine/live.js');
      if (opts.refuseFirst !== undefined) refusableOperation(opts.refuseFirst);
      // The agent's card first: an upstream that is not one costs one line, and no report folder.
      const read = await readAgentCard(opts.upstream);
      const { claimOutput } = await load.output();
      const { interruptible } = await load.interrupt();
      await reap();
      const out = await claimOutput('--out', opts.out);
      const stop = interruptible((l) => printErr(l + '\n'), 'the live run', { onStop: (s) => out.abandon(`it was stopped by ${s}`) });
      let results: RunResults;
      try {
        results = await runLive({
          upstream: opts.upstream,
          read,
          ...(opts.client !== undefined ? { client: opts.client } : {}),
          ...(opts.clientCmd !== undefined ? { clientCmd: opts.clientCmd } : {}),
          ...(opts.cutStreams ? { cutStreams: true } : {}),
          ...(opts.refuseFirst !== undefined ? { refuseFirst: opts.refuseFirst } : {}),
          ...(opts.deadline !== undefined ? { deadlineMs: opts.deadline } : {}),
          ...(opts.text !== undefined ? { text: opts.text } : {}),
          signal: stop.signal,
        });
      } catch (err) {
        stop.dispose();
        out.abandon(`it failed: ${(err as Error).message}`);
        throw err;
      }
      const written = await finishWriting(stop, out, () => out.commit(results));
      const { summaryText } = await import('../reporters.js');
      const r = results.results[0];
      if (r) {
        writeRaw(
          process.stdout,
          `live: ${r.title}\n  ${r.verdict} (${r.rule}); measured: ${r.checks
            .filter((c) => !c.reason.startsWith('not measured'))
            .map((c) => `${c.rule} ${c.verdict}`)
            .join(', ')}\n`,
        );
      }
      writeRaw(process.stdout, summaryText(results, written));
      process.exitCode = results.exitCode;
    });
}
