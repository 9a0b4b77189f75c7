/**
 * The hostile matrix (test/helpers/hostile.ts): hostile clients. Hostile clients over the NDJSON protocol, one scenario each, in this process: whatever a client writes, does or withholds costs at most its scenario.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { SubprocessClient } from '../../harness/adapters/subprocess.js';
import { LISTENER_KINDS } from '../../harness/core/scenario/runtime.js';
import type { RunResults, ScenarioResult } from '../../harness/core/results.js';
import { makePki, writePki, type Pki } from '../../harness/pki/index.js';
import { closeEnv, openEnv } from '../../harness/runner/infrastructure/env.js';
import { executeScenario } from '../../harness/runner/engine/execute.js';
import { closeRunFolder, openRunFolder, reapDeadRuns } from '../../harness/runner/infrastructure/workspace.js';
import { ROOT } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { scenario } from '../helpers/scenarios.js';
import {
  cmd,
  CONTROL,
  REJECT_IS_RIGHT,
  MB,
  listening,
  leftInProcess,
  retained,
  peakOf,
  stillAlive,
  goneWithin,
  stillRunning,
  hostileMatrix,
} from '../helpers/hostile.js';

const m = hostileMatrix('hostile clients');
const { hostile, figures } = m;

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
    const pids = join(m.fixtures, 'orphans-inproc.pids');
    const { results, left } = await withClient(['orphans', pids], [REJECT_IS_RIGHT], { deadlineMs: 2000 });
    expect((results as ScenarioResult[])[0]!.verdict).toBe('FAIL');
    return [...left, ...stillRunning(pids)];
  });

  hostile(
    'a client whose grandchild calls setsid and clears its environment (no group, no run mark), then hangs: the grandchild is killed with the run',
    60_000,
    async () => {
      const pids = join(m.fixtures, 'escape-inproc.pids');
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
    const out = join(m.fixtures, 'deep-field-report');
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
