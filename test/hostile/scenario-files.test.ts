/**
 * The hostile matrix (test/helpers/hostile.ts): scenario files. Scenario modules are code and scenario searches have an end: exit 2 and one line naming the file or pattern.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { MAX_SCENARIO_FILE_BYTES, WALK_LIMITS } from '../../harness/runner/load/catalogue.js';
import { VENDOR_LOAD } from '../../harness/runner/load/vendor-import.js';
import { ROOT } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { MB, listening, leftInProcess, leftByCli, hostileMatrix } from '../helpers/hostile.js';

const m = hostileMatrix('scenario files');
const { hostile, figures, startCli } = m;
const write = (name: string, text: string) => m.write(name, text);
const vendor: typeof m.vendor = (id, change) => m.vendor(id, change);

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
    expect(existsSync(join(m.fixtures, 'never')), 'no report folder').toBe(false);
    expect(timers(), 'timers left in this process').toBeLessThanOrEqual(timersBefore);
    return leftInProcess([], before);
  }

  // In this process: with the guard gone, the exit would end the test worker itself.
  hostile('run: a module that calls process.exit(0) at import', 60_000, async () =>
    refused(
      ['run', '--client', 'reference', '--no-builtin', '--scenarios', module('exit-now.scenario.ts', 'process.exit(0);'), '--out', join(m.fixtures, 'never')],
      /exit-now\.scenario\.ts: failed to load: it called process\.exit\(0\)/,
    ),
  );

  hostile('check-scenarios: a module whose timer calls process.exit(0) right after its import', 60_000, async () =>
    refused(
      ['check-scenarios', module('exit-later.scenario.mts', 'setTimeout(() => process.exit(0), 0);'), '--out', join(m.fixtures, 'never')],
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
        ['run', '--client', 'reference', '--no-builtin', '--scenarios', module('spin.scenario.js', 'for (;;) {}'), '--out', join(m.fixtures, 'never')],
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
    const project = join(m.fixtures, 'linked');
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
