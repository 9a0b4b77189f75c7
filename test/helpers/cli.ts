/** Runs the real CLI in a child process, as a vendor's CI would. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onTestFinished } from 'vitest';
import type { RunResults } from '../../harness/core/results.js';
import { schemaValidator } from '../../harness/runner/json-schema.js';

export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/a2a-conformance.mjs');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<CliOutcome> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, timeout: opts.timeoutMs ?? 180_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 99) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** `run` into a fresh folder; returns the outcome and the parsed results.json. */
export async function cliRun(args: string[]): Promise<CliOutcome & { results: RunResults; out: string }> {
  const out = await mkdtemp(join(tmpdir(), 'a2a-conformance-test-'));
  // The report folder goes with the test that asked for it.
  onTestFinished(() => rm(out, { recursive: true, force: true }));
  const o = await cli(['run', ...args, '--out', out]);
  let results: RunResults;
  try {
    results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as RunResults;
  } catch {
    throw new Error(`no results.json (exit ${o.code})\nstdout:\n${o.stdout}\nstderr:\n${o.stderr}`);
  }
  return { ...o, results, out };
}

/** A validator for results.json, from its published schema (docs/results.schema.json), every error reported. */
export const resultsValidator = () => schemaValidator('results.schema.json', undefined, true);
