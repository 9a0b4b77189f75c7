/**
 * The hostile matrix (test/helpers/hostile.ts): signals, crashes and pipes. The real CLI in child processes where a process must die: signals, crashes, closed pipes, orphans and process groups.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { RunResults } from '../../harness/core/results.js';
import { Agent, request } from 'undici';
import { cmd, CONTROL, TLS_V1, MB, leftByCli, stillRunning, settle, hostileMatrix } from '../helpers/hostile.js';

const m = hostileMatrix('signals, crashes and pipes');
const { hostile, figures, startCli } = m;
const write = (name: string, text: string) => m.write(name, text);
const vendor: typeof m.vendor = (id, change) => m.vendor(id, change);

describe.concurrent('signals, crashes and pipes (the real CLI in child processes)', () => {
  hostile(
    'SIGKILL mid-run leaves a findable folder; the next run says a previous run died and removes it; SIGINT mid-run (a client that ignores SIGTERM and the end of stdin, and clears its environment) leaves nothing',
    150_000,
    async () => {
      const pids = join(m.fixtures, 'immortal.pids');
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
      const killed = startCli([...args, '--out', join(m.fixtures, 'out-kill')]);
      await killed.waitFor(/\[\s*1\/\d+\]/);
      const timeline = [`first run ${killed.child.pid} SIGKILLed at ${new Date().toISOString()}`];
      killed.child.kill('SIGKILL');
      expect((await killed.exit).signal).toBe('SIGKILL');
      // What a SIGKILL leaves is real: the run folder, and its worker and clients (until they notice).
      expect(readdirSync(killed.tmp).filter((n) => n.startsWith('a2a-conformance-run-')).length).toBe(1);
      expect(readFileSync(join(m.fixtures, 'out-kill', 'INCOMPLETE'), 'utf8')).toContain('did not finish');
      expect(existsSync(join(m.fixtures, 'out-kill', 'results.json'))).toBe(false);

      // The next run, in the same temp folder, finds it and says so; then it is stopped with SIGINT.
      const next = startCli([...args, '--out', join(m.fixtures, 'out-int')], killed.tmp);
      await next.waitFor(/a previous run died \(pid \d+, started [^)]+\); removed what it left: .*a2a-conformance-run-/);
      timeline.push(`second run ${next.child.pid} reaped the first by ${new Date().toISOString()}`);
      await next.waitFor(/\[\s*1\/\d+\]/);
      timeline.push(`second run SIGINTed at ${new Date().toISOString()}`);
      next.child.kill('SIGINT');
      const { code } = await next.exit;
      expect(code, next.stderr()).toBe(130);
      expect(next.stderr()).toMatch(/SIGINT: stopped the run; the processes it started are killed and its temp folder removed/);
      expect(next.stderr()).not.toMatch(/\n\s+at /); // no stack trace
      expect(readFileSync(join(m.fixtures, 'out-int', 'INCOMPLETE'), 'utf8')).toContain('stopped by SIGINT');
      expect(readdirSync(join(m.fixtures, 'out-int')).sort()).toEqual(['.a2a-conformance-report.json', 'INCOMPLETE', 'index.html']);
      await settle(killed.tmp);
      const left = [...leftByCli(killed.tmp), ...stillRunning(pids)];
      return left.length ? [...left, `timeline: ${timeline.join('; ')}`] : left;
    },
  );

  hostile('doctor: SIGINT while it checks a client that ignores it: exit 130, the client and the certificates gone', 60_000, async () => {
    const pids = join(m.fixtures, 'doctor.pids');
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
    const out = join(m.fixtures, 'out-head');
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
    const pids = join(m.fixtures, 'orphans.pids');
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
      join(m.fixtures, 'out-term'),
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
      const pids = join(m.fixtures, 'setsid-clean.pids');
      const killed = startCli([
        'run',
        '--client-cmd',
        cmd('setsid-clean', pids),
        '--grep',
        `/^${CONTROL.replace('/', '\\/')}$/`,
        '--out',
        join(m.fixtures, 'out-setsid'),
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
        ['run', '--client', 'reference', '--grep', `/^${CONTROL.replace('/', '\\/')}$/`, '--out', join(m.fixtures, 'out-setsid-next')],
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
      const out = join(m.fixtures, 'out-deep');
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
