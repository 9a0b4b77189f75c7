/**
 * The NDJSON subprocess transport against hostile clients (DESIGN.md §4.1): each case costs that
 * scenario (FAIL or TIMEOUT with a reason that says which), the process is restarted for the next,
 * and the run always finishes. Plus `doctor` on a broken hello.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { SharedProcess } from '../harness/adapters/shared-process.js';
import { SubprocessClient } from '../harness/adapters/subprocess.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { ROOT } from './helpers/cli.js';
import { runMain } from './helpers/main.js';
import { startHarness } from './helpers/harness.js';
import { scenario, BUILTIN_FILES } from './helpers/scenarios.js';
import { withThresholds } from '../harness/net/lag.js';
import { testTemp } from './helpers/tmp.js';
import { schemaValidator } from '../harness/runner/load/json-schema.js';

const HOSTILE = join(ROOT, 'test/fixtures/clients/hostile.mjs');
const cmd = (...args: string[]) => `"${process.execPath}" "${HOSTILE}" ${args.join(' ')}`;
const REJECT_IS_RIGHT = 'neg-live-input/live-audio-to-batch-peer';

/** Whether a process runs: a killed one may linger as a zombie until it is reaped, which is not running. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

async function runWith(mode: string[], ids: string[], deadlineMs?: number) {
  const h = await startHarness(new SubprocessClient({ command: cmd(...mode) }));
  const out = [];
  try {
    for (const id of ids) out.push(await h.run(deadlineMs ? { ...scenario(id), deadlineMs } : scenario(id)));
  } finally {
    await h.close();
  }
  return out;
}

describe('subprocess clients (NDJSON)', () => {
  it('a well-behaved process: its result is graded, its stderr kept per scenario', async () => {
    const [r] = await runWith(['good'], [REJECT_IS_RIGHT]);
    expect(r!.verdict).toBe('PASS');
    expect(r!.claims?.notes).toBe('good');
    expect(r!.stderr).toMatch(/^running r-\w+ in mode good/);
  });

  it('non-JSON lines and unknown message types cost nothing; they are kept as warnings in the evidence', async () => {
    const [r] = await runWith(['nonjson'], [REJECT_IS_RIGHT]);
    expect(r!.verdict).toBe('PASS');
    const warnings = r!.checks.find((c) => c.rule === 'CLIENT-PROTOCOL');
    expect(warnings?.verdict).toBe('INFORMATIONAL');
    expect(warnings?.evidence.map((e) => e.fact).join('\n')).toMatch(/non-JSON line on stdout: this is not JSON[\s\S]*unknown type "progress"/);
  });

  it.each([
    [['crash'], 'exited with code 3 before sending a result'],
    [['wrongid'], 'answered the wrong id ("r-somebody-else"'],
    [['invalid'], 'degradations must be a list of strings'],
    [['bigline'], 'over the 1 MiB limit'],
  ])('%s: FAIL with a reason that says which, and the next scenario runs on a fresh process', async (mode, reason) => {
    const [bad, next] = await runWith(mode, [REJECT_IS_RIGHT, REJECT_IS_RIGHT]);
    expect(bad!.verdict).toBe('FAIL');
    expect(bad!.outcome.kind).toBe('crashed');
    expect(bad!.outcome.reason).toContain(reason);
    expect(next!.outcome.kind).toBe('crashed'); // the same mode again: restarted and judged again, not skipped
  });

  it('a process that crashes once is restarted, and the next scenario passes', async () => {
    const marker = join(testTemp('a2a-crash-'), 'crashed');
    const [first, second] = await runWith(['crash-once', `"${marker}"`], [REJECT_IS_RIGHT, REJECT_IS_RIGHT]);
    expect(first!.outcome.reason).toContain('exited with code 4');
    expect(second!.verdict).toBe('PASS');
  });

  it('a process that hangs: TIMEOUT at the deadline, killed (the client itself, not just its shell), restarted for the next', async () => {
    const pidFile = join(testTemp('a2a-hang-'), 'pid');
    const [hung, next] = await runWith(['hang', `"${pidFile}"`], [REJECT_IS_RIGHT, REJECT_IS_RIGHT], 500);
    expect(hung!.verdict).toBe('TIMEOUT');
    expect(hung!.outcome.kind).toBe('timeout');
    expect(next!.outcome.kind).toBe('timeout');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 300));
    expect(running(pid)).toBe(false);
  });

  it('stderr keeps multi-byte characters whole and each run keeps only its own', async () => {
    const [a, b] = await runWith(['unicode'], [REJECT_IS_RIGHT, REJECT_IS_RIGHT]);
    expect(a!.stderr).toContain('ünïcødé ✓ 日本語');
    expect(a!.stderr).not.toContain('\uFFFD');
    expect(b!.stderr!.match(/running/g)).toHaveLength(1);
  });

  it('a process that exited after hello is restarted for its run, then judged', async () => {
    const marker = join(testTemp('a2a-exit-'), 'gone');
    const client = new SubprocessClient({ command: cmd('exit-after-hello', marker) });
    const h = await startHarness(client);
    let r;
    try {
      // The first process leaves after hello; once it is gone, the run starts a fresh one.
      for (let i = 0; i < 200 && client.running; i++) await new Promise((done) => setTimeout(done, 25));
      expect(client.running).toBe(false);
      r = await h.run(scenario(REJECT_IS_RIGHT));
    } finally {
      await h.close();
    }
    expect(r.claims?.notes).toBe('exit-after-hello');
    expect(r!.verdict).toBe('PASS');
  });

  it('the extensions and dialects a process declares in its hello reach its profile (and nothing else does)', async () => {
    const h = await startHarness(new SubprocessClient({ command: cmd('declares') }));
    try {
      expect(h.env.hello).toMatchObject({ extensions: ['urn:contoso:a2a:ext:audio-session:v1'], dialects: ['a2a-v1'] });
      const r = await h.run(scenario('neg-escalate/known-extension'));
      expect(r.profile.knownExtensions).toEqual(['urn:contoso:a2a:ext:audio-session:v1']);
    } finally {
      await h.close();
    }
    const plain = await startHarness(new SubprocessClient({ command: cmd('good') }));
    try {
      expect((await plain.run(scenario('neg-escalate/known-extension'))).profile.knownExtensions).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('a client that ignores its abort, 10 times in a row: the scenario after it is never blamed (the adapter awaits the exit)', {
    timeout: 120_000,
  }, async () => {
    const counter = join(testTemp('a2a-alt-'), 'n');
    // The kill and the runner's grace equal, as the 2 s and 2 s that raced in ruleset 1 (shortened to keep the test quick):
    // the runner may stop waiting before the process is gone, and the next run must still wait for it.
    const h = await startHarness(new SubprocessClient({ command: cmd('alternate', `"${counter}"`), killAfterAbortMs: 300 }), { abortGraceMs: 300 });
    const after: string[] = [];
    try {
      for (let i = 0; i < 10; i++) {
        const hung = await h.run({ ...scenario(REJECT_IS_RIGHT), deadlineMs: 300 });
        expect(hung.verdict).toBe('TIMEOUT');
        const next = await h.run(scenario(REJECT_IS_RIGHT));
        after.push(next.verdict);
      }
    } finally {
      await h.close();
    }
    expect(after).toEqual(Array(10).fill('PASS'));
    expect(Number(readFileSync(counter, 'utf8'))).toBe(20);
  });

  it('the deadline starts once the client holds the run: a process that takes 2.5 s to start is not timed out for it', async () => {
    const marker = join(testTemp('a2a-slow-'), 'crashed');
    // The first run crashes the process; the restart for the second takes 2.5 s, longer than its 2 s deadline.
    const [crashed, next] = await runWith(['slow-start', `"${marker}"`], [REJECT_IS_RIGHT, REJECT_IS_RIGHT], 2000);
    expect(crashed!.outcome.kind).toBe('crashed');
    expect(next!.outcome.kind).toBe('reported');
    expect(next!.verdict).toBe('PASS');
  });
});

describe('several runs per process (hello.concurrency)', () => {
  const REFERENCE_NDJSON = (n: number) => `"${process.execPath}" "${join(ROOT, 'test/fixtures/clients/reference-ndjson.mjs')}" ${n}`;

  it('a process that declares concurrency 4 gets up to four runs at once, its lanes share processes, and the verdicts are those of the in-process client', async () => {
    const rules = ['NEG-LIVE-INPUT', 'TRUST-ALG', 'HS-SKILL-OVERRIDE'];
    // Lanes that never back off: the test is about four runs at once on one process, whatever the machine's load.
    const shared = await withThresholds({ loopMs: Infinity, blockMs: Infinity, owedMinMs: Infinity }, () =>
      runConformance({ clientCmd: REFERENCE_NDJSON(4), files: BUILTIN_FILES, rules, lanes: 8, dialect: 'a2a-v1' }),
    );
    const inProcess = await runConformance({ client: 'reference', files: BUILTIN_FILES, rules, lanes: 8, dialect: 'a2a-v1' });
    expect(shared.client.concurrency).toBe(4);
    const verdicts = (r: typeof shared) => Object.fromEntries(r.results.map((x) => [x.id, x.verdict]));
    expect(shared.results.length).toBeGreaterThan(10);
    expect(verdicts(shared)).toEqual(verdicts(inProcess));
    // The fixture's stderr names its pid and how many runs it held: never more than four, on at most two processes.
    const lines = shared.results.flatMap((x) => (x.stderr ?? '').split('\n').filter((l) => l.includes('starts with')));
    const held = lines.map((l) => Number(/starts with (\d+) in flight/.exec(l)![1]));
    const pids = new Set(lines.map((l) => /pid (\d+)/.exec(l)![1]));
    expect(Math.max(...held)).toBeLessThanOrEqual(4);
    expect(Math.max(...held)).toBeGreaterThan(1);
    expect(pids.size).toBeLessThanOrEqual(2);
  });

  it('a process that exits while it holds three runs: each of them FAILs, saying how many it held', async () => {
    // Three lanes that never back off: the fixture exits once it holds three runs, whatever the machine's load.
    const r = await withThresholds({ loopMs: Infinity, blockMs: Infinity, owedMinMs: Infinity }, () =>
      runConformance({
        clientCmd: cmd('shared-crash'),
        files: BUILTIN_FILES,
        pick: { ids: [REJECT_IS_RIGHT, 'trust-alg/none', 'trust-kid/unknown'] },
        lanes: 3,
      }),
    );
    expect(r.client.concurrency).toBe(3);
    expect(r.results.map((x) => [x.verdict, x.outcome.kind === 'crashed' ? x.outcome.reason : x.outcome.kind])).toEqual(
      Array(3).fill(['FAIL', 'the client process exited with code 5 with 3 run(s) in flight']),
    );
  });

  it('a run that ignores its abort takes its process down with the runs it shares; the lane runs on on a fresh one', async () => {
    const dir = testTemp('a2a-shared-');
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const marker = join(dir, 'hung');
    const shared = new SharedProcess({ command: cmd('shared-hang-first', `"${marker}"`), killAfterAbortMs: 300 });
    const [a, b] = [await startHarness(shared.lane(), { abortGraceMs: 300 }), await startHarness(shared.lane(), { abortGraceMs: 300 })];
    try {
      const hung = a.run({ ...scenario(REJECT_IS_RIGHT), deadlineMs: 300 });
      // The second run would answer 1.5 s after reading the card; the kill comes first, 300 ms after the first run's abort.
      await new Promise((r) => setTimeout(r, 100));
      const [h, taken] = await Promise.all([hung, b.run({ ...scenario(REJECT_IS_RIGHT), deadlineMs: 8000 })]);
      expect(h.verdict).toBe('TIMEOUT');
      expect(taken.verdict).toBe('FAIL');
      expect(taken.outcome.kind === 'crashed' && taken.outcome.reason).toMatch(
        /^the client process was killed: run r-\S+ did not answer its abort within 0.3 s/,
      );
      // A fresh process (the fixture hangs only once): both lanes run on it, and pass.
      const again = await Promise.all([a.run({ ...scenario(REJECT_IS_RIGHT), deadlineMs: 8000 }), b.run({ ...scenario(REJECT_IS_RIGHT), deadlineMs: 8000 })]);
      expect(again.map((x) => x.verdict)).toEqual(['PASS', 'PASS']);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

// `main` in this process: neither needs vitest or a cold CLI start.
describe('a2a-conformance doctor', () => {
  it('reports a broken hello with its line, exit 1, and leaves no run folder (keys inside) behind', async () => {
    // This process's run folders only (owner.json names the pid): another test file's, in a worker beside this one, is not ours.
    const mine = (f: string) => {
      try {
        return (JSON.parse(readFileSync(join(tmpdir(), f, 'owner.json'), 'utf8')) as { pid: number }).pid === process.pid;
      } catch {
        return false;
      }
    };
    const runFolders = () => new Set(readdirSync(tmpdir()).filter((f) => f.startsWith('a2a-conformance-run-') && mine(f)));
    const before = runFolders();
    const o = await runMain(['doctor', '--client-cmd', `echo 'not json'; echo '{"type":"hello","name":"","version":"1"}'; sleep 3`]);
    const garbage = await runMain(['doctor', '--client-cmd', `echo garbage; echo '{"type":"hello"'; sleep 3`]);
    expect(garbage.code).toBe(1);
    expect([...runFolders()].filter((f) => !before.has(f))).toEqual([]);
    expect(o.code).toBe(1);
    expect(o.stdout).toContain('✗ the client bad hello: hello.name must be a non-empty string');
    expect(o.stdout).toContain('line: {"type":"hello","name":"","version":"1"}');
    expect(o.stdout).toContain('line: not json');
    // --json: the same outcome as data, against its published schema.
    const j = await runMain(['doctor', '--json', '--client-cmd', `echo 'not json'; echo '{"type":"hello","name":"","version":"1"}'; sleep 3`]);
    expect(j.code).toBe(1);
    const doc = JSON.parse(j.stdout) as { speaksProtocol: boolean; checks: Array<{ ok: boolean; what: string; details: string[] }>; verdict: string };
    const valid = schemaValidator('doctor.schema.json', undefined, true);
    expect(valid(doc), JSON.stringify(valid.errors)).toBe(true);
    expect(doc.speaksProtocol).toBe(false);
    expect(doc.checks).toContainEqual({
      ok: false,
      what: 'the client bad hello: hello.name must be a non-empty string',
      details: ['line: {"type":"hello","name":"","version":"1"}'],
    });
    expect(doc.verdict).toMatch(/the handshake failed/);
  });

  it('a client that exits without a word on stdout: said so, with its stderr (no flush hint: it exited); one that leaves a line without its newline is told so', async () => {
    const silent = await runMain(['doctor', '--client-cmd', `echo 'Traceback: no module named a2a' >&2; exit 3`]);
    expect(silent.code).toBe(1);
    expect(silent.stdout).toContain('it wrote nothing on stdout before it exited');
    expect(silent.stdout).not.toContain('did you flush');
    expect(silent.stdout).toContain('stderr: Traceback: no module named a2a');
    const unterminated = await runMain(['doctor', '--client-cmd', `printf '{"type":"hello"'; exit 0`]);
    expect(unterminated.code).toBe(1);
    expect(unterminated.stdout).toContain('15 byte(s) on stdout wait for a newline');
    expect(unterminated.stdout).not.toContain('did you flush');
  });

  it('passes a client that speaks the protocol, exit 0; warns that its hello declares no dialect', async () => {
    const o = await runMain(['doctor', '--client-cmd', cmd('good')]);
    expect(o.stdout).toContain('✓ hello: hostile-good 1');
    expect(o.stdout).toContain('! hello declares no dialects: A2A v1.0 is assumed');
    expect(o.stdout).toContain('the client speaks a2a-conformance/1');
    expect(o.code).toBe(0);
  });

  it('runs its plain text task in every dialect the client declares: a client that speaks v0.3 is exercised in v0.3', async () => {
    const o = await runMain(['doctor', '--client-cmd', `"${process.execPath}" "${join(ROOT, 'test/fixtures/clients/reference-ndjson.mjs')}" 1`]);
    expect(o.stdout).toMatch(/✓ a plain text task in a2a-v1 \(the harness's control exchange\): reported; verdict PASS/);
    expect(o.stdout).toMatch(/✓ a plain text task in a2a-v0\.3 \(the harness's control exchange\): reported; verdict PASS/);
    expect(o.stdout).not.toContain('declares no dialects');
    expect(o.code).toBe(0);
  });

  it('a run whose client fails the handshake exits 1 (nothing graded) and points at doctor', async () => {
    const o = await runMain(['run', '--client-cmd', 'exit 5', '--out', join(testTemp('a2a-hs-'), 'o')]);
    expect(o.code).toBe(1);
    expect(o.stderr).toContain('exited with code 5 before answering hello');
    expect(o.stderr).toContain('doctor --client-cmd');
  });
});
