/**
 * `a2a-conformance`: run the conformance scenarios against an A2A client and grade it from the wire.
 * Exit codes (DESIGN.md §4.3): 0 all verdicts expected; 1 an unexpected verdict or nothing graded;
 * 2 a harness ERROR or bad arguments.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolve, join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { BUILTIN_CLIENTS } from '../../clients/index.js';
import { RULE_IDS } from '../core/rules.js';
import type { RunResults } from '../core/results.js';
import { VERDICT_KINDS } from '../core/verdict.js';
import { DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue, PACKAGE_ROOT, ScenarioLoadError } from '../runner/catalogue.js';
import { harnessVersion, runConformance } from '../runner/run.js';

class UsageError extends Error {
  override readonly name = 'UsageError';
}

async function scenarioFiles(globs: string[] | undefined): Promise<string[]> {
  const files = globs?.length
    ? await findScenarioFiles(globs, process.cwd())
    : await findScenarioFiles([DEFAULT_SCENARIO_GLOB], PACKAGE_ROOT);
  if (files.length === 0) throw new UsageError(`no scenario files (*.scenario.ts) match ${globs?.join(', ') ?? DEFAULT_SCENARIO_GLOB}`);
  return files;
}

function printSummary(r: RunResults, out: string): void {
  const counts = VERDICT_KINDS.map((k) => `${k} ${r.summary[k]}`).join('  ');
  const lines = [
    '',
    `a2a-conformance ${r.harness.version} · client ${r.client.name} ${r.client.version} · ${r.results.length} scenario(s) run, ${r.notRun.length} not run · ${(r.durationMs / 1000).toFixed(1)} s`,
    counts,
  ];
  for (const u of r.unexpected) {
    const res = r.results.find((x) => x.id === u.id);
    const worst = res?.checks.find((c) => c.verdict === u.verdict);
    lines.push(`  ✗ ${u.verdict.padEnd(10)} ${u.id}${worst ? ` — ${worst.rule}: ${worst.reason}` : ''}`);
  }
  lines.push(`results: ${join(out, 'results.json')}`, `exit code ${r.exitCode}`);
  process.stdout.write(lines.join('\n') + '\n');
}

function ruleList(v: string, prev: string[] = []): string[] {
  const ids = v.split(',').map((x) => x.trim()).filter(Boolean);
  for (const id of ids) if (!RULE_IDS.includes(id as never)) throw new UsageError(`unknown rule "${id}". Rules: ${RULE_IDS.join(', ')}`);
  return [...prev, ...ids];
}

export function buildProgram(): Command {
  const program = new Command('a2a-conformance')
    .description('Conformance harness for A2A (Agent2Agent) clients: scripted vendor peers over real TLS/mTLS, graded from the wire.')
    .version(harnessVersion())
    .showHelpAfterError('(run with --help for usage)');

  program
    .command('run')
    .description('run the scenarios against a client and write <out>/results.json')
    .option('--client <name>', `a built-in client (${BUILTIN_CLIENTS.map((c) => c.name).slice(0, 3).join(', ')}, …; see \`list --clients\`)`)
    .addOption(new Option('--client-cmd <command>', 'a client run as a subprocess speaking NDJSON (not available yet)').hideHelp())
    .option('--scenarios <glob...>', 'scenario files or globs (default: the built-in scenarios)')
    .option('--rule <id>', 'only scenarios of this rule (repeatable, or comma-separated)', ruleList)
    .option('--out <dir>', 'where results.json goes', 'conformance-report')
    .option('--strict', 'treat NON_STRICT as unexpected', false)
    .option('--deadline-multiplier <x>', 'scale every scenario deadline (slow machines)', (v) => {
      const x = Number(v);
      if (!(x > 0 && x <= 100)) throw new UsageError(`--deadline-multiplier must be a number in (0, 100], got "${v}"`);
      return x;
    }, 1)
    .option('--seed <salt>', 'salt of the opaque scenario ids (random by default)')
    .action(async (opts: { client?: string; clientCmd?: string; scenarios?: string[]; rule?: string[]; out: string; strict: boolean; deadlineMultiplier: number; seed?: string }) => {
      if (opts.clientCmd) throw new UsageError('--client-cmd (subprocess clients) is not available in this version; use --client');
      if (!opts.client) throw new UsageError('say which client to run: --client <name> (see `a2a-conformance list --clients`)');
      if (!BUILTIN_CLIENTS.some((c) => c.name === opts.client))
        throw new UsageError(`unknown client "${opts.client}". Built-in clients: ${BUILTIN_CLIENTS.map((c) => c.name).join(', ')}`);
      const files = await scenarioFiles(opts.scenarios);
      const out = resolve(opts.out);
      const results = await runConformance({
        client: opts.client,
        files,
        rules: opts.rule,
        strict: opts.strict,
        deadlineMultiplier: opts.deadlineMultiplier,
        seed: opts.seed,
        onProgress: (n, total, r) => process.stderr.write(`[${String(n).padStart(String(total).length)}/${total}] ${r.verdict.padEnd(13)} ${r.id} (${r.durationMs} ms)\n`),
      });
      await mkdir(out, { recursive: true });
      await writeFile(join(out, 'results.json'), JSON.stringify(results, null, 2) + '\n');
      printSummary(results, out);
      process.exitCode = results.exitCode;
    });

  program
    .command('list')
    .description('list the scenarios (or, with --clients, the built-in clients)')
    .option('--clients', 'print the built-in clients, one per line')
    .option('--scenarios <glob...>', 'scenario files or globs (default: the built-in scenarios)')
    .option('--json', 'print JSON')
    .action(async (opts: { clients?: boolean; scenarios?: string[]; json?: boolean }) => {
      if (opts.clients) {
        if (opts.json) process.stdout.write(JSON.stringify(BUILTIN_CLIENTS.map(({ name, description, caughtBy }) => ({ name, description, caughtBy })), null, 2) + '\n');
        else process.stdout.write(BUILTIN_CLIENTS.map((c) => c.name).join('\n') + '\n');
        return;
      }
      const catalogue = await loadCatalogue(await scenarioFiles(opts.scenarios));
      if (opts.json) {
        process.stdout.write(JSON.stringify(catalogue.map((e) => ({ id: e.scenario.id, rule: e.scenario.rule, title: e.scenario.title, expect: e.scenario.expect })), null, 2) + '\n');
        return;
      }
      for (const e of catalogue) process.stdout.write(`${e.scenario.id.padEnd(52)} ${e.scenario.rule.padEnd(22)} ${e.scenario.expect}\n`);
    });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0 through here too.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UsageError || err instanceof ScenarioLoadError) {
      process.stderr.write(`a2a-conformance: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`a2a-conformance: internal error (exit 2): ${(err as Error).stack ?? String(err)}\n`);
    return 2;
  }
}
