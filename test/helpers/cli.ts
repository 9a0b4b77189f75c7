/** Runs the real CLI in a child process, as a vendor's CI would. */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunResults } from '../../harness/core/results.js';
import { schemaValidator } from '../../harness/runner/load/json-schema.js';
import { testTemp } from './tmp.js';

export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/a2a-conformance.mjs');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], opts: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliOutcome> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: opts.cwd ?? ROOT, ...(opts.env ? { env: opts.env } : {}), timeout: opts.timeoutMs ?? 180_000, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 99) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs a command that writes a report into a fresh folder of the running test (removed when it
 * finishes); returns its outcome, the folder and the parsed results.json.
 */
export async function intoReport<O extends CliOutcome>(go: (out: string) => Promise<O>): Promise<O & { results: RunResults; out: string }> {
  const out = testTemp('a2a-conformance-test-');
  const o = await go(out);
  let results: RunResults;
  try {
    results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as RunResults;
  } catch {
    throw new Error(`no results.json (exit ${o.code})\nstdout:\n${o.stdout}\nstderr:\n${o.stderr}`);
  }
  return { ...o, results, out };
}

/** `run` in a child process into a fresh folder (from the clone's root, or `cwd`); returns the outcome and the parsed results.json. */
export const cliRun = (args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => intoReport((out) => cli(['run', ...args, '--out', out], opts));

/** A validator for results.json, from its published schema (docs/results.schema.json), every error reported. */
export const resultsValidator = () => schemaValidator('results.schema.json', undefined, true);
