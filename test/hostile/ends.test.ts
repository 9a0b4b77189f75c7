/**
 * The hostile matrix (test/helpers/hostile.ts): globs, replay paths and the end of a run. Costly globs, replay paths, the end of a run, and the places a command leans on.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { RunResults } from '../../harness/core/results.js';
import { ROOT } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { assemble } from '../helpers/results.js';
import { BIN, TLS_V1, MB, listening, leftInProcess, ownRunFolders, leftByCli, peakOf, hostileMatrix } from '../helpers/hostile.js';

const m = hostileMatrix('globs, replay paths and the end of a run');
const { hostile, figures, caseTmp, startCli } = m;
const write = (name: string, text: string) => m.write(name, text);
const vendor: typeof m.vendor = (id, change) => m.vendor(id, change);

describe('costly globs, replay paths, the end of a run, and the places a command leans on (issue 24: items 4, 7, 9)', () => {
  /** The glob: 25 characters that a backtracking matcher takes seconds over for each id it does not match. */
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
      const out = join(m.fixtures, 'never-glob');
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
      const out = join(m.fixtures, 'out-fine-globs');
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
            join(m.fixtures, 'never'),
          ]),
          await runMain([
            'run',
            '--client',
            'reference',
            '--expectations',
            write('20k.json', expectationsOf(entries(20_000))),
            '--out',
            join(m.fixtures, 'never'),
          ]),
        ],
      );
      refused(huge, /cannot read the expectations file .*200k\.json: it is \d+\.\d MiB, more than the 8\.0 MiB such a file may be/);
      refused(many, /20k\.json: 20000 entries, at most 10000/);
      expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
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
      const out = join(m.fixtures, 'out-report-glob');
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
      const huge = await runMain(['replay', '--client', 'reference', '--seed', '1', '--path', '99999999999999999999', '--out', join(m.fixtures, 'never')]);
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
        join(m.fixtures, 'never'),
      ]);
      refused(steps, /--path 0:0:0.*…: at most 1000 steps/);
      expect(Date.now() - started, 'both refused at once (ms)').toBeLessThan(5000);
      expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
      const out = join(m.fixtures, 'out-replay-past');
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
        const out = join(m.fixtures, 'out-sig-write');
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
        const out = join(m.fixtures, 'out-sig-twice');
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
        for (const tmp of [join(ROOT, 'package.json'), join(m.fixtures, 'no-such-tmp')]) {
          process.env.TMPDIR = tmp;
          outcomes.push(await runMain(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--out', join(m.fixtures, 'never')]));
        }
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      for (const o of outcomes) refused(o, /the temp folder .* cannot be used \((ENOTDIR|ENOENT)\): set TMPDIR/);
      expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
      expect(existsSync(join(m.fixtures, 'no-such-tmp'))).toBe(false);
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
      o = await runMain(['run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--out', join(m.fixtures, 'never')]);
    } finally {
      process.chdir(here);
    }
    refused(o, /the current folder no longer exists \(ENOENT\)/);
    refused(
      await runMain(['run', '--client', 'reference', '--expectations', join(m.fixtures, 'no-such.json'), '--out', join(m.fixtures, 'never')]),
      /no-such\.json: no such file \(ENOENT\)/,
    );
    expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
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
    const fifo = join(m.fixtures, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    refused(
      await runMain(['run', '--client', 'reference', '--expectations', fifo, '--out', join(m.fixtures, 'never')]),
      /cannot read the expectations file .*pipe\.json: it is a fifo \(named pipe\), not a file/,
    );
    refused(await runMain(['report', fifo, '--out', join(m.fixtures, 'never')]), /pipe\.json is a fifo \(named pipe\), not a results\.json file/);
    expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
    return [];
  });
});
