/**
 * The hostile matrix (test/helpers/hostile.ts): report input and --out. What `report` reads and whose folder `--out` is: hostile results files, bundles and output folders.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect } from 'vitest';
import type { RunResults, ScenarioResult } from '../../harness/core/results.js';
import { runMain, type MainOutcome } from '../helpers/main.js';
import { runInProcess } from '../helpers/results.js';
import { claimOutput } from '../../harness/cli/output.js';
import { XMLValidator } from 'fast-xml-parser';
import { CONTROL, MB, listening, leftInProcess, retained, peakOf, hostileMatrix } from '../helpers/hostile.js';

const m = hostileMatrix('report input and --out');
const { hostile, figures } = m;
const write = (name: string, text: string) => m.write(name, text);

describe('report input and --out (issue 24: items 5, 6, 9; what report reads, whose folder --out is)', () => {
  /** One real scenario's results (the reference on the control scenario), run once. */
  let real: RunResults;
  /** What `report` exits with on them (recomputed from the verdicts). */
  let realCode: number;
  beforeAll(async () => {
    real = await runInProcess('reference', [CONTROL]);
    realCode = (await runMain(['report', write('real.results.json', JSON.stringify(real)), '--out', join(m.fixtures, 'out-real')])).code;
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
    const out = join(m.fixtures, name);
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
      const big = join(m.fixtures, 'big.results.json');
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
      const out = join(m.fixtures, 'out-unwritable');
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
      const again = await runMain(['report', written.results, '--out', join(m.fixtures, 'out-unwritable-again')]);
      expect(again.code, again.stderr).not.toBe(2);
      return leftInProcess([], before);
    },
  );

  hostile("--out holding a user's own index.html: exit 2 and one line before anything runs; the folder untouched", 60_000, async () => {
    const before = listening();
    const out = join(m.fixtures, 'out-user-html');
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
      const userFolder = join(m.fixtures, 'out-user-json');
      mkdirSync(userFolder);
      writeFileSync(join(userFolder, 'results.json'), '{"mine": true}\n');
      const earlier = join(m.fixtures, 'out-earlier');
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
      const out = join(m.fixtures, 'out-locked');
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
    const out = join(m.fixtures, 'out-bidi');
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
