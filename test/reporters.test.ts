/** The run reporters (harness/cli/reporters.ts): what each writes where, colour only when asked, untrusted text made printable. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { join, relative } from 'node:path';
import { makeReporter, makeReporters, parseReporters, reportersProblem, wantsColour } from '../harness/cli/reporters.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';
import type { RunResults, ScenarioResult } from '../harness/core/results.js';

const result = (id: string, verdict: ScenarioResult['verdict']) =>
  ({ id, verdict, durationMs: 12, checks: [{ rule: 'WIRE-X', verdict, reason: 'because\u001b[2J', evidence: [] }] }) as unknown as ScenarioResult;
const run = {
  harness: { version: '0.1.0' },
  client: { name: 'c', version: '1' },
  results: [],
  notRun: [],
  durationMs: 10,
  summary: { PASS: 1, NON_STRICT: 0, FAIL: 1, INFORMATIONAL: 0, UNSUPPORTED: 0, TIMEOUT: 0, ERROR: 0 },
  unexpected: [],
  exitCode: 1,
} as unknown as RunResults;
const written = { dir: 'o', html: 'o/index.html', results: 'o/results.json', junit: 'o/junit.xml', markdown: 'o/summary.md' };

function capture(name: Parameters<typeof makeReporter>[0], colour: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  const r = makeReporter(name, { out: (t) => out.push(t), err: (t) => err.push(t), colour });
  r.result(1, 2, result('a/ok', 'PASS'), false);
  r.result(2, 2, result('b/\u001b]0;evil\u0007', 'FAIL'), true);
  r.end(run, written);
  r.dispose();
  return { out: out.join(''), err: err.join('') };
}

describe('run reporters', () => {
  it('progress: a line per scenario on stderr, the summary on stdout; colour only when on, escapes never from the text', () => {
    const plain = capture('progress', false);
    expect(plain.err).toMatch(/^\[1\/2\] PASS +a\/ok \(12 ms\)\n\[2\/2\] FAIL/);
    expect(plain.out).toContain('exit code 1');
    expect(plain.out + plain.err).not.toMatch(/\u001b/);
    const coloured = capture('progress', true);
    expect(coloured.err).toContain('\u001b[31mFAIL');
    // The only escapes are the reporter's own colours: none from the scenario id or the reason.
    expect(coloured.err.replace(/\u001b\[\d+m/g, '')).not.toMatch(/[\u001b\u0007]/);
  });

  it('progress: a failure met while the harness lagged is shown when it first ends, and its confirmation after it, without a second count', () => {
    const err: string[] = [];
    const r = makeReporter('progress', { out: () => {}, err: (t) => err.push(t), colour: false });
    const first = { ...result('c/lagged', 'TIMEOUT'), lag: { loopDelayMaxMs: 400, wallMs: 3000, lagged: true, why: 'the loop ran late' } } as ScenarioResult;
    r.deferred?.(1, 2, first);
    r.result(2, 2, result('a/ok', 'PASS'), false);
    r.result(
      2,
      2,
      { ...result('c/lagged', 'PASS'), attempts: [{ verdict: 'TIMEOUT', reason: 'x', lag: first.lag!, durationMs: 3000 }] } as ScenarioResult,
      false,
    );
    r.dispose();
    expect(err.join('')).toBe(
      '[1/2] TIMEOUT       c/lagged (12 ms) · the harness lagged (the loop ran late): runs again on a drained lane once the others are done\n' +
        '[2/2] PASS          a/ok (12 ms)\n' +
        '  ↻ PASS          c/lagged (12 ms) · ran again on a drained lane after the harness lagged: TIMEOUT → PASS\n',
    );
  });

  it('dot: a character per scenario, F for an unexpected one; tap: TAP 13 with the plan last; json: the results document alone', () => {
    expect(capture('dot', false).out).toMatch(/^\.F\n/);
    const tap = capture('tap', false).out.split('\n');
    expect(tap.slice(0, 3)).toEqual(['TAP version 13', 'ok 1 - a/ok # PASS', expect.stringMatching(/^not ok 2 - b\/.* # FAIL: WIRE-X: because/)]);
    expect(tap).toContain('1..2');
    expect(tap.join('\n')).not.toMatch(/[\u001b\u0007]/);
    const json = capture('json', false);
    expect(JSON.parse(json.out)).toEqual(run);
    expect(json.err).toBe('');
  });

  it('colour is for terminals only, never with NO_COLOR set; FORCE_COLOR forces it on (or off with 0/false) and wins over NO_COLOR, as in Node', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    expect(wantsColour(tty, {})).toBe(true);
    expect(wantsColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour(pipe, {})).toBe(false);
    expect(wantsColour(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColour(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(wantsColour(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(wantsColour(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(wantsColour(tty, { FORCE_COLOR: 'false' })).toBe(false);
  });

  it('tap lists each scenario not run as ok … # SKIP with its reason, before the plan', () => {
    const out: string[] = [];
    const tap = makeReporter('tap', { out: (t) => out.push(t), err: () => {}, colour: false });
    tap.result(1, 1, result('a/ok', 'PASS'), false);
    tap.end(
      {
        ...run,
        notRun: [
          { id: 'b/left', reason: 'filtered out by --grep #x' },
          { id: 'c/other', reason: 'in another shard than 1/2' },
        ],
      },
      written,
    );
    const lines = out.join('').split('\n');
    expect(lines.slice(1, 5)).toEqual([
      'ok 1 - a/ok # PASS',
      'ok 2 - b/left # SKIP filtered out by --grep \\#x',
      'ok 3 - c/other # SKIP in another shard than 1/2',
      '1..3',
    ]);
  });

  it('github: an ::error per unexpected verdict, escaped as the runner reads it, on the scenario file where it lies in the repository', () => {
    const out: string[] = [];
    const gh = makeReporter('github', { out: (t) => out.push(t), err: () => {}, colour: false });
    const rel = relative(PACKAGE_ROOT, join(process.cwd(), 'conformance/acme.scenario.json'));
    const fail = { ...result('acme/x,y', 'FAIL'), file: rel };
    const builtin = { ...result('neg/z', 'TIMEOUT'), file: 'scenarios/neg.scenario.ts' };
    gh.end(
      {
        ...run,
        results: [fail, builtin],
        unexpected: [
          { id: 'acme/x,y', verdict: 'FAIL', why: '100% wrong\nreally' },
          { id: 'neg/z', verdict: 'TIMEOUT', why: 'w' },
          { id: 'gone/stale', verdict: 'FAIL', why: 'stale expectation: it matches no scenario in the catalogue' },
        ],
      },
      written,
    );
    const lines = out.join('').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^::error file=conformance\/acme\.scenario\.json,title=A2A conformance%3A FAIL acme\/x%2Cy::WIRE-X: because.*%0Aunexpected: 100%25 wrong%0Areally$/,
    );
    expect(out.join('')).not.toMatch(/[\u001b\u0007]/);
    // A built-in scenario lives in the harness's package, not the vendor's repository: no file.
    expect(lines[1]).toMatch(/^::error title=A2A conformance%3A TIMEOUT neg\/z::WIRE-X/);
    expect(lines[2]).toBe('::error title=A2A conformance%3A FAIL gone/stale::stale expectation: it matches no scenario in the catalogue');
  });

  it('several reporters at once: a document on stdout sends progress to stderr; name=file buffers one for a file; clashes are refused', () => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const rs = makeReporters(parseReporters('progress,json', parseReporters('tap=out.tap')), {
      stdout: (t) => stdout.push(t),
      stderr: (t) => stderr.push(t),
      colour: { stdout: false, stderr: false },
    });
    rs.result(1, 1, result('a/ok', 'PASS'), false);
    rs.end(run, written);
    rs.dispose();
    expect(JSON.parse(stdout.join(''))).toEqual(run);
    expect(stderr.join('')).toMatch(/^\[1\/1\] PASS +a\/ok[\s\S]*exit code 1\n$/);
    expect(rs.files()).toEqual([{ file: 'out.tap', text: expect.stringMatching(/^TAP version 13\nok 1 - a\/ok # PASS\n1\.\.1\n/) }]);
    expect(reportersProblem(parseReporters('json,junit'))).toMatch(/^--reporter json and junit would both write to stdout/);
    expect(reportersProblem(parseReporters('github,tap'))).toMatch(/^--reporter github writes workflow commands to stdout/);
    expect(reportersProblem(parseReporters('github,tap=t.tap,progress,junit=j.xml'))).toBeUndefined();
    expect(reportersProblem(parseReporters('tap=x,junit=x'))).toBe('two reporters write to x: give each its own file');
    expect(() => parseReporters('html')).toThrow('--reporter must be one of progress, dot, tap, json, junit, github (or name=file), got "html"');
  });

  it('a failed run ends a TAP stream with Bail out!; a scenario still running is said after 10 s and after each further 10 s, once each', () => {
    const out: string[] = [];
    const tap = makeReporter('tap', { out: (t) => out.push(t), err: () => {}, colour: false });
    tap.failed('the client answered hello badly: hello.name must be a non-empty string\nmore');
    expect(out.join('')).toBe('TAP version 13\nBail out! the client answered hello badly: hello.name must be a non-empty string\n');
    vi.useFakeTimers();
    const err: string[] = [];
    const progress = makeReporter('progress', { out: () => {}, err: (t) => err.push(t), colour: false });
    progress.start('slow/one');
    vi.advanceTimersByTime(9_500);
    expect(err).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(err).toEqual(['  … slow/one still running (10 s)\n']);
    vi.advanceTimersByTime(9_000);
    expect(err).toHaveLength(1);
    vi.advanceTimersByTime(1_000);
    expect(err.at(-1)).toBe('  … slow/one still running (20 s)\n');
    progress.result(1, 1, result('slow/one', 'PASS'), false);
    vi.advanceTimersByTime(30_000);
    expect(err.filter((l) => l.includes('still running'))).toHaveLength(2);
    progress.dispose();
  });
});

afterEach(() => {
  vi.useRealTimers();
});
