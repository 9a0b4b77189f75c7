/**
 * The hostile matrix's shared parts (test/hostile/*.test.ts, a file per attack surface): what a case
 * can leave behind (run folders, marked processes, listeners, temp files), memory measured after a
 * full collection, the real CLI in a child process with its own temp folder, and each file's own
 * matrix (its tally, temp folders and fixture inputs: hostileMatrix).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Scenario } from '../../harness/core/scenario/scenario.js';
import { markedProcesses, openRunFolders } from '../../harness/runner/infrastructure/workspace.js';
import { ROOT } from './cli.js';
import { ALL_SCENARIOS, scenario } from './scenarios.js';
export const HOSTILE = join(ROOT, 'test/fixtures/clients/hostile.mjs');
export const BIN = join(ROOT, 'bin/a2a-conformance.mjs');
export const cmd = (...args: string[]) => `"${process.execPath}" "${HOSTILE}" ${args.join(' ')}`;
export const CONTROL = 'spec-tls-verify/valid-certificate-control';
/** The scenarios of `run --rule SPEC-TLS-VERIFY --dialect a2a-v1`, a small run several cases use: counted from the catalogue. */
export const TLS_V1 = ALL_SCENARIOS.filter((s) => s.rule === 'SPEC-TLS-VERIFY' && (s.peer.dialect ?? 'a2a-v1') === 'a2a-v1').length;
export const REJECT_IS_RIGHT = 'neg-live-input/live-audio-to-batch-peer';
export const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// What a case can leave behind.

/** Live processes whose environment carries a run mark under `prefix` (a case's private temp folder). */
export function markedUnder(prefix: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const env = readFileSync(`/proc/${e}/environ`, 'latin1');
      if (env.includes(`A2A_CONFORMANCE_RUN=${prefix}`)) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}

/** Inodes of the TCP sockets this process listens on. */
export function listening(): Set<string> {
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m) mine.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const out = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && mine.has(f[9]!)) out.add(f[9]!);
    }
  }
  return out;
}

/** What an in-process case left: run folders still open or on disk, marked processes, new listeners. */
export function leftInProcess(folders: string[], listenersBefore: Set<string>): string[] {
  const left: string[] = [];
  for (const d of folders) {
    if (existsSync(d)) left.push(`folder ${d}`);
    for (const pid of markedProcesses(d)) left.push(`process ${pid}`);
  }
  for (const d of openRunFolders()) if (folders.includes(d)) left.push(`open folder ${d}`);
  for (const inode of listening()) if (!listenersBefore.has(inode)) left.push(`listener (socket ${inode})`);
  return left;
}

/** What a CLI case left in its private temp folder (tsx keeps a compile cache there: not a run's) and in /proc. */
/** Run folders in the temp folder that this process owns (other test files' CLI runs make their own meanwhile). */
export function ownRunFolders(): string[] {
  return readdirSync(tmpdir())
    .filter((n) => n.startsWith('a2a-conformance-run-'))
    .filter((n) => {
      try {
        return (JSON.parse(readFileSync(join(tmpdir(), n, 'owner.json'), 'utf8')) as { pid?: number }).pid === process.pid;
      } catch {
        return false; // not ours, or gone meanwhile
      }
    });
}

export function leftByCli(tmp: string): string[] {
  const left = readdirSync(tmp)
    .filter((n) => !n.startsWith('tsx-'))
    .map((n) => `temp ${n}`);
  for (const pid of markedUnder(tmp)) left.push(`process ${pid}`);
  return left;
}

/** V8's collector, to tell what is kept from what merely waits to be collected. */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Heap and external memory still in use after a full collection (twice: array buffers are freed after a sweep). */
export const retained = async () => {
  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/** Samples a measure every 50 ms while `body` runs; returns the body's value and the peak. */
export async function peakOf<T>(measure: () => number, body: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = measure();
  const t = setInterval(() => (peak = Math.max(peak, measure())), 50);
  try {
    const value = await body();
    return { value, peak: Math.max(peak, measure()) };
  } finally {
    clearInterval(t);
  }
}

// ---------------------------------------------------------------------------------------------
// The real CLI in a child process, with its own temp folder.

export interface CliProcess {
  child: ChildProcess;
  tmp: string;
  exit: Promise<{ code: number | null; signal: string | null }>;
  stdout: () => string;
  stderr: () => string;
  waitFor: (re: RegExp, ms?: number) => Promise<RegExpExecArray>;
  /** Peak resident memory of the CLI process (VmHWM), in MiB, as last sampled. */
  peakMb: () => number;
}

export function startCliIn(tmp: string, args: string[], nodeArgs: string[] = []): CliProcess {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { cwd: ROOT, env: { ...process.env, TMPDIR: tmp } });
  let out = '';
  let err = '';
  let peak = 0;
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const sample = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // exited
    }
  }, 100);
  const exit = new Promise<{ code: number | null; signal: string | null }>((r) =>
    child.on('exit', (code, signal) => {
      clearInterval(sample);
      r({ code, signal });
    }),
  );
  const waitFor = async (re: RegExp, ms = 60_000) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const m = re.exec(out + err);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the CLI did not print ${re}:\n${out}\n${err}`);
  };
  return { child, tmp, exit, stdout: () => out, stderr: () => err, waitFor, peakMb: () => peak };
}

/** Which of the pids noted in a file (by a fixture client, space-separated) still run; a zombie does not. */
/** Whether a process is alive (not gone, not a zombie). */
export function stillAlive(pid: number | undefined): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether the process is gone (or a zombie) within `ms`: a signal is delivered when the process next runs. */
export async function goneWithin(pid: number | undefined, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; stillAlive(pid); ) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

export function stillRunning(pidFile: string): string[] {
  if (!existsSync(pidFile)) return [];
  const out: string[] = [];
  for (const pid of readFileSync(pidFile, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (/^\d+ \(.*\) [ZX]/.test(stat)) continue;
      // What tells where it came from: its parent, group and session now, and who started it when.
      const [, ppid, pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const log = existsSync(`${pidFile}.log`)
        ? readFileSync(`${pidFile}.log`, 'utf8')
            .split('\n')
            .find((l) => l.startsWith(`${pid} `))
        : undefined;
      out.push(`process ${pid} (ppid ${ppid}, group ${pgrp}, session ${session}${log ? `; ${log}` : ''})`);
    } catch {
      // gone: as it should be
    }
  }
  return out;
}

/** Waits until the exited CLI's stragglers are gone (a SIGKILLed child is reaped asynchronously). */
export async function settle(tmp: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end && markedUnder(tmp).length) await new Promise((r) => setTimeout(r, 100));
}

// ---------------------------------------------------------------------------------------------
// Each file's own matrix.

/** What one file of the matrix holds of its own: its tally (printed when the file ends), its cases' temp folders, its fixture inputs. */
export interface Matrix {
  /** One case: the body asserts its own outcome and returns what it found left behind; it survives when it passes within its bound and nothing was left. */
  hostile(name: string, boundMs: number, body: () => Promise<string[]>): void;
  /** Measured figures worth a line in the summary (memory, timings). */
  figures: string[];
  /** A private temp folder for one CLI case, sharing tsx's compile cache (else every start compiles everything afresh); removed when the file ends. */
  caseTmp(): string;
  /** The real CLI in a child process, with its own temp folder (a new one unless given). */
  startCli(args: string[], tmp?: string, nodeArgs?: string[]): CliProcess;
  /** The folder of the file's fixture inputs (made before its tests, removed after). */
  readonly fixtures: string;
  /** Writes a fixture input, returning its path. */
  write(name: string, text: string): string;
  /** The control scenario under another id, changed as given: a vendor's scenario. */
  vendor(id: string, change?: (s: Scenario) => void): Scenario;
}

/** Registers one file's hooks (fixtures made before its tests; temp folders removed and the tally printed after) and returns its matrix. */
export function hostileMatrix(surface: string): Matrix {
  const tally = { tried: 0, survived: 0, leaked: 0 };
  const leakedCases: string[] = [];
  const figures: string[] = [];
  const caseTmps: string[] = [];
  let fixtures: string | undefined;
  let control: Scenario | undefined;
  beforeAll(() => {
    fixtures = mkdtempSync(join(tmpdir(), 'a2a-hostile-inputs-'));
    control = JSON.parse(JSON.stringify(scenario(CONTROL))) as Scenario;
  });
  afterAll(() => {
    for (const d of caseTmps) rmSync(d, { recursive: true, force: true });
    if (fixtures) rmSync(fixtures, { recursive: true, force: true });
    console.log(
      `hostile matrix, ${surface}: ${tally.tried} cases tried, ${tally.survived} survived, ${tally.leaked} leaked${leakedCases.length ? ` (${leakedCases.join('; ')})` : ''}`,
    );
    if (figures.length) console.log(`hostile matrix figures, ${surface}: ${figures.join('; ')}`);
  });
  const caseTmp = () => {
    const tmp = mkdtempSync(join(tmpdir(), 'a2a-hostile-'));
    const cache = `tsx-${process.getuid?.() ?? 0}`;
    if (existsSync(join(tmpdir(), cache))) symlinkSync(join(tmpdir(), cache), join(tmp, cache));
    caseTmps.push(tmp);
    return tmp;
  };
  return {
    hostile(name, boundMs, body) {
      it(name, { timeout: boundMs + 60_000 }, async () => {
        tally.tried++;
        const started = Date.now();
        const left = await body();
        if (left.length) {
          tally.leaked++;
          leakedCases.push(`${name}: ${left.join(', ')}`);
        }
        expect(left, 'left behind').toEqual([]);
        expect(Date.now() - started, `ended within ${boundMs} ms`).toBeLessThan(boundMs);
        tally.survived++;
      });
    },
    figures,
    caseTmp,
    startCli: (args, tmp = caseTmp(), nodeArgs = []) => startCliIn(tmp, args, nodeArgs),
    get fixtures() {
      if (!fixtures) throw new Error('the fixture folder is made before the tests run');
      return fixtures;
    },
    write(name, text) {
      const f = join(this.fixtures, name);
      writeFileSync(f, text);
      return f;
    },
    vendor(id, change = () => {}) {
      const s = structuredClone(control!);
      s.id = id;
      change(s);
      return s;
    },
  };
}
