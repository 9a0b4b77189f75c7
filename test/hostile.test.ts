/**
 * The hostile matrix: hostile clients and hostile inputs against the harness. Each case asserts that
 * it ends within its bound, with the documented exit code, a verdict or a one-line error that names
 * the cause, and that nothing is left behind: no run folder, no temp file, no client process (by the
 * run's environment mark), no listener; where memory is at stake, the peak stays under a stated bound.
 *
 * Child processes of the real CLI only where a process must die (signals, EPIPE, a crash-prone
 * request); everything that ends before a run starts goes through `main` in this process.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { SubprocessClient } from '../harness/adapters/subprocess.js';
import { LISTENER_KINDS } from '../harness/core/scenario/runtime.js';
import { validateCardV1 } from '../harness/core/card-validator.js';
import type { RunResults, ScenarioResult } from '../harness/core/results.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import { isTerminal, KEPT_PAYLOAD_CHARS, MAX_EVENTS, RUN_INPUT_BYTES, Transcript, type TaskLedger } from '../harness/core/transcript.js';
import { makePki, writePki, type Pki } from '../harness/pki/index.js';
import { closeEnv, openEnv } from '../harness/runner/infrastructure/env.js';
import { executeScenario } from '../harness/runner/engine/execute.js';
import { mountPeer } from '../harness/runner/infrastructure/mount.js';
import { closeRunFolder, markedProcesses, openRunFolder, openRunFolders, reapDeadRuns } from '../harness/runner/infrastructure/workspace.js';
import { MAX_SCENARIO_FILE_BYTES, WALK_LIMITS } from '../harness/runner/load/catalogue.js';
import { VENDOR_LOAD } from '../harness/runner/load/vendor-import.js';
import { SERVE_EVENTS, SERVE_FINISHED_TASKS } from '../harness/runner/engine/serve.js';
import { Agent, request } from 'undici';
import { ROOT } from './helpers/cli.js';
import { runMain, type MainOutcome } from './helpers/main.js';
import { assemble, runInProcess } from './helpers/results.js';
import { claimOutput } from '../harness/cli/output.js';
import { XMLValidator } from 'fast-xml-parser';
import { ALL_SCENARIOS, scenario } from './helpers/scenarios.js';

const HOSTILE = join(ROOT, 'test/fixtures/clients/hostile.mjs');
const BIN = join(ROOT, 'bin/a2a-conformance.mjs');
const cmd = (...args: string[]) => `"${process.execPath}" "${HOSTILE}" ${args.join(' ')}`;
const CONTROL = 'spec-tls-verify/valid-certificate-control';
/** The scenarios of `run --rule SPEC-TLS-VERIFY --dialect a2a-v1`, a small run several cases use: counted from the catalogue. */
const TLS_V1 = ALL_SCENARIOS.filter((s) => s.rule === 'SPEC-TLS-VERIFY' && (s.peer.dialect ?? 'a2a-v1') === 'a2a-v1').length;
const REJECT_IS_RIGHT = 'neg-live-input/live-audio-to-batch-peer';
const MB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The tally, printed at the end: cases tried / survived / leaked.

const tally = { tried: 0, survived: 0, leaked: 0 };
const leakedCases: string[] = [];
/** Measured figures worth a line in the summary (memory, timings). */
const figures: string[] = [];
afterAll(() => {
  console.log(
    `hostile matrix: ${tally.tried} cases tried, ${tally.survived} survived, ${tally.leaked} leaked${leakedCases.length ? ` (${leakedCases.join('; ')})` : ''}`,
  );
  if (figures.length) console.log(`hostile matrix figures: ${figures.join('; ')}`);
});

/**
 * One case of the matrix. The body asserts its own outcome and returns what it found left behind;
 * the case survives when the body passes within its bound and nothing was left.
 */
function hostile(name: string, boundMs: number, body: () => Promise<string[]>) {
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
}

// ---------------------------------------------------------------------------------------------
// What a case can leave behind.

/** Live processes whose environment carries a run mark under `prefix` (a case's private temp folder). */
function markedUnder(prefix: string): number[] {
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
function listening(): Set<string> {
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
function leftInProcess(folders: string[], listenersBefore: Set<string>): string[] {
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
function ownRunFolders(): string[] {
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

function leftByCli(tmp: string): string[] {
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
const retained = async () => {
  gc();
  await new Promise((r) => setTimeout(r, 200));
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/** Samples a measure every 50 ms while `body` runs; returns the body's value and the peak. */
async function peakOf<T>(measure: () => number, body: () => Promise<T>): Promise<{ value: T; peak: number }> {
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

interface CliProcess {
  child: ChildProcess;
  tmp: string;
  exit: Promise<{ code: number | null; signal: string | null }>;
  stdout: () => string;
  stderr: () => string;
  waitFor: (re: RegExp, ms?: number) => Promise<RegExpExecArray>;
  /** Peak resident memory of the CLI process (VmHWM), in MiB, as last sampled. */
  peakMb: () => number;
}

/** A private temp folder for one CLI case, sharing tsx's compile cache (else every start compiles everything afresh). */
function caseTmp(): string {
  const tmp = mkdtempSync(join(tmpdir(), 'a2a-hostile-'));
  const cache = `tsx-${process.getuid?.() ?? 0}`;
  if (existsSync(join(tmpdir(), cache))) symlinkSync(join(tmpdir(), cache), join(tmp, cache));
  CASE_TMPS.push(tmp);
  return tmp;
}

/** The cases' temp folders: each is checked for leftovers by its case, and all go when the file ends. */
const CASE_TMPS: string[] = [];
afterAll(() => {
  for (const d of CASE_TMPS) rmSync(d, { recursive: true, force: true });
});

function startCli(args: string[], tmp = caseTmp(), nodeArgs: string[] = []): CliProcess {
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
function stillAlive(pid: number | undefined): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether the process is gone (or a zombie) within `ms`: a signal is delivered when the process next runs. */
async function goneWithin(pid: number | undefined, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; stillAlive(pid); ) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

function stillRunning(pidFile: string): string[] {
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
async function settle(tmp: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end && markedUnder(tmp).length) await new Promise((r) => setTimeout(r, 100));
}

// ---------------------------------------------------------------------------------------------
// Fixture inputs, written once.

let fixtures: string;
let control: Scenario;
const write = (name: string, text: string) => {
  const f = join(fixtures, name);
  writeFileSync(f, text);
  return f;
};

beforeAll(() => {
  fixtures = mkdtempSync(join(tmpdir(), 'a2a-hostile-inputs-'));
  control = JSON.parse(JSON.stringify(scenario(CONTROL))) as Scenario;
});
afterAll(() => rmSync(fixtures, { recursive: true, force: true }));

const vendor = (id: string, change: (s: Scenario) => void = () => {}) => {
  const s = structuredClone(control);
  s.id = id;
  change(s);
  return s;
};

// =============================================================================================

describe.concurrent('signals, crashes and pipes (the real CLI in child processes)', () => {
  hostile(
    'SIGKILL mid-run leaves a findable folder; the next run says a previous run died and removes it; SIGINT mid-run (a client that ignores SIGTERM and the end of stdin, and clears its environment) leaves nothing',
    150_000,
    async () => {
      const pids = join(fixtures, 'immortal.pids');
      // `env -i`: the client drops the run's mark from its environment; its registered process group still finds it.
      // One short family: the run only has to be under way when it is killed. One lane, so the scenarios
      // run one after another and the run is still going after the first is printed (with the default
      // lanes all four end together, and the SIGINT could arrive after the run had finished).
      const args = [
        'run',
        '--client-cmd',
        `exec env -i ${cmd('immortal', pids)}`,
        '--deadline-multiplier',
        '0.5',
        '--rule',
        'SPEC-TLS-VERIFY',
        '--dialect',
        'a2a-v1',
        '--lanes',
        '1',
      ];
      const killed = startCli([...args, '--out', join(fixtures, 'out-kill')]);
      await killed.waitFor(/\[\s*1\/\d+\]/);
      const timeline = [`first run ${killed.child.pid} SIGKILLed at ${new Date().toISOString()}`];
      killed.child.kill('SIGKILL');
      expect((await killed.exit).signal).toBe('SIGKILL');
      // What a SIGKILL leaves is real: the run folder, and its worker and clients (until they notice).
      expect(readdirSync(killed.tmp).filter((n) => n.startsWith('a2a-conformance-run-')).length).toBe(1);
      expect(readFileSync(join(fixtures, 'out-kill', 'INCOMPLETE'), 'utf8')).toContain('did not finish');
      expect(existsSync(join(fixtures, 'out-kill', 'results.json'))).toBe(false);

      // The next run, in the same temp folder, finds it and says so; then it is stopped with SIGINT.
      const next = startCli([...args, '--out', join(fixtures, 'out-int')], killed.tmp);
      await next.waitFor(/a previous run died \(pid \d+, started [^)]+\); removed what it left: .*a2a-conformance-run-/);
      timeline.push(`second run ${next.child.pid} reaped the first by ${new Date().toISOString()}`);
      await next.waitFor(/\[\s*1\/\d+\]/);
      timeline.push(`second run SIGINTed at ${new Date().toISOString()}`);
      next.child.kill('SIGINT');
      const { code } = await next.exit;
      expect(code, next.stderr()).toBe(130);
      expect(next.stderr()).toMatch(/SIGINT: stopped the run; the processes it started are killed and its temp folder removed/);
      expect(next.stderr()).not.toMatch(/\n\s+at /); // no stack trace
      expect(readFileSync(join(fixtures, 'out-int', 'INCOMPLETE'), 'utf8')).toContain('stopped by SIGINT');
      expect(readdirSync(join(fixtures, 'out-int')).sort()).toEqual(['.a2a-conformance-report.json', 'INCOMPLETE', 'index.html']);
      await settle(killed.tmp);
      const left = [...leftByCli(killed.tmp), ...stillRunning(pids)];
      return left.length ? [...left, `timeline: ${timeline.join('; ')}`] : left;
    },
  );

  hostile('doctor: SIGINT while it checks a client that ignores it: exit 130, the client and the certificates gone', 60_000, async () => {
    const pids = join(fixtures, 'doctor.pids');
    const cli = startCli(['doctor', '--client-cmd', cmd('immortal', pids)]);
    await cli.waitFor(/✓ hello: hostile-immortal/);
    cli.child.kill('SIGINT');
    const { code } = await cli.exit;
    expect(code, cli.stderr()).toBe(130);
    expect(cli.stderr()).toMatch(/SIGINT: stopped the check/);
    await settle(cli.tmp);
    return [...leftByCli(cli.tmp), ...stillRunning(pids)];
  });

  hostile('`run 2>&1 | head -1`: both readers leave at the first line; the run goes on, writes its report and exits with its own code', 90_000, async () => {
    const out = join(fixtures, 'out-head');
    const cli = startCli(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--out', out]);
    await cli.waitFor(/\n/);
    cli.child.stdout!.destroy();
    cli.child.stderr!.destroy();
    const { code } = await cli.exit;
    expect(code).toBe(0);
    expect((JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults).results).toHaveLength(TLS_V1);
    expect(existsSync(join(out, 'INCOMPLETE'))).toBe(false);
    return leftByCli(cli.tmp);
  });

  hostile('SIGTERM mid-run, with a client that leaves a child in its group and one in a new session: exit 143, nothing left', 90_000, async () => {
    const pids = join(fixtures, 'orphans.pids');
    const cli = startCli([
      'run',
      '--client-cmd',
      cmd('orphans', pids),
      '--deadline-multiplier',
      '0.5',
      '--rule',
      'SPEC-TLS-VERIFY',
      '--dialect',
      'a2a-v1',
      '--lanes',
      '1',
      '--out',
      join(fixtures, 'out-term'),
    ]);
    await cli.waitFor(/\[\s*1\/\d+\]/);
    cli.child.kill('SIGTERM');
    const { code } = await cli.exit;
    expect(code, cli.stderr()).toBe(143);
    await settle(cli.tmp);
    return [...leftByCli(cli.tmp), ...stillRunning(pids)];
  });

  hostile(
    'SIGKILL of the CLI while its client holds a child in a new session with an empty environment: the next run kills that child too (it was written where the reaper reads)',
    120_000,
    async () => {
      const pids = join(fixtures, 'setsid-clean.pids');
      const killed = startCli([
        'run',
        '--client-cmd',
        cmd('setsid-clean', pids),
        '--grep',
        `/^${CONTROL.replace('/', '\\/')}$/`,
        '--out',
        join(fixtures, 'out-setsid'),
      ]);
      const until = Date.now() + 30_000;
      while (!existsSync(pids) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const child = Number(readFileSync(pids, 'utf8').trim());
      // Seen by the tree sampler (every 200 ms) while its parent, the client, lives.
      const dir = readdirSync(killed.tmp).find((n) => n.startsWith('a2a-conformance-run-'))!;
      while (!existsSync(join(killed.tmp, dir, 'procs', String(child))) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(join(killed.tmp, dir, 'procs', String(child))), 'the escaped child is on record').toBe(true);
      killed.child.kill('SIGKILL');
      await killed.exit;
      expect(stillRunning(pids), 'the escaped child outlives the SIGKILLed CLI').toHaveLength(1);
      const next = startCli(
        ['run', '--client', 'reference', '--grep', `/^${CONTROL.replace('/', '\\/')}$/`, '--out', join(fixtures, 'out-setsid-next')],
        killed.tmp,
      );
      expect((await next.exit).code, next.stderr()).toBe(0);
      expect(next.stderr()).toMatch(/a previous run died/);
      await settle(killed.tmp);
      const left = [...leftByCli(killed.tmp), ...stillRunning(pids)];
      // What the reaper said it killed, beside what it left: the record's start time and the folder's birth decide it.
      return left.length ? [...left, `the next run said: ${/a previous run died.*/.exec(next.stderr())?.[0] ?? next.stderr()}`] : [];
    },
  );

  hostile('serve: SIGINT and SIGTERM stop it (exit 0) with its certificates and listeners gone', 90_000, async () => {
    const left: string[] = [];
    await Promise.all(
      (['SIGINT', 'SIGTERM'] as const).map(async (sig) => {
        const s = startCli(['serve', '--peer', CONTROL]);
        await s.waitFor(/ready: 1 peer/);
        const port = Number((await s.waitFor(/https:\/\/127\.0\.0\.1:(\d+)\//))[1]);
        const caFile = (await s.waitFor(/trust this CA for every peer:\s+(\S+)/))[1]!;
        expect(caFile.startsWith(s.tmp)).toBe(true);
        s.child.kill(sig);
        expect((await s.exit).code, s.stderr()).toBe(0);
        left.push(...leftByCli(s.tmp));
        // Nobody listens on its port any more.
        const refused = await request(`https://127.0.0.1:${port}/`, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) }).then(
          () => false,
          () => true,
        );
        if (!refused) left.push(`listener on ${port}`);
      }),
    );
    return left;
  });

  hostile(
    'a client that sends JSON-RPC ids nested 3,000 and 20,000 deep, and names itself with escape sequences: the run ends with a report; ids are kept bounded; the terminal gets no escape',
    90_000,
    async () => {
      const file = write('one.scenario.json', JSON.stringify([vendor('hostile/control')]));
      const out = join(fixtures, 'out-deep');
      const cli = startCli(['run', '--client-cmd', cmd('deep-id'), '--no-builtin', '--scenarios', file, '--out', out]);
      const { code } = await cli.exit;
      expect([0, 1], cli.stderr()).toContain(code);
      const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
      expect(results.results).toHaveLength(1);
      const notes = results.results[0]!.transcript.flatMap((e) => (e.kind === 'http' && e.note ? [e.note] : []));
      expect(notes.filter((n) => n.includes('not a string, number or null'))).toHaveLength(2);
      expect(readFileSync(join(out, 'results.json'), 'utf8').length).toBeLessThan(4 * MB);
      expect(cli.stdout()).toContain('client hostile\\u{1b}[2K\\u{d}PASS \\u{202e}evil\\u{7}');
      expect(cli.stdout() + cli.stderr()).not.toMatch(/[\u001b\r\u0007\u202e]/);
      figures.push(`deep-id CLI run: ${cli.peakMb().toFixed(0)} MiB peak RSS of the CLI process`);
      expect(cli.peakMb(), 'peak memory of the CLI process (MiB)').toBeLessThan(1024);
      return leftByCli(cli.tmp);
    },
  );

  hostile('`list | head`: the reader leaves early; exit 0, no EPIPE stack trace', 60_000, async () => {
    const cli = startCli(['list']);
    await cli.waitFor(/\n/);
    cli.child.stdout!.destroy();
    const { code } = await cli.exit;
    expect(code).toBe(0);
    expect(cli.stderr()).toBe('');
    return leftByCli(cli.tmp);
  });
});

// =============================================================================================

const danglingLink = () => {
  const link = join(fixtures, 'dangling');
  if (!existsSync(link)) symlinkSync(join(fixtures, 'nowhere', 'at-all'), link);
  return link;
};

describe('arguments and paths: exit 2 and one line, before anything runs', () => {
  const cases: Array<[string, () => string[], RegExp]> = [
    ['an unknown option', () => ['run', '--client', 'reference', '--nope'], /unknown option '--nope'/],
    ['`report` with no files', () => ['report'], /missing required argument 'results'/],
    ['`doctor` without --client-cmd', () => ['doctor'], /doctor checks a subprocess client: give --client-cmd "<command>" \(or clientCmd in the config file\)/],
    ["--out ''", () => ['run', '--client', 'reference', '--out', ''], /--out needs a folder name/],
    [
      'run --out /proc/x (recursive mkdir would spin)',
      () => ['run', '--client', 'reference', '--out', '/proc/a2a-x'],
      /--out \/proc\/a2a-x: cannot create \/proc\/a2a-x/,
    ],
    [
      'report --out /proc/x',
      () => ['report', write('r.json', JSON.stringify(assemble('x', []))), '--out', '/proc/a2a-x'],
      /--out \/proc\/a2a-x: cannot create/,
    ],
    ['serve --pki-dir /proc/x', () => ['serve', '--peer', CONTROL, '--pki-dir', '/proc/a2a-x'], /--pki-dir \/proc\/a2a-x: cannot create/],
    [
      '--out naming an existing file',
      () => ['run', '--client', 'reference', '--out', join(ROOT, 'package.json')],
      /--out .*package\.json is a file, not a folder/,
    ],
    [
      '--out naming a folder of other files',
      () => ['run', '--client', 'reference', '--out', join(ROOT, 'docs')],
      /--out .*docs holds files that are not a report/,
    ],
    ['--out naming a link to nowhere', () => ['run', '--client', 'reference', '--out', danglingLink()], /--out .*dangling: .*dangling is a link to nothing/],
    [
      'an unwritable --update-expectations',
      () => ['run', '--client', 'reference', '--update-expectations', '/proc/a2a-x/e.json', '--out', join(fixtures, 'never')],
      /--update-expectations \/proc\/a2a-x\/e\.json: cannot write in \/proc\/a2a-x/,
    ],
  ];
  for (const [name, args, says] of cases)
    hostile(name, 30_000, async () => {
      const before = listening();
      const o = await runMain(args());
      expect(o.code, o.stderr).toBe(2);
      expect(o.stderr).toMatch(says);
      // One line that says what is wrong; after an argument error, the command's usage line too.
      expect(
        o.stderr
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('usage: a2a-conformance ')).length,
        o.stderr,
      ).toBe(1);
      expect(existsSync(join(fixtures, 'never'))).toBe(false);
      return leftInProcess([], before);
    });
});

describe('input files: exit 2 and one line that names the file and the field, before anything runs', () => {
  const deepJson = (n: number) => '{"x":'.repeat(n) + '1' + '}'.repeat(n);
  const expectations = (entries: unknown[], extra: object = {}) => JSON.stringify({ schema: 'a2a-conformance/expectations@1', entries, ...extra });
  const cases: Array<[string, () => string[], RegExp]> = [
    [
      'a scenario file that is `[]`',
      () => ['run', '--client', 'reference', '--scenarios', write('empty.scenario.json', '[]')],
      /empty\.scenario\.json: declares no scenarios/,
    ],
    [
      'a JSON scenario wrapper with an extra key',
      () => ['run', '--client', 'reference', '--scenarios', write('extra.scenario.json', JSON.stringify({ scenarios: [vendor('x/extra')], also: 1 }))],
      /extra\.scenario\.json: unknown key "also"/,
    ],
    [
      'an unknown peer factory',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write('factory.scenario.json', JSON.stringify([vendor('x/factory', (s) => (s.peer.factory = 'no-such-peer'))])),
      ],
      /factory\.scenario\.json: scenario "x\/factory": peer\.factory: unknown peer factory "no-such-peer"/,
    ],
    [
      'an invalid card',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write('card.scenario.json', JSON.stringify([vendor('x/card', (s) => delete (s.peer.card as Record<string, unknown>).name)])),
      ],
      /card\.scenario\.json: scenario "x\/card": peer\.card\.name: AgentCard\.name is REQUIRED/,
    ],
    [
      'a card with a `__proto__` field',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write('proto.scenario.json', JSON.stringify([vendor('x/proto')]).replace('"name":"Contoso Helpdesk"', '"name":"Contoso Helpdesk","__proto__":{"x":1}')),
      ],
      /proto\.scenario\.json: scenario "x\/proto": peer\.card\.__proto__: unknown field "__proto__" in AgentCard/,
    ],
    [
      'a card nested 3,000 deep in a TypeScript scenario',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write(
          'deep.scenario.ts',
          `const s = ${JSON.stringify(vendor('x/deep'))};\nlet p: Record<string, unknown> = {};\n(s.peer.card as Record<string, unknown>).metadata = p;\nfor (let i = 0; i < 3000; i++) { const q = {}; p.x = q; p = q; }\nexport default [s];\n`,
        ),
      ],
      /deep\.scenario\.ts: scenario "x\/deep": peer\.card\.metadata\.x…: nested deeper than 64 levels/,
    ],
    [
      'a card nested 20,000 deep in a JSON scenario',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write(
          'deeper.scenario.json',
          JSON.stringify([vendor('x/deeper')]).replace('"name":"Contoso Helpdesk"', `"name":"Contoso Helpdesk","metadata":${deepJson(20_000)}`),
        ),
      ],
      /deeper\.scenario\.json: scenario "x\/deeper": peer\.card\.metadata\.x…: nested deeper than 64 levels/,
    ],
    [
      'an expectations glob over 64 KiB',
      () => [
        'run',
        '--client',
        'reference',
        '--expectations',
        write('big.json', expectations([{ scenario: 'x'.repeat(70_000), verdict: 'FAIL', reason: '' }])),
      ],
      /big\.json: entries\[0\]\.scenario is not a usable glob/,
    ],
    [
      'an expectations file with an extra key',
      () => ['run', '--client', 'reference', '--expectations', write('extra.json', expectations([{ scenario: 'x', verdict: 'FAIL', reason: '', because: 1 }]))],
      /extra\.json: entries\[0\]: must NOT have additional properties "because"/,
    ],
    [
      'a results.json whose embedded expectations are malformed',
      () => [
        'report',
        write(
          'bad-exp.results.json',
          JSON.stringify({
            ...assemble('x', []),
            expectations: { schema: 'a2a-conformance/expectations@1', entries: [{ scenario: '', verdict: 'FAIL', reason: '' }] },
          }),
        ),
      ],
      /bad-exp\.results\.json \(its "expectations"\): entries\[0\]\.scenario must be a scenario id or glob/,
    ],
  ];
  for (const [name, args, says] of cases)
    hostile(name, 30_000, async () => {
      const before = listening();
      const foldersBefore = ownRunFolders().length;
      const o = await runMain([...args(), '--out', join(fixtures, 'never')]);
      expect(o.code, o.stderr).toBe(2);
      expect(o.stderr).toMatch(says);
      expect(o.stderr.trim().split('\n'), o.stderr).toHaveLength(1);
      expect(o.stderr).not.toMatch(/\n\s+at /);
      // Nothing ran: no report folder, no run folder.
      expect(existsSync(join(fixtures, 'never'))).toBe(false);
      expect(ownRunFolders().length).toBeLessThanOrEqual(foldersBefore);
      return leftInProcess([], before);
    });

  hostile('`__proto__`, `constructor` and `toString` are unknown card fields, not inherited ones', 10_000, async () => {
    const card = JSON.parse(JSON.stringify(scenario(CONTROL).peer.card).replace('"name":', '"__proto__":{},"constructor":1,"toString":"x","name":')) as Record<
      string,
      unknown
    >;
    const unknown = validateCardV1(card).map((i) => i.message);
    for (const k of ['__proto__', 'constructor', 'toString']) expect(unknown).toContain(`unknown field "${k}" in AgentCard`);
    return [];
  });
});

describe('a previous report', () => {
  hostile('`report` with a bad --expectations keeps the previous report untouched (exit 2)', 30_000, async () => {
    const input = write('good.results.json', JSON.stringify(assemble('x', [])));
    const out = join(fixtures, 'out-kept');
    expect((await runMain(['report', input, '--out', out])).code).toBe(1);
    const before = readFileSync(join(out, 'results.json'), 'utf8');
    const o = await runMain(['report', input, '--out', out, '--expectations', join(fixtures, 'no-such.json')]);
    expect(o.code, o.stderr).toBe(2);
    expect(o.stderr).toMatch(/cannot read the expectations file/);
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toBe(before);
    expect(existsSync(join(out, 'INCOMPLETE'))).toBe(false);
    return [];
  });
});

describe('terminal and Markdown output', () => {
  hostile(
    'a results.json full of escape sequences, carriage returns, NUL, BEL, right-to-left overrides, autolinks and @mentions: inert on the terminal and in summary.md',
    30_000,
    async () => {
      const evil = 'evil\u001b[2K\rPASS\u0000\u0007\u202e <https://evil.example> www.evil.example @octocat x@evil.example';
      const r = assemble('naive', []);
      r.client.name = evil;
      r.client.version = evil;
      r.unexpected.push({ id: evil, verdict: 'FAIL', why: evil });
      const out = join(fixtures, 'out-report');
      const o = await runMain(['report', write('evil.results.json', JSON.stringify(r)), '--out', out]);
      expect(o.code, o.stderr).toBe(1);
      expect(o.stdout + o.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      expect(o.stdout).toContain('client evil\\u{1b}[2K\\u{d}PASS');
      const md = readFileSync(join(out, 'summary.md'), 'utf8');
      expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
      // Every untrusted value sits in a code span: no autolink, no mention, no HTML outside one.
      const outside = md.replace(/(`+) ?[^`]*?(?:`(?!\1)[^`]*?)*? ?\1/g, '');
      expect(outside).not.toMatch(/https?:|www\.|@\w|</);
      expect(existsSync(join(out, 'INCOMPLETE'))).toBe(false);
      return [];
    },
  );
});

// =============================================================================================

describe('hostile clients over the NDJSON protocol (one scenario each, in this process)', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki();
  });

  /** Runs scenarios against a hostile client in a private run folder; returns results, leaks and the memory peak. */
  async function withClient(mode: string[], ids: string[], o: { deadlineMs?: number } = {}) {
    const before = listening();
    const folder = await openRunFolder('hostile test');
    const client = new SubprocessClient({ command: cmd(...mode), runDir: folder.dir, killAfterAbortMs: 300 });
    await writePki(pki, folder.pkiDir);
    const rssBefore = process.memoryUsage.rss();
    const { value: results, peak } = await peakOf(
      () => process.memoryUsage.rss(),
      async () => {
        const env = await openEnv({ pkiDir: folder.pkiDir, client, idSalt: 'hostile', deadlineMultiplier: 1 }).catch((err: unknown) => err as Error);
        if (env instanceof Error) return env;
        env.abortGraceMs = 300;
        const out: ScenarioResult[] = [];
        try {
          for (const id of ids) out.push(await executeScenario(o.deadlineMs ? { ...scenario(id), deadlineMs: o.deadlineMs } : scenario(id), env));
        } finally {
          await closeEnv(env);
        }
        return out;
      },
    );
    await closeRunFolder(folder);
    return { results, client, left: leftInProcess([folder.dir], before), growthMb: (peak - rssBefore) / MB };
  }

  const reason = (r: ScenarioResult) => r.checks.map((c) => c.reason).join(' | ');

  const verdictCases: Array<[string, string[], string, RegExp]> = [
    ['crash: the process exits mid-run', ['crash'], 'FAIL', /exited with code 3/],
    ['hang: never answers', ['hang'], 'TIMEOUT', /deadline/i],
    ['garbage: non-JSON lines and unknown messages before its result', ['nonjson'], 'PASS', /./],
    ['wrong id: answers for another run', ['wrongid'], 'FAIL', /answered the wrong id/],
    ['an oversize line (2 MiB)', ['bigline'], 'FAIL', /over the 1 MiB limit/],
    ['100,000 small lines, then its result', ['many-lines'], 'PASS', /./],
    ['never reads stdin', ['no-stdin'], 'TIMEOUT', /deadline/i],
    ['closes stdout after hello', ['close-stdout'], 'TIMEOUT', /deadline/i],
    ['invalid UTF-8 on stdout, then its result', ['bad-utf8'], 'PASS', /./],
    ['ignores the abort, SIGTERM and the end of stdin', ['immortal'], 'TIMEOUT', /deadline/i],
  ];
  for (const [name, mode, verdict, says] of verdictCases)
    hostile(`${name}: ${verdict}, the reason says which; the process is gone afterwards`, 60_000, async () => {
      // A short deadline where the case waits it out; room to answer on a loaded machine where it answers.
      const { results, left, growthMb } = await withClient(mode, [REJECT_IS_RIGHT], { deadlineMs: verdict === 'TIMEOUT' ? 2000 : 8000 });
      expect(Array.isArray(results), String(results)).toBe(true);
      const r = (results as ScenarioResult[])[0]!;
      expect(r.verdict, reason(r)).toBe(verdict);
      expect(reason(r)).toMatch(says);
      expect(growthMb, 'memory growth (MiB)').toBeLessThan(256);
      return left;
    });

  hostile('a client that leaves a child in its process group and one in a new session, then exits: both are killed', 60_000, async () => {
    const pids = join(fixtures, 'orphans-inproc.pids');
    const { results, left } = await withClient(['orphans', pids], [REJECT_IS_RIGHT], { deadlineMs: 2000 });
    expect((results as ScenarioResult[])[0]!.verdict).toBe('FAIL');
    return [...left, ...stillRunning(pids)];
  });

  hostile(
    'a client whose grandchild calls setsid and clears its environment (no group, no run mark), then hangs: the grandchild is killed with the run',
    60_000,
    async () => {
      const pids = join(fixtures, 'escape-inproc.pids');
      // A deadline long enough for a starved client to have spawned its grandchild before it is cut (found on a loaded CI runner).
      const { results, left } = await withClient(['escape', pids], [REJECT_IS_RIGHT], { deadlineMs: 5000 });
      expect((results as ScenarioResult[])[0]!.verdict).toBe('TIMEOUT');
      expect(existsSync(pids)).toBe(true);
      return [...left, ...stillRunning(pids)];
    },
  );

  hostile(
    'a forged registry entry (a file in the run folder naming a process group the client never started) kills nothing, neither at the end of the run nor when the next run reaps it; what the reaper kills through a group it names',
    30_000,
    async () => {
      // The victim: a group of its own, started before either run, as a user's shell would be.
      const victim = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true });
      let left: ChildProcess | undefined;
      let own: string | undefined;
      const ticks = () => readFileSync(`/proc/${victim.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
      try {
        await new Promise((r) => setTimeout(r, 100));
        const t = ticks();
        // A live run: what a client writes in its folder is never read to kill.
        const live = await openRunFolder('hostile test');
        writeFileSync(join(live.procsDir, String(victim.pid)), t);
        await closeRunFolder(live);
        expect(stillAlive(victim.pid), 'killed by a live run').toBe(true);
        // A dead run (its owner gone), as the next run finds it: a group that started before that run is not its.
        // In a temp folder of its own: the reaper of another test's command must not take it first.
        // Made well after the victim started (the reaper allows half a second between the two clocks).
        await new Promise((r) => setTimeout(r, 1200));
        own = mkdtempSync(join(tmpdir(), 'a2a-hostile-reap-'));
        const dead = mkdtempSync(join(own, 'a2a-conformance-run-'));
        mkdirSync(join(dead, 'procs'));
        writeFileSync(
          join(dead, 'owner.json'),
          JSON.stringify({
            pid: 999_999,
            startTicks: String(Number(t) + 1),
            pidNamespace: readlinkSync('/proc/self/ns/pid'),
            startedAt: new Date().toISOString(),
            command: 'run',
          }),
        );
        writeFileSync(join(dead, 'procs', String(victim.pid)), t);
        // Beside it, a group that run did start (after it began), with two processes and no mark: killed, and named.
        left = spawn('sh', ['-c', `"${process.execPath}" -e "setInterval(() => {}, 1000)" & exec "${process.execPath}" -e "setInterval(() => {}, 1000)"`], {
          stdio: 'ignore',
          detached: true,
        });
        await new Promise((r) => setTimeout(r, 300));
        writeFileSync(join(dead, 'procs', String(left.pid)), readFileSync(`/proc/${left.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!);
        const tmp = process.env.TMPDIR;
        process.env.TMPDIR = own;
        let lines: string[];
        try {
          lines = reapDeadRuns();
        } finally {
          if (tmp === undefined) delete process.env.TMPDIR;
          else process.env.TMPDIR = tmp;
        }
        const said = lines.find((l) => l.includes(dead)) ?? '';
        // A held run whose owner.json a client rewrote to name a dead process: the run holds its folder open, so it is left alone.
        const held = mkdtempSync(join(own, 'a2a-conformance-run-'));
        writeFileSync(
          join(held, 'owner.json'),
          JSON.stringify({
            pid: 999_999,
            startTicks: '0',
            pidNamespace: readlinkSync('/proc/self/ns/pid'),
            startedAt: new Date().toISOString(),
            command: 'run',
          }),
        );
        const fd = openSync(held, 'r');
        process.env.TMPDIR = own;
        try {
          expect(reapDeadRuns().filter((l) => l.includes(held))).toEqual([]);
          expect(existsSync(held)).toBe(true);
        } finally {
          closeSync(fd);
          if (tmp === undefined) delete process.env.TMPDIR;
          else process.env.TMPDIR = tmp;
        }
        expect(said).toMatch(/killed 2 process\(es\) it left running: node \(pid \d+\), node \(pid \d+\)$/);
        expect(existsSync(dead)).toBe(false);
        expect(stillAlive(victim.pid), 'killed by the reaper').toBe(true);
        // SIGKILL is sent, not yet taken: on a loaded machine the process may not have run since. It is gone soon after.
        expect(await goneWithin(left.pid, 10_000), 'left by the reaper').toBe(true);
      } finally {
        // A failing case leaves no folder behind either.
        if (own) rmSync(own, { recursive: true, force: true });
        victim.kill('SIGKILL');
        // Should the reaper have missed them, the group goes here (a failing case leaves nothing running).
        if (left?.pid) {
          try {
            process.kill(-left.pid, 'SIGKILL');
          } catch {
            // gone: as it should be
          }
        }
      }
      return [];
    },
  );

  hostile(
    "another process hammering a lane's listeners with handshakes while a client's run is under way: none of them is credited to that run",
    90_000,
    async () => {
      const before = listening();
      const folder = await openRunFolder('hostile test');
      await writePki(pki, folder.pkiDir);
      const client = new SubprocessClient({
        command: `"${process.execPath}" "${join(ROOT, 'test/fixtures/clients/reference-ndjson.mjs')}" 1`,
        runDir: folder.dir,
      });
      const env = await openEnv({ pkiDir: folder.pkiDir, client, idSalt: 'scan', deadlineMultiplier: 1 });
      let r: ScenarioResult;
      let scans = 0;
      try {
        // The scanner (this process, not the lane's client): TLS handshakes it fails on every listener, over and over.
        let scanning = true;
        const ports = LISTENER_KINDS.map((k) => Number(new URL(env.host.origin(k)).port));
        const scanner = (async () => {
          while (scanning)
            for (const port of ports) {
              await new Promise<void>((done) => {
                const s = tlsConnect({ host: '127.0.0.1', port, ca: 'not a CA', rejectUnauthorized: true }, () => s.end());
                s.on('error', () => done());
                s.on('close', () => done());
              });
              // And one that connects and leaves at once, before the listener has said a word.
              await new Promise<void>((done) => {
                const s = netConnect({ host: '127.0.0.1', port }, () => s.destroy());
                s.on('error', () => done());
                s.on('close', () => done());
              });
              scans++;
            }
        })();
        try {
          r = await executeScenario(scenario(CONTROL), env);
        } finally {
          scanning = false;
          await scanner;
        }
      } finally {
        await closeEnv(env);
        await closeRunFolder(folder);
      }
      // The scanner was at work while the run was: each count is two connections to one listener, and a
      // loaded machine may give the run time for only a few (7 once under the full suite); three are enough.
      expect(scans).toBeGreaterThan(2);
      expect(r.verdict, reason(r)).toBe('PASS');
      // The client's own handshakes succeed; none of the scanner's failed ones is in the run's transcript.
      const tls = r.transcript.filter((e) => e.kind === 'tls');
      expect(tls.length).toBeGreaterThan(0);
      expect(tls.filter((e) => e.kind === 'tls' && !e.ok)).toEqual([]);
      expect(env.host.foreignConnections).toBeGreaterThan(0);
      return leftInProcess([folder.dir], before);
    },
  );

  // 250 lines: enough to fill the 100 warnings kept (each slice of a line used to keep all of it alive:
  // 100 MiB), few enough to pass the pipe well within the 10 s hello limit on a loaded machine.
  hostile(
    "250 lines of 1 MB with an unknown type before hello: kept as at most 100 short warnings; nothing of the flood is retained (under 16 MiB after a collection), the peak stays under the flood's own 250 MiB",
    90_000,
    async () => {
      // The same run with a quiet client first: what stays from it (compiled schemas, TLS contexts) is not the flood's.
      await withClient(['good'], [REJECT_IS_RIGHT]);
      const kept = await retained();
      const { results, client, left, growthMb } = await withClient(['hello-flood', '250'], [REJECT_IS_RIGHT]);
      expect(Array.isArray(results), String(results)).toBe(true);
      expect(client.protocolLog.length).toBeLessThanOrEqual(100);
      expect(JSON.stringify(client.protocolLog).length).toBeLessThan(100 * 600);
      const keptAfter = ((await retained()) - kept) / MB;
      figures.push(`hello flood: ${keptAfter.toFixed(1)} MiB retained, ${growthMb.toFixed(0)} MiB peak growth`);
      expect(keptAfter, 'retained after a collection (MiB)').toBeLessThan(16);
      expect(growthMb, 'peak growth (MiB): garbage waiting for the collector, never the flood itself').toBeLessThan(250);
      return left;
    },
  );

  hostile(
    'a result with unknown fields (one saying "verdict": "PASS"): only the declared fields are kept as claims, the others named in a warning',
    60_000,
    async () => {
      const { results, left } = await withClient(['extra-field'], [REJECT_IS_RIGHT]);
      const r = (results as ScenarioResult[])[0]!;
      expect(r.verdict, reason(r)).toBe('PASS');
      expect(Object.keys(r.claims ?? {}).sort()).toEqual(['decision', 'degradations', 'errorClass', 'notes', 'taskIds']);
      expect(r.checks.flatMap((c) => c.evidence.map((e) => e.fact)).join(' | ')).toMatch(/"extra", "verdict" are not ones the protocol defines/);
      return left;
    },
  );

  hostile('a result with an unknown field nested 4,500 deep: `run` exits 1 with its report, that scenario FAIL saying why', 90_000, async () => {
    const before = listening();
    const out = join(fixtures, 'deep-field-report');
    const o = await runMain(['run', '--client-cmd', cmd('deep-field'), '--scenario', REJECT_IS_RIGHT, '--out', out, '--reporter', 'dot']);
    expect(o.code, o.stderr).toBe(1);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
    const r = results.results[0]!;
    expect(r.verdict).toBe('FAIL');
    expect(reason(r)).toMatch(/the client's result is invalid: it nests deeper than 32 levels \(at "x"\."a"\."a"…\)/);
    expect(r.claims).toBeNull();
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toMatch(/nests deeper than 32 levels/);
    return leftInProcess([], before);
  });

  hostile('JSON-RPC ids nested 3,000 and 20,000 deep: answered -32600 with id null, recorded as a short note, the result serialises', 60_000, async () => {
    const { results, left } = await withClient(['deep-id'], [CONTROL]);
    const r = (results as ScenarioResult[])[0]!;
    const bad = r.transcript.filter((e) => e.kind === 'http' && e.note?.includes('not a string, number or null'));
    expect(bad).toHaveLength(2);
    expect(bad.every((e) => e.kind === 'http' && e.rpcError?.code === -32600)).toBe(true);
    expect(JSON.stringify(r).length).toBeLessThan(MB);
    return left;
  });
});

describe('floods at the peers', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki();
  });

  /**
   * Mounts the control peer with `transcript` already holding `prefill` events, sends `n` real requests
   * (`body(i)`: a GetTask of no task by default); returns their statuses and JSON-RPC error codes.
   */
  async function flood(
    transcript: Transcript,
    prefill: number,
    n: number,
    o: { body?: (i: number) => unknown; retainFinished?: number; ledger?: (l: TaskLedger) => void | Promise<void>; scenario?: string } = {},
  ): Promise<{ statuses: number[]; codes: Array<number | undefined>; left: string[] }> {
    const before = listening();
    const folder = await openRunFolder('hostile flood');
    await writePki(pki, folder.pkiDir);
    const env = await openEnv({
      pkiDir: folder.pkiDir,
      client: {
        hello: async () => ({ name: 'none', version: '0', profile: null, taskClasses: [] }),
        run: async () => ({ decision: 'rejected', taskIds: [], degradations: [] }),
      } as never,
      idSalt: 'flood',
      deadlineMultiplier: 1,
    });
    const statuses: number[] = [];
    const codes: Array<number | undefined> = [];
    try {
      const m = mountPeer(env.host, env.dispatcher, scenario(o.scenario ?? CONTROL).peer, {
        deadlineMs: 60_000,
        transcript,
        ...(o.retainFinished ? { retainFinished: o.retainFinished } : {}),
      });
      for (let i = 0; i < prefill; i++) transcript.record({ kind: 'harness', level: 'info', message: 'prefill' });
      const rpc = (m.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url;
      const agent = new Agent({ connect: { ca: pki.testCa.cert } });
      for (let i = 0; i < n; i++) {
        const res = await request(rpc, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify(o.body?.(i) ?? { jsonrpc: '2.0', id: i, method: 'GetTask', params: { id: 'nope' } }),
        });
        const text = await res.body.text();
        statuses.push(res.statusCode);
        codes.push(res.statusCode === 200 ? (JSON.parse(text) as { error?: { code: number } }).error?.code : undefined);
      }
      await agent.close();
      await o.ledger?.(m.ledger);
      m.end();
    } finally {
      await closeEnv(env);
      await closeRunFolder(folder);
    }
    return { statuses, codes, left: leftInProcess([folder.dir], before) };
  }

  const send = (i: number, text: string, extra: object = {}) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'SendMessage',
    params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text }] }, ...extra },
  });

  hostile(
    `requests of 60 KB until the run's ${RUN_INPUT_BYTES / MB} MiB are spent: answered 429 after; payloads past ${KEPT_PAYLOAD_CHARS / MB} Mi characters kept as size and digest; memory bounded`,
    120_000,
    async () => {
      const t = new Transcript(() => performance.now());
      const n = Math.ceil(RUN_INPUT_BYTES / 60_000) + 30;
      const rssBefore = process.memoryUsage.rss();
      const { value: out, peak } = await peakOf(
        () => process.memoryUsage.rss(),
        () => flood(t, 0, n, { body: (i) => send(i, 'x'.repeat(60_000), { configuration: { returnImmediately: true } }) }),
      );
      const first = out.statuses.indexOf(429);
      expect(first, JSON.stringify(out.statuses.slice(-40))).toBeGreaterThan(400);
      expect(out.statuses.slice(0, first).every((s) => s === 200)).toBe(true);
      expect(out.statuses.slice(first).every((s) => s === 429)).toBe(true);
      // The first refusal is on record, saying why; nothing after it.
      const refused = t.events.filter((e) => e.kind === 'http' && e.status === 429);
      expect(refused).toHaveLength(1);
      expect((refused[0] as { note?: string }).note).toMatch(/past the 32 MiB of requests one scenario run takes/);
      // What the transcript holds stays within the payload budget (and some room for the events themselves).
      const held = JSON.stringify(t.events).length;
      expect(held).toBeLessThan(KEPT_PAYLOAD_CHARS + 4 * MB);
      expect(t.shed).toBeGreaterThan(0);
      const shed = t.events.filter((e) => e.kind === 'http' && e.responseBody?.truncated?.includes("run's budget"));
      expect(shed.length).toBeGreaterThan(0);
      expect(shed[0]!.kind === 'http' && shed[0]!.responseBody!.digest).toMatch(/^[0-9a-f]{16}$/);
      const growth = (peak - rssBefore) / MB;
      figures.push(`${n} requests of 60 KB: ${(held / MB).toFixed(1)} MiB held by the transcript, ${growth.toFixed(0)} MiB peak growth`);
      expect(growth, 'peak RSS growth (MiB)').toBeLessThan(400);
      return out.left;
    },
  );

  hostile('push configs whose URL, token or credentials run to megabytes: refused with -32602, never stored or recorded', 60_000, async () => {
    const t = new Transcript(() => performance.now());
    const big = 'https://127.0.0.1/' + 'a'.repeat(1_900_000);
    const out = await flood(t, 0, 3, {
      scenario: 'hs-aspirational/push-works',
      body: (i) =>
        send(i, 'hi', {
          configuration: {
            taskPushNotificationConfig:
              i === 0
                ? { url: big }
                : i === 1
                  ? { url: 'https://127.0.0.1/hook', token: 'x'.repeat(9000) }
                  : { url: 'https://127.0.0.1/hook', authentication: { scheme: 'Bearer', credentials: 'x'.repeat(9000) } },
          },
        }),
    });
    expect(out.statuses).toEqual([200, 200, 200]);
    expect(out.codes).toEqual([-32602, -32602, -32602]);
    expect(t.events.filter((e) => e.kind === 'push-register')).toHaveLength(0);
    expect(JSON.stringify(t.events).length).toBeLessThan(200_000);
    return out.left;
  });

  hostile(
    `serve forgets finished tasks past the latest ${SERVE_FINISHED_TASKS} (or 16 Mi characters of history): 60 sends of 1 MB leave few in its ledger, and under 40 MiB retained after a collection`,
    120_000,
    async () => {
      const t = new Transcript(() => performance.now(), { ring: SERVE_EVENTS });
      let kept = -1;
      let finished = -1;
      const heapBefore = await retained();
      let heapAfter = 0;
      const out = await flood(t, 0, 60, {
        body: (i) => send(i, 'y'.repeat(1_000_000), { configuration: { returnImmediately: true } }),
        retainFinished: SERVE_FINISHED_TASKS,
        ledger: async (l) => {
          // Once the last tasks are done: what serve holds while it keeps serving.
          await new Promise((r) => setTimeout(r, 1500));
          kept = l.all().length;
          finished = l.all().filter((r) => isTerminal(r.state)).length;
          heapAfter = await retained();
        },
      });
      const held = (heapAfter - heapBefore) / MB;
      figures.push(`serve after 60 sends of 1 MB: ${held.toFixed(1)} MiB retained, ${kept} tasks kept`);
      expect(held, 'retained after a collection (MiB)').toBeLessThan(40);
      expect(out.statuses.every((s) => s === 200)).toBe(true);
      // The control peer finishes each task soon after its send; those still working are kept besides.
      // 16 Mi characters of history hold about 16 of these tasks.
      expect(finished).toBeGreaterThan(0);
      expect(finished).toBeLessThanOrEqual(17);
      expect(kept).toBeLessThan(30);
      // Small tasks: the count bounds them.
      let small = -1;
      const many = await flood(new Transcript(() => performance.now(), { ring: SERVE_EVENTS }), 0, SERVE_FINISHED_TASKS + 30, {
        body: (i) => send(i, 'hi', { configuration: { returnImmediately: true } }),
        retainFinished: SERVE_FINISHED_TASKS,
        ledger: async (l) => {
          await new Promise((r) => setTimeout(r, 1500));
          small = l.all().filter((r) => isTerminal(r.state)).length;
        },
      });
      expect(many.statuses.every((x) => x === 200)).toBe(true);
      expect(small).toBe(SERVE_FINISHED_TASKS);
      out.left.push(...many.left);
      return out.left;
    },
  );

  hostile(`a scenario run past ${MAX_EVENTS} events: answered 429, never recorded, the transcript stays at its cap`, 60_000, async () => {
    const t = new Transcript(() => performance.now());
    const { statuses, left } = await flood(t, MAX_EVENTS - 50, 100);
    // Answered while there was room, then 429 for every request after the cap.
    const first = statuses.indexOf(429);
    expect(first, JSON.stringify(statuses)).toBeGreaterThan(10);
    expect(statuses.slice(0, first).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(first).every((s) => s === 429)).toBe(true);
    expect(t.events.length).toBe(MAX_EVENTS);
    expect(t.dropped).toBeGreaterThanOrEqual(100 - first);
    return left;
  });

  hostile(`serve keeps answering after ${MAX_EVENTS + 5000} events: its transcript is a ring of the latest ${SERVE_EVENTS}`, 60_000, async () => {
    const t = new Transcript(() => performance.now(), { ring: SERVE_EVENTS });
    const { statuses, left } = await flood(t, MAX_EVENTS + 5000, 20);
    expect(
      statuses.every((s) => s === 200),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(t.events.length).toBeLessThan(2 * SERVE_EVENTS);
    expect(t.events.at(-1)!.seq).toBeGreaterThan(MAX_EVENTS + 5000);
    return left;
  });
});

// =============================================================================================

describe('report input and --out (issue 24: items 5, 6, 9; what report reads, whose folder --out is)', () => {
  /** One real scenario's results (the reference on the control scenario), run once. */
  let real: RunResults;
  /** What `report` exits with on them (recomputed from the verdicts). */
  let realCode: number;
  beforeAll(async () => {
    real = await runInProcess('reference', [CONTROL]);
    realCode = (await runMain(['report', write('real.results.json', JSON.stringify(real)), '--out', join(fixtures, 'out-real')])).code;
    expect(realCode).not.toBe(2);
  }, 120_000);

  const FIVE = ['.a2a-conformance-report.json', 'index.html', 'junit.xml', 'results.json', 'summary.md'];
  /** A folder's entries and their bytes (a folder as its entries). */
  const snapshot = (dir: string): Record<string, string> =>
    Object.fromEntries(
      readdirSync(dir)
        .sort()
        .map((n) => [n, statSync(join(dir, n)).isDirectory() ? `<folder: ${readdirSync(join(dir, n)).join(', ')}>` : readFileSync(join(dir, n), 'utf8')]),
    );
  /** A report the harness wrote, to be kept or replaced. */
  const previous = async (name: string) => {
    const out = join(fixtures, name);
    const o = await runMain(['report', write(`${name}.results.json`, JSON.stringify(real)), '--out', out]);
    expect(o.code, o.stderr).toBe(realCode);
    expect(readdirSync(out).sort()).toEqual(FIVE);
    return out;
  };
  const oneLine = (o: MainOutcome) => {
    expect(o.stderr.trim().split('\n'), o.stderr).toHaveLength(1);
    expect(o.stderr).not.toMatch(/\n\s+at /);
  };
  /** Depth of a chain of `x` keys. */
  const chain = (v: unknown) => {
    let n = 0;
    for (let p = v; p && typeof p === 'object'; p = (p as { x?: unknown }).x) n++;
    return n;
  };

  hostile(
    'report of a results.json whose card nests 3,000 deep: the report is written, that part elided and said; the previous report stays whole until the new one replaces it',
    60_000,
    async () => {
      const before = listening();
      const out = await previous('out-deep-card');
      const old = readFileSync(join(out, 'results.json'), 'utf8');
      const deep = structuredClone(real);
      let p: Record<string, unknown> = {};
      deep.results[0]!.card.metadata = p;
      for (let i = 0; i < 3000; i++) {
        const q = {};
        p.x = q;
        p = q;
      }
      const input = write('deep-card.results.json', JSON.stringify(deep));
      // Whenever the event loop turns while the report is written, results.json is a whole report, old or new.
      let broken = 0;
      const watch = setInterval(() => {
        try {
          JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
        } catch {
          broken++;
        }
      }, 1);
      const o = await runMain(['report', input, '--out', out]).finally(() => clearInterval(watch));
      expect(o.code, o.stderr).toBe(realCode);
      oneLine(o);
      expect(o.stderr).toMatch(
        /deep-card\.results\.json: 1 value\(s\) nested deeper than \d+ levels are shown as a marker in the report \(the first at \/results\/0\/card\/metadata\/x\/x/,
      );
      expect(broken, 'moments results.json was missing or partial').toBe(0);
      expect(readdirSync(out).sort()).toEqual(FIVE);
      const text = readFileSync(join(out, 'results.json'), 'utf8');
      expect(text).not.toBe(old);
      const written = JSON.parse(text) as RunResults;
      const depth = chain(written.results[0]!.card.metadata);
      expect(depth).toBeGreaterThan(50);
      expect(depth).toBeLessThan(200);
      expect(text).toMatch(/"\[a2a-conformance: nested deeper than \d+ levels; not kept\]"/);
      expect(readFileSync(join(out, 'index.html'), 'utf8')).toMatch(/data-testid="elided">1 value\(s\) nested deeper than \d+ levels are not shown/);
      return leftInProcess([], before);
    },
  );

  hostile(
    'report of a valid results.json over 32 MiB: one line naming the limit, exit 2, the previous report untouched, the file never read (memory flat)',
    60_000,
    async () => {
      const before = listening();
      const out = await previous('out-big');
      const kept = snapshot(out);
      // Valid JSON, quickly: the results, then 33 MiB of spaces (white space may follow a JSON value).
      const big = join(fixtures, 'big.results.json');
      const fd = openSync(big, 'w');
      writeSync(fd, JSON.stringify(real));
      const spaces = Buffer.alloc(MB, 0x20);
      for (let i = 0; i < 33; i++) writeSync(fd, spaces);
      closeSync(fd);
      await retained();
      const rss = process.memoryUsage.rss();
      const { value: o, peak } = await peakOf(
        () => process.memoryUsage.rss(),
        () => runMain(['report', big, '--out', out]),
      );
      rmSync(big);
      expect(o.code, o.stderr).toBe(2);
      oneLine(o);
      expect(o.stderr).toMatch(/big\.results\.json is 33\.\d MiB: report reads at most 32 MiB of results in all/);
      expect(snapshot(out)).toEqual(kept);
      const growth = (peak - rss) / MB;
      figures.push(`33 MiB results.json refused: ${growth.toFixed(1)} MiB peak RSS growth`);
      expect(growth, 'peak RSS growth (MiB): the file is never read').toBeLessThan(24);
      return leftInProcess([], before);
    },
  );

  hostile(
    'a run whose one scenario holds data that cannot be written (a getter that throws, a cycle): the report is written, that scenario says why, the other is whole',
    30_000,
    async () => {
      const before = listening();
      const r = structuredClone(real);
      const bad = structuredClone(r.results[0]!);
      bad.id = 'hostile/unwritable';
      r.results.push(bad);
      Object.defineProperty(bad.card, 'evil', {
        enumerable: true,
        get: () => {
          throw new Error('a getter that throws');
        },
      });
      const loop: Record<string, unknown> = {};
      loop.self = loop;
      (bad.card as Record<string, unknown>).loop = loop;
      const out = join(fixtures, 'out-unwritable');
      const claimed = await claimOutput('--out', out);
      const written = await claimed.commit(r);
      expect(readdirSync(out).sort()).toEqual(FIVE);
      const onDisk = JSON.parse(readFileSync(written.results, 'utf8')) as RunResults;
      expect(onDisk.results.map((x) => x.id)).toEqual([real.results[0]!.id, 'hostile/unwritable']);
      expect(onDisk.results[0]).toEqual(JSON.parse(JSON.stringify(real.results[0])));
      const salvaged = onDisk.results[1]! as ScenarioResult & { unrendered?: string };
      expect(salvaged.unrendered).toMatch(/could not be written \(Error: a getter that throws\)/);
      expect(salvaged.verdict).toBe(real.results[0]!.verdict);
      expect(salvaged.card.evil).toMatch(/^\[a2a-conformance: could not be read \(Error: a getter that throws\)\]$/);
      expect((salvaged.card.loop as Record<string, unknown>).self).toMatch(/^\[a2a-conformance: a reference to an enclosing value/);
      expect(salvaged.card.name).toBe(real.results[0]!.card.name);
      const html = readFileSync(written.html, 'utf8');
      expect(html.match(/<details class="scenario/g)).toHaveLength(2);
      expect(html).toMatch(/data-testid="unrendered"><strong>Not all of this scenario could be written:<\/strong> [^<]*a getter that throws/);
      // The scenarios run (those not run are skipped testcases of their own).
      expect(readFileSync(written.junit, 'utf8').match(/<testcase name="[^"]*" classname="a2a-conformance\.(?!not-run")/g)).toHaveLength(2);
      // What was written is a results file `report` reads again.
      const again = await runMain(['report', written.results, '--out', join(fixtures, 'out-unwritable-again')]);
      expect(again.code, again.stderr).not.toBe(2);
      return leftInProcess([], before);
    },
  );

  hostile("--out holding a user's own index.html: exit 2 and one line before anything runs; the folder untouched", 60_000, async () => {
    const before = listening();
    const out = join(fixtures, 'out-user-html');
    mkdirSync(out);
    writeFileSync(join(out, 'index.html'), '<h1>my own page</h1>\n');
    const kept = snapshot(out);
    const o = await runMain(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--out', out]);
    expect(o.code, o.stderr).toBe(2);
    oneLine(o);
    expect(o.stderr).toMatch(/--out .*out-user-html holds files that are not a report a2a-conformance wrote \(index\.html\): name a new folder/);
    expect(snapshot(out)).toEqual(kept);
    return leftInProcess([], before);
  });

  hostile(
    "--out holding a user's own results.json, a report of an earlier version (no marker), or a `.writing-*` folder the marker does not name: exit 2 and one line each; each folder untouched",
    60_000,
    async () => {
      const before = listening();
      const input = write('for-user.results.json', JSON.stringify(real));
      const userFolder = join(fixtures, 'out-user-json');
      mkdirSync(userFolder);
      writeFileSync(join(userFolder, 'results.json'), '{"mine": true}\n');
      const earlier = join(fixtures, 'out-earlier');
      mkdirSync(earlier);
      for (const [n, t] of [
        ['index.html', '<!doctype html><title>an old report</title>'],
        ['results.json', JSON.stringify(real, null, 2)],
        ['junit.xml', '<testsuites/>'],
        ['summary.md', '# old\n'],
      ])
        writeFileSync(join(earlier, n!), t!);
      const staged = await previous('out-staged');
      mkdirSync(join(staged, '.writing-mine'));
      writeFileSync(join(staged, '.writing-mine', 'keep.txt'), "not the harness's\n");
      for (const [out, says] of [
        [userFolder, /--out .*out-user-json holds files that are not a report a2a-conformance wrote \(results\.json\)/],
        [
          earlier,
          /--out .*out-earlier holds a report of an earlier a2a-conformance, which did not mark its folders \(\.a2a-conformance-report\.json\): delete that folder, or name a new one/,
        ],
        [staged, /--out .*out-staged holds files that are not a report a2a-conformance wrote \(\.writing-mine\)/],
      ] as Array<[string, RegExp]>) {
        const kept = snapshot(out);
        const o = await runMain(['report', input, '--out', out]);
        expect(o.code, o.stderr).toBe(2);
        oneLine(o);
        expect(o.stderr).toMatch(says);
        expect(snapshot(out)).toEqual(kept);
      }
      return leftInProcess([], before);
    },
  );

  hostile(
    'two commands on one --out: the second refuses in one line (exit 2) while the first holds it; a lock whose owner is dead is taken over',
    60_000,
    async () => {
      const before = listening();
      const out = join(fixtures, 'out-locked');
      const input = write('locked.results.json', JSON.stringify(real));
      // The first: a run that has claimed the folder (this process, alive).
      const first = await claimOutput('--out', out);
      const claimedBy = snapshot(out);
      const o = await runMain(['report', input, '--out', out]);
      expect(o.code, o.stderr).toBe(2);
      oneLine(o);
      expect(o.stderr).toMatch(
        new RegExp(
          `--out .*out-locked is being written by another a2a-conformance command \\(pid ${process.pid}, started [^)]+\\): wait for it to finish, or name another folder`,
        ),
      );
      expect(snapshot(out)).toEqual(claimedBy);
      first.abandon('the test let it go');
      expect(readdirSync(out).sort()).toEqual(['.a2a-conformance-report.json', 'INCOMPLETE', 'index.html']);
      // A lock left by a process that has died (a SIGKILLed run): its owner is gone, the lock is taken over.
      const dead = spawnSync(process.execPath, ['-e', '']).pid;
      writeFileSync(
        join(out, '.a2a-conformance.lock'),
        JSON.stringify({
          harness: 'a2a-conformance',
          version: 'test',
          pid: dead,
          startTicks: '1',
          pidNamespace: null,
          startedAt: new Date(0).toISOString(),
          command: 'a killed run',
          nonce: 'dead',
        }) + '\n',
      );
      const taken = await runMain(['report', input, '--out', out]);
      expect(taken.code, taken.stderr).toBe(realCode);
      expect(readdirSync(out).sort()).toEqual(FIVE);
      // A run that died while it wrote: its staging folder is named in the marker, so it is the harness's to remove.
      const marker = JSON.parse(readFileSync(join(out, '.a2a-conformance-report.json'), 'utf8')) as { files: string[] };
      writeFileSync(join(out, '.a2a-conformance-report.json'), JSON.stringify({ ...marker, files: [...marker.files, '.writing-dead'] }));
      mkdirSync(join(out, '.writing-dead'));
      writeFileSync(join(out, '.writing-dead', 'results.json'), '{}');
      const cleaned = await runMain(['report', input, '--out', out]);
      expect(cleaned.code, cleaned.stderr).toBe(realCode);
      expect(readdirSync(out).sort()).toEqual(FIVE);
      return leftInProcess([], before);
    },
  );

  hostile('junit.xml of a results.json full of bidirectional controls: each shown escaped, none left to reorder what a CI page shows', 30_000, async () => {
    const before = listening();
    const evil = 'PASS\u202e\u2066 LIAF\u2069\u202c\u200f\u061c\u200e\u202a';
    const r = structuredClone(real);
    r.client.name = evil;
    r.seed = evil;
    r.results[0]!.id = `x/${evil}`;
    r.results[0]!.verdict = 'FAIL';
    r.results[0]!.checks[0]!.verdict = 'FAIL';
    r.results[0]!.checks[0]!.reason = evil;
    const out = join(fixtures, 'out-bidi');
    const o = await runMain(['report', write('bidi.results.json', JSON.stringify(r)), '--out', out]);
    expect(o.code, o.stderr).toBe(1);
    const xml = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(xml).toContain('x/PASS\\u{202e}\\u{2066} LIAF\\u{2069}\\u{202c}\\u{200f}\\u{61c}\\u{200e}\\u{202a}');
    expect(xml.split('\\u{202e}').length - 1).toBeGreaterThanOrEqual(4); // suite name, seed, testcase name, the failure's reason
    return leftInProcess([], before);
  });

  hostile(
    'a results.json whose durationMs JSON cannot hold (1e400, -1e400): exit 2, one line naming the field; the previous report untouched',
    30_000,
    async () => {
      const before = listening();
      const out = await previous('out-duration');
      const kept = snapshot(out);
      const r = structuredClone(real);
      r.durationMs = 987654321.5;
      r.results[0]!.durationMs = 123456789.25;
      for (const [text, field] of [
        [JSON.stringify(r).replace('987654321.5', '1e400'), '/durationMs'],
        [JSON.stringify(r).replace('123456789.25', '-1e400'), '/results/0/durationMs'],
      ] as Array<[string, string]>) {
        const o = await runMain(['report', write('infinite.results.json', text), '--out', out]);
        expect(o.code, o.stderr).toBe(2);
        oneLine(o);
        expect(o.stderr).toContain(`infinite.results.json: ${field} is a number JSON cannot hold`);
        expect(snapshot(out)).toEqual(kept);
      }
      return leftInProcess([], before);
    },
  );
});

// =============================================================================================

describe('scenario modules are code, scenario searches have an end: exit 2 and one line naming the file or pattern', () => {
  /** A vendor module declaring one valid scenario, with `attack` at its top level. */
  const module = (name: string, attack: string) => write(name, `${attack}\nexport default ${JSON.stringify([vendor(`x/${name.split('.')[0]}`)])};\n`);
  /** Timers of this process: a module's leftover interval must not be among them. */
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  /** Runs the CLI's main in this process and asserts a load error of one line that matches `says`. */
  async function refused(args: string[], says: RegExp) {
    const before = listening();
    const timersBefore = timers();
    const o = await runMain(args);
    expect(o.code, o.stderr).toBe(2);
    expect(o.stderr).toMatch(says);
    expect(o.stderr.trim().split('\n'), o.stderr).toHaveLength(1);
    expect(o.stderr).not.toMatch(/\n\s+at /);
    expect(o.stdout).toBe('');
    expect(existsSync(join(fixtures, 'never')), 'no report folder').toBe(false);
    expect(timers(), 'timers left in this process').toBeLessThanOrEqual(timersBefore);
    return leftInProcess([], before);
  }

  // In this process: with the guard gone, the exit would end the test worker itself.
  hostile('run: a module that calls process.exit(0) at import', 60_000, async () =>
    refused(
      ['run', '--client', 'reference', '--no-builtin', '--scenarios', module('exit-now.scenario.ts', 'process.exit(0);'), '--out', join(fixtures, 'never')],
      /exit-now\.scenario\.ts: failed to load: it called process\.exit\(0\)/,
    ),
  );

  hostile('check-scenarios: a module whose timer calls process.exit(0) right after its import', 60_000, async () =>
    refused(
      ['check-scenarios', module('exit-later.scenario.mts', 'setTimeout(() => process.exit(0), 0);'), '--out', join(fixtures, 'never')],
      /exit-later\.scenario\.mts: failed to load: it called process\.exit\(0\)/,
    ),
  );

  hostile('list: a module whose top-level await never settles', 60_000, async () =>
    refused(
      ['list', '--no-builtin', '--scenarios', module('await.scenario.mjs', 'await new Promise(() => {});')],
      /await\.scenario\.mjs: failed to load: .*(never settles|budget)/,
    ),
  );

  hostile('run: a module that loops forever at import is cut off at the loading budget', 60_000, async () => {
    const budget = VENDOR_LOAD.budgetMs;
    VENDOR_LOAD.budgetMs = 4000;
    try {
      const started = Date.now();
      const left = await refused(
        ['run', '--client', 'reference', '--no-builtin', '--scenarios', module('spin.scenario.js', 'for (;;) {}'), '--out', join(fixtures, 'never')],
        /spin\.scenario\.js: failed to load: .*within (the|its) 4 s budget/,
      );
      figures.push(`import-time busy loop: load error after ${Date.now() - started} ms (budget 4000 ms in the test, 30 s by default)`);
      return left;
    } finally {
      VENDOR_LOAD.budgetMs = budget;
    }
  });

  hostile(
    'a module that leaves an interval running: loads; `list` leaves no timer in this process, and a real CLI `list` exits 0 by itself',
    60_000,
    async () => {
      const file = module('ticking.scenario.ts', 'setInterval(() => {}, 1000);');
      const cli = startCli(['list', '--no-builtin', '--scenarios', file]);
      const before = listening();
      const timersBefore = timers();
      const o = await runMain(['list', '--no-builtin', '--scenarios', file]);
      expect(o.code, o.stderr).toBe(0);
      expect(o.stdout).toMatch(/^x\/ticking\s+SPEC-TLS-VERIFY\s+PASS\n$/);
      expect(timers(), 'timers left in this process').toBeLessThanOrEqual(timersBefore);
      const { code } = await cli.exit;
      expect(code, cli.stderr()).toBe(0);
      expect(cli.stdout()).toMatch(/^x\/ticking\s/);
      return [...leftInProcess([], before), ...leftByCli(cli.tmp)];
    },
  );

  hostile(`list: a scenario file over ${MAX_SCENARIO_FILE_BYTES / MB} MiB is refused before it is read`, 30_000, async () => {
    const big = write('big.scenario.json', JSON.stringify([vendor('x/big')]) + ' '.repeat(MAX_SCENARIO_FILE_BYTES));
    return refused(['list', '--no-builtin', '--scenarios', big], /big\.scenario\.json: 4\.\d MiB is over the 4\.0 MiB limit for a scenario file/);
  });

  hostile('`--scenarios /`, `/proc/self` and `/**/x.scenario.ts`: refused at once, no walk of the filesystem', 30_000, async () => {
    const left: string[] = [];
    for (const p of ['/', '/proc/self', '/**/x.scenario.ts']) {
      const started = Date.now();
      left.push(
        ...(await refused(
          ['list', '--no-builtin', '--scenarios', p],
          /scenarios ".*": a search for scenario files does not walk (the whole filesystem \(\/\)|\/proc)/,
        )),
      );
      expect(Date.now() - started, `${p} refused within 5 s`).toBeLessThan(5000);
    }
    return left;
  });

  hostile('a folder holding a link to / , and a walk past its folder limit: each stops with one line naming the pattern', 30_000, async () => {
    const project = join(fixtures, 'linked');
    mkdirSync(project, { recursive: true });
    symlinkSync('/', join(project, 'root'));
    const left = await refused(
      ['list', '--no-builtin', '--scenarios', project],
      /scenarios ".*linked": a search for scenario files does not walk the whole filesystem \(\/\)/,
    );
    const limit = WALK_LIMITS.folders;
    WALK_LIMITS.folders = 5;
    try {
      left.push(
        ...(await refused(
          ['list', '--no-builtin', '--scenarios', join(ROOT, 'test')],
          /scenarios ".*test": a search for scenario files does not walk more than 5 folders/,
        )),
      );
    } finally {
      WALK_LIMITS.folders = limit;
    }
    return left;
  });
});

// =============================================================================================

describe('costly globs, replay paths, the end of a run, and the places a command leans on (issue 24: items 4, 7, 9)', () => {
  /** The issue's glob: 25 characters that a backtracking matcher takes seconds over for each id it does not match. */
  const CATASTROPHIC = '*/*?*?*?*?*?*?*?*?*?*?*?x';
  const expectationsOf = (entries: unknown[]) => JSON.stringify({ schema: 'a2a-conformance/expectations@1', entries });
  /** What an input case must show: exit 2, one line (and the usage line after an argument error), no stack, nothing started. */
  const refused = (o: { code: number; stderr: string }, says: RegExp) => {
    expect(o.code, o.stderr).toBe(2);
    expect(o.stderr).toMatch(says);
    expect(
      o.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('usage: a2a-conformance ')),
      o.stderr,
    ).toHaveLength(1);
    expect(o.stderr).not.toMatch(/\n\s+at /);
  };

  hostile(
    'an expectations glob that backtracks (`*/*?*?…x`, 23 wildcards) is refused at load: exit 2, one line naming the file and the entry, nothing started',
    30_000,
    async () => {
      const before = listening();
      const foldersBefore = ownRunFolders().length;
      const file = write(
        'catastrophic.json',
        expectationsOf([
          { scenario: 'spec-tls-verify/*', verdict: 'PASS', reason: '' },
          { scenario: CATASTROPHIC, verdict: 'FAIL', reason: 'x' },
        ]),
      );
      const out = join(fixtures, 'never-glob');
      const o = await runMain(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--expectations', file, '--out', out]);
      refused(o, /catastrophic\.json: entries\[1\]\.scenario is not a usable glob: 23 wildcards, at most 16/);
      expect(existsSync(out)).toBe(false);
      expect(ownRunFolders().length).toBeLessThanOrEqual(foldersBefore);
      return leftInProcess([], before);
    },
  );

  hostile(
    "globs within the limits are matched as the run goes: the reference's verdicts and the exit code are what they are without them",
    90_000,
    async () => {
      const before = listening();
      // At the wildcard limit, in the shape that backtracks; an exact id; a glob that names the rest.
      const file = write(
        'fine.json',
        expectationsOf([
          { scenario: '*/*?*?*?*?*?*?*?*l', verdict: 'PASS', reason: 'the control' },
          { scenario: 'spec-tls-verify/expired', verdict: 'PASS', reason: '' },
          { scenario: 'spec-tls-verify/**', verdict: 'PASS', reason: '' },
        ]),
      );
      const out = join(fixtures, 'out-fine-globs');
      const o = await runMain([
        'run',
        '--client',
        'reference',
        '--rule',
        'SPEC-TLS-VERIFY',
        '--dialect',
        'a2a-v1',
        '--expectations',
        file,
        '--out',
        out,
        '--reporter',
        'json',
      ]);
      expect(o.code, o.stderr).toBe(0);
      const r = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
      expect(r.results.length).toBeGreaterThanOrEqual(4);
      expect(new Set(r.results.map((x) => x.verdict))).toEqual(new Set(['PASS']));
      expect(r.unexpected).toEqual([]);
      return leftInProcess([], before);
    },
  );

  hostile(
    '200,000 globs (a 10 MB file) and 20,000 (1 MB): each refused in one line before anything runs; no run folder, no keys; memory stays low',
    60_000,
    async () => {
      const before = listening();
      const foldersBefore = ownRunFolders().length;
      const rssBefore = process.memoryUsage.rss();
      const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ scenario: `x${i}/*`, verdict: 'FAIL', reason: '' }));
      const {
        value: [huge, many],
        peak,
      } = await peakOf(
        () => process.memoryUsage.rss(),
        async () => [
          await runMain([
            'run',
            '--client',
            'reference',
            '--expectations',
            write('200k.json', expectationsOf(entries(200_000))),
            '--out',
            join(fixtures, 'never'),
          ]),
          await runMain([
            'run',
            '--client',
            'reference',
            '--expectations',
            write('20k.json', expectationsOf(entries(20_000))),
            '--out',
            join(fixtures, 'never'),
          ]),
        ],
      );
      refused(huge, /cannot read the expectations file .*200k\.json: it is \d+\.\d MiB, more than the 8\.0 MiB such a file may be/);
      refused(many, /20k\.json: 20000 entries, at most 10000/);
      expect(existsSync(join(fixtures, 'never'))).toBe(false);
      expect(ownRunFolders().length).toBeLessThanOrEqual(foldersBefore);
      const growthMb = (peak - rssBefore) / MB;
      figures.push(`200,000 and 20,000 globs refused: ${growthMb.toFixed(0)} MiB peak RSS growth`);
      expect(growthMb, 'peak RSS growth (MiB)').toBeLessThan(256);
      return leftInProcess([], before);
    },
  );

  hostile(
    '`report` of a results.json whose embedded expectations hold that glob: refused at once (exit 2, one line), the previous report untouched',
    30_000,
    async () => {
      // Eight scenarios not run, with long ids: what the merge judges the embedded entries against.
      const ids = Array.from({ length: 8 }, (_, i) => `spec-tls-verify/valid-certificate-control-number-${i}`);
      const doc = {
        ...assemble('x', []),
        notRun: ids.map((id) => ({ id, reason: 'not run: --bail' })),
        expectations: { schema: 'a2a-conformance/expectations@1', entries: [{ scenario: CATASTROPHIC, verdict: 'FAIL', reason: '' }] },
      };
      const out = join(fixtures, 'out-report-glob');
      expect((await runMain(['report', write('plain.results.json', JSON.stringify(assemble('x', []))), '--out', out])).code).toBe(1);
      const previous = readFileSync(join(out, 'results.json'), 'utf8');
      const o = await runMain(['report', write('glob.results.json', JSON.stringify(doc)), '--out', out]);
      refused(o, /glob\.results\.json \(its "expectations"\): entries\[0\]\.scenario is not a usable glob: 23 wildcards/);
      expect(readFileSync(join(out, 'results.json'), 'utf8')).toBe(previous);
      return [];
    },
  );

  hostile(
    '`replay --path 99999999999999999999` (fast-check would walk there one case at a time, signals unheard): exit 2 at once, one line; a path past the end of a shrink: exit 2, one line, the folder says why',
    60_000,
    async () => {
      const before = listening();
      const started = Date.now();
      const huge = await runMain(['replay', '--client', 'reference', '--seed', '1', '--path', '99999999999999999999', '--out', join(fixtures, 'never')]);
      refused(huge, /--path 99999999999999999999: at most 1000 steps, each a number up to 999999/);
      const steps = await runMain([
        'replay',
        '--client',
        'reference',
        '--seed',
        '1',
        '--path',
        Array(1001).fill('0').join(':'),
        '--out',
        join(fixtures, 'never'),
      ]);
      refused(steps, /--path 0:0:0.*…: at most 1000 steps/);
      expect(Date.now() - started, 'both refused at once (ms)').toBeLessThan(5000);
      expect(existsSync(join(fixtures, 'never'))).toBe(false);
      const out = join(fixtures, 'out-replay-past');
      const past = await runMain(['replay', '--client', 'reference', '--family', 'trust', '--seed', '1', '--path', '5:5000', '--out', out]);
      // The first line is the command's own header on stderr; the error is the one line after it.
      expect(past.code, past.stderr).toBe(2);
      expect(past.stderr).toMatch(/^a2a-conformance: no case at path 5:5000 of family trust for seed 1/m);
      expect(past.stderr).not.toMatch(/\n\s+at |internal error/);
      expect(readFileSync(join(out, 'INCOMPLETE'), 'utf8')).toMatch(/no case at path 5:5000/);
      return leftInProcess([], before);
    },
  );

  /** A CLI run whose last report rename (results.json) waits 3 s after saying so (test/fixtures/slow-report.mjs). */
  const slowReport = (out: string) =>
    startCli(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--out', out], caseTmp(), [
      '--import',
      join(ROOT, 'test/fixtures/slow-report.mjs'),
    ]);

  // Both at once (each its own child and temp folder): one CLI start's worth of the suite's time.
  hostile(
    'signals while the report is being written: one SIGINT lets the write finish (exit 130, the report whole, no INCOMPLETE, no staging folder); a second SIGTERM exits 143 at once, the half-written files and the staging folder removed, the folder marked incomplete with the reason',
    120_000,
    async () => {
      const whole = async () => {
        const out = join(fixtures, 'out-sig-write');
        const cli = slowReport(out);
        await cli.waitFor(/slow-report: writing results\.json/, 90_000);
        cli.child.kill('SIGINT');
        const { code, signal } = await cli.exit;
        expect({ code, signal }, cli.stderr()).toEqual({ code: 130, signal: null });
        expect(cli.stderr()).toMatch(/SIGINT: the run has ended; its report is written to the end/);
        expect(readdirSync(out).sort()).toEqual(['.a2a-conformance-report.json', 'index.html', 'junit.xml', 'results.json', 'summary.md']);
        expect((JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults).results).toHaveLength(TLS_V1);
        return leftByCli(cli.tmp);
      };
      const twice = async () => {
        const out = join(fixtures, 'out-sig-twice');
        const cli = slowReport(out);
        await cli.waitFor(/slow-report: writing results\.json/, 90_000);
        cli.child.kill('SIGTERM');
        await cli.waitFor(/SIGTERM: the run has ended/);
        cli.child.kill('SIGTERM');
        const { code, signal } = await cli.exit;
        expect({ code, signal }, cli.stderr()).toEqual({ code: 143, signal: null });
        expect(readdirSync(out).sort()).toEqual(['.a2a-conformance-report.json', 'INCOMPLETE', 'index.html']);
        expect(readFileSync(join(out, 'INCOMPLETE'), 'utf8')).toMatch(/did not finish: it was stopped by SIGTERM while its report was being written/);
        return leftByCli(cli.tmp);
      };
      return (await Promise.all([whole(), twice()])).flat();
    },
  );

  hostile(
    "an unusable TMPDIR (a file; a folder that does not exist): one line, exit 2, before --out is claimed; the clone's own start says it too",
    60_000,
    async () => {
      const before = listening();
      const saved = process.env.TMPDIR;
      const outcomes = [];
      try {
        for (const tmp of [join(ROOT, 'package.json'), join(fixtures, 'no-such-tmp')]) {
          process.env.TMPDIR = tmp;
          outcomes.push(await runMain(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--out', join(fixtures, 'never')]));
        }
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      for (const o of outcomes) refused(o, /the temp folder .* cannot be used \((ENOTDIR|ENOENT)\): set TMPDIR/);
      expect(existsSync(join(fixtures, 'never'))).toBe(false);
      expect(existsSync(join(fixtures, 'no-such-tmp'))).toBe(false);
      // A clone whose sources changed since its build starts through tsx (the tests run dist/ otherwise),
      // which makes its cache in TMPDIR before any of the CLI's code runs.
      const cold = spawnSync(process.execPath, [BIN, 'list'], {
        cwd: ROOT,
        env: { ...process.env, A2A_CONFORMANCE_DIST: '0', TMPDIR: join(ROOT, 'package.json') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      refused({ code: cold.status ?? -1, stderr: cold.stderr }, /the temp folder .*package\.json cannot be used/);
      return leftInProcess([], before);
    },
  );

  hostile('ENOENT: the current folder removed under the command; a missing expectations file: one line each, exit 2, no stack trace', 30_000, async () => {
    const before = listening();
    const gone = mkdtempSync(join(tmpdir(), 'a2a-hostile-cwd-'));
    const here = process.cwd();
    let o;
    try {
      process.chdir(gone);
      rmSync(gone, { recursive: true });
      o = await runMain(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--out', join(fixtures, 'never')]);
    } finally {
      process.chdir(here);
    }
    refused(o, /the current folder no longer exists \(ENOENT\)/);
    refused(
      await runMain(['run', '--client', 'reference', '--expectations', join(fixtures, 'no-such.json'), '--out', join(fixtures, 'never')]),
      /no-such\.json: no such file \(ENOENT\)/,
    );
    expect(existsSync(join(fixtures, 'never'))).toBe(false);
    return leftInProcess([], before);
  });

  hostile('a scenario module whose export has a throwing getter, or is a Proxy that throws: one line naming the file, exit 2', 60_000, async () => {
    const getter = write(
      'getter.scenario.ts',
      `const s: any = ${JSON.stringify(vendor('x/getter'))};\nObject.defineProperty(s, 'peer', { enumerable: true, get() { throw new Error('boom from a getter'); } });\nexport default [s];\n`,
    );
    const proxy = write('proxy.scenario.ts', `export default new Proxy([], { get() { throw new Error('boom from a proxy'); } });\n`);
    for (const [file, says] of [
      [getter, /getter\.scenario\.ts\b.*boom from a getter/],
      [proxy, /proxy\.scenario\.ts\b.*boom from a proxy/],
    ] as const)
      refused(await runMain(['list', '--no-builtin', '--scenarios', file]), says);
    return [];
  });

  hostile('a fifo where a file is expected (--expectations, `report`): named a fifo in one line, exit 2, nothing waits on it', 30_000, async () => {
    const fifo = join(fixtures, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    refused(
      await runMain(['run', '--client', 'reference', '--expectations', fifo, '--out', join(fixtures, 'never')]),
      /cannot read the expectations file .*pipe\.json: it is a fifo \(named pipe\), not a file/,
    );
    refused(await runMain(['report', fifo, '--out', join(fixtures, 'never')]), /pipe\.json is a fifo \(named pipe\), not a results\.json file/);
    expect(existsSync(join(fixtures, 'never'))).toBe(false);
    return [];
  });
});
