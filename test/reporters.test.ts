/** The run reporters (harness/cli/reporters.ts): what each writes where, colour only when asked, untrusted text made printable. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeReporter, wantsColour } from '../harness/cli/reporters.js';
import type { RunResults, ScenarioResult } from '../harness/core/results.js';

const result = (id: string, verdict: ScenarioResult['verdict']) => ({ id, verdict, durationMs: 12, checks: [{ rule: 'WIRE-X', verdict, reason: 'because\u001b[2J', evidence: [] }] }) as unknown as ScenarioResult;
const run = { harness: { version: '0.1.0' }, client: { name: 'c', version: '1' }, results: [], notRun: [], durationMs: 10, summary: { PASS: 1, NON_STRICT: 0, FAIL: 1, INFORMATIONAL: 0, UNSUPPORTED: 0, TIMEOUT: 0, ERROR: 0 }, unexpected: [], exitCode: 1 } as unknown as RunResults;
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
    r.result(2, 2, { ...result('c/lagged', 'PASS'), attempts: [{ verdict: 'TIMEOUT', reason: 'x', lag: first.lag!, durationMs: 3000 }] } as ScenarioResult, false);
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

  it('colour is for terminals only, and never with NO_COLOR set', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    expect(wantsColour(tty, {})).toBe(true);
    expect(wantsColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour({ isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
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
