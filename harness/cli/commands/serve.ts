/** `serve`: the scripted peers on 127.0.0.1, for debugging a client by hand, until Ctrl-C. */
import type { Command } from 'commander';
import { OutputError, UsageError } from '../../faults.js';
import { load, reap, resolvePath, scenarioFiles } from '../context.js';
import { print, printErr } from '../io.js';
import { configOption, noConfigOption, noBuiltinOption, scenariosOption } from '../options.js';
import type { Serving } from '../../runner/engine/serve.js';

export function register(program: Command): void {
  program
    .command('serve')
    .description('start the scripted peers on 127.0.0.1 for debugging a client by hand; Ctrl-C stops')
    .option('--peer <name>', 'a scenario id or a peer factory name (default: every scenario)')
    .option('--pki-dir <dir>', 'keep the certificates here and reuse them across runs')
    .addOption(configOption())
    .addOption(noConfigOption())
    .addOption(scenariosOption())
    .addOption(noBuiltinOption())
    .action(async (opts: { peer?: string; pkiDir?: string; scenarios?: string[]; builtin: boolean }) => {
      const catalogue = await (await load.catalogue()).loadCatalogue(await scenarioFiles(opts.scenarios, opts.builtin));
      const { interruptible } = await load.interrupt();
      const { serve } = await load.serve();
      const { makeFolder } = await load.output();
      await reap();
      const stop = interruptible((l) => printErr(l + '\n'), 'the peers', { setsExitCode: false });
      let serving: Serving;
      try {
        serving = await serve({
          catalogue,
          peer: opts.peer,
          pkiDir: opts.pkiDir !== undefined ? resolvePath('--pki-dir', opts.pkiDir) : undefined,
          makeFolder: (path) => makeFolder(path, '--pki-dir'),
          out: (l) => print(l + '\n'),
        });
      } catch (err) {
        stop.dispose();
        if (err instanceof OutputError) throw err;
        throw new UsageError((err as Error).message);
      }
      try {
        await new Promise<void>((done) => stop.signal.addEventListener('abort', () => done(), { once: true }));
        print('stopping…\n');
        await serving.stop();
      } finally {
        stop.dispose();
      }
      // Ctrl-C is how `serve` ends: exit 0 once everything is closed and removed.
    });
}
