/**
 * What the commands share: the modules they load when they act, and the steps every command that
 * opens a run folder or writes a report takes the same way.
 */
import { distance } from 'fastest-levenshtein';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PlaceError, Stopped, UsageError } from '../faults.js';
import type { Expectations } from '../runner/judge/expectations.js';
import type { Interruptible } from './interrupt.js';
import { printErr } from './io.js';
import type { ClaimedOutput } from './output.js';

/**
 * The rest of the harness loads when a command needs it: `--version`, `--help` and argument
 * errors answer from the modules above alone (a fraction of a second), a run loads what runs.
 */
/** The config file the command runs with, where one was found (main.ts sets it; `run` records it in results.json). */
export const usedConfig: { file?: string } = {};

export const load = {
  clients: () => import('../../clients/index.js'),
  catalogue: () => import('../runner/load/catalogue.js'),
  run: () => import('../runner/engine/run.js'),
  select: () => import('../runner/engine/select.js'),
  expectations: () => import('../runner/judge/expectations.js'),
  merge: () => import('../runner/judge/merge.js'),
  matrix: () => import('../runner/judge/matrix.js'),
  requirements: () => import('../runner/judge/requirements.js'),
  compare: () => import('../runner/judge/compare.js'),
  matrixReports: () => import('../../reports/matrix.js'),
  resultsInput: () => import('./results-input.js'),
  reports: () => import('../../reports/index.js'),
  policy: () => import('../runner/judge/policy.js'),
  serve: () => import('../runner/engine/serve.js'),
  doctor: () => import('../runner/engine/doctor.js'),
  output: () => import('./output.js'),
  interrupt: () => import('./interrupt.js'),
  workspace: () => import('../runner/infrastructure/workspace.js'),
  properties: () => import('./properties.js'),
  inputFile: () => import('./input-file.js'),
  config: () => import('./config.js'),
  families: () => import('../properties/families/index.js'),
  pkiEarly: () => import('../runner/infrastructure/pki-early.js'),
  workerPool: () => import('../runner/engine/worker-pool.js'),
};

let startedEarly = false;

/** Ends what startEarly started and no run took, before the command returns (main.ts). */
export async function stopEarly(): Promise<void> {
  if (!startedEarly) return;
  startedEarly = false;
  const ended = Promise.all([(await load.pkiEarly()).dropPkiEarly(), (await load.workerPool()).dropSpareWorkers()]);
  // A thread that does not end within a few seconds is left to the exit, not waited for.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, 5000).unref()))]).finally(() => clearTimeout(timer));
}

/**
 * What a run starts before it loads its catalogue, on the other cores: its PKI (pki-early.ts), and,
 * where the run may spread its lanes across threads (`threads`: a built-in client's long run), the
 * worker threads it would use (worker-pool.ts; none with `--workers 1`), their modules loading
 * meanwhile. Neither keeps the process alive if the command ends first.
 */
export async function startEarly(opts: { workers?: number; lanes?: number }, threads: boolean): Promise<void> {
  startedEarly = true;
  (await load.pkiEarly()).makePkiEarly();
  if (!threads || opts.workers === 1 || opts.lanes === 1) return;
  const { defaultWorkers, prestartLaneWorkers } = await load.workerPool();
  prestartLaneWorkers(opts.workers ?? defaultWorkers(opts.lanes ?? Number.POSITIVE_INFINITY));
}

/**
 * Says (on stderr) what a run killed with SIGKILL left, and removes it. Every command that opens a
 * run folder calls this first, before it claims `--out`: so the temp folder is checked here.
 */
export const reap = async () => {
  checkTempFolder();
  for (const line of (await load.workspace()).reapDeadRuns()) printErr(`a2a-conformance: ${line}\n`);
};

export const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String((err as Error).message).split('\n')[0];

/**
 * A run's private folder is made in the temp folder (TMPDIR): one that is missing, a file or not
 * writable is said before anything is claimed or started, not as a stack trace from deep in a run.
 */
function checkTempFolder(): void {
  const dir = tmpdir();
  try {
    rmdirSync(mkdtempSync(join(dir, 'a2a-conformance-probe-')));
  } catch (err) {
    throw new PlaceError(`the temp folder ${dir} cannot be used (${codeOf(err)}): set TMPDIR to a folder you can write, or unset it`);
  }
}

/** The work's outcome, or Stopped as soon as a signal arrives (the handler has already cleaned up). */
export function untilStopped<T>(stop: Interruptible, work: Promise<T>): Promise<T> {
  const stopped = new Promise<never>((_, reject) =>
    stop.signal.addEventListener('abort', () => reject(new Stopped(stop.received ?? 'SIGINT')), { once: true }),
  );
  work.catch(() => {});
  return Promise.race([work, stopped]);
}

export const resolvePath = (option: string, given: string) => {
  if (!given.trim()) throw new UsageError(`${option} needs a folder name (it was empty)`);
  return resolve(given);
};

/**
 * The scenario files of a command: the built-in catalogue (unless `--no-builtin`) plus every file
 * each `--scenarios` pattern names. A pattern that names no scenario file is an error that says so:
 * a vendor must never believe a folder ran that did not.
 */
export async function scenarioFiles(globs: string[] | undefined, builtin = true): Promise<string[]> {
  const { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, matchScenarioFiles, SCENARIO_SUFFIXES } = await load.catalogue();
  const files = new Set<string>(builtin ? await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT) : []);
  if (!builtin && !globs?.length) throw new UsageError('--no-builtin leaves no scenarios: add --scenarios <glob> with your own files');
  for (const g of globs ?? []) {
    const found = await matchScenarioFiles(g, process.cwd());
    if (found.length === 0)
      throw new UsageError(
        `--scenarios ${JSON.stringify(g)} matches no scenario file (${SCENARIO_SUFFIXES.map((x) => `*${x}`).join(', ')}) from ${process.cwd()}`,
      );
    for (const f of found) files.add(f);
  }
  return [...files].sort();
}

/** `--scenario` (run, matrix): every id named must be in the catalogue, as told over the bindings asked for. */
export function checkScenarioIds(catalogue: ReadonlyArray<{ scenario: { id: string } }>, ids: readonly string[] = []): void {
  const unknown = ids.find((id) => !catalogue.some((e) => e.scenario.id === id));
  if (unknown !== undefined) throw new UsageError(`--scenario: no scenario "${unknown}" in the catalogue (see \`a2a-conformance list\`)`);
}

export async function readExpectations(file: string): Promise<Expectations> {
  const { EXPECTATIONS_LIMITS, parseExpectations } = await load.expectations();
  let text: string;
  try {
    text = await (await load.inputFile()).readInputFile(file, EXPECTATIONS_LIMITS.bytes);
  } catch (err) {
    throw new UsageError(`cannot read the expectations file ${file}: ${(err as Error).message}`);
  }
  return parseExpectations(text, file);
}

/**
 * The end of a command that writes a report, in the signal handler's `writing` state (interrupt.ts);
 * the handler is removed after it. A signal that came as the work ended has already marked the
 * folder stopped: no report, 128 + n. One during the write lets it finish, then 128 + n. A write
 * that fails is one line, the folder marked incomplete with the reason.
 */
export async function finishWriting<T>(stop: Interruptible, out: ClaimedOutput | undefined, write: () => Promise<T>): Promise<T> {
  try {
    if (stop.received) throw new Stopped(stop.received);
    stop.writing((s) => out?.abandon(`it was stopped by ${s} while its report was being written`));
    let written: T;
    try {
      written = await write();
    } catch (err) {
      if (stop.received) throw new Stopped(stop.received);
      const why = String((err as Error).message).split('\n')[0]!;
      out?.abandon(`writing the report failed: ${why}`);
      throw new PlaceError(`could not write the report${out ? ` in ${out.dir}` : ''}: ${why}`);
    }
    if (stop.received) throw new Stopped(stop.received);
    return written;
  } finally {
    stop.dispose();
  }
}

/** `--client` or `--client-cmd`, exactly one, and a built-in client that exists: as `run`, `properties` and `replay` take them. */
export async function checkClientChoice(opts: { client?: string; clientCmd?: string }): Promise<void> {
  if (opts.client && opts.clientCmd) throw new UsageError('give --client or --client-cmd, not both');
  if (!opts.client && !opts.clientCmd)
    throw new UsageError('say which client to run: --client <name> (see `a2a-conformance list --clients`) or --client-cmd "<command>"');
  const { BUILTIN_CLIENTS } = await load.clients();
  if (opts.client && !BUILTIN_CLIENTS.some((c) => c.name === opts.client))
    throw new UsageError(
      unknownClient(
        opts.client,
        BUILTIN_CLIENTS.map((c) => c.name),
      ),
    );
}

/**
 * What to say of a `--client` no built-in client has: the names nearest to it (a slip of the keys),
 * else where the list is, never the whole list of mutants on one line.
 */
export function unknownClient(name: string, builtin: readonly string[]): string {
  const shown = JSON.stringify(name.slice(0, 80));
  const near = builtin
    .map((b) => ({ b, d: distance(name.toLowerCase(), b.toLowerCase()) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(name.length / 4)))
    .sort((a, b) => a.d - b.d || a.b.localeCompare(b.b))
    .slice(0, 3)
    .map((x) => `"${x.b}"`);
  return `unknown client ${shown}${near.length ? `: did you mean ${near.join(' or ')}?` : ''} (\`a2a-conformance list --clients\` lists the ${builtin.length} built-in clients; a client of your own runs with --client-cmd)`;
}
