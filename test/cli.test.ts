/**
 * The CLI contract (DESIGN.md §4.3), end to end in child processes over real TLS:
 * the reference gets every declared `expect`; every naive mistake is caught by the rule it declares.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILTIN_CLIENTS } from '../clients/index.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { buildProgram } from '../harness/cli/main.js';
import { schemaValidator } from '../harness/runner/load/json-schema.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliRun, resultsValidator, ROOT } from './helpers/cli.js';
import { mainRun, runMain } from './helpers/main.js';

/** A temp folder of the running test, removed when it finishes. */
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a2a-conformance CLI', () => {
  // `main` in this process: these end before any run, so a cold CLI start would only cost time.
  it('prints help and lists the built-in clients, each naive mistake included', async () => {
    const help = await runMain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('run [options]');
    const list = await runMain(['list', '--clients']);
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(BUILTIN_CLIENTS.map((c) => c.name));
    expect(list.stdout).toContain('naive:streams-live-audio');
    const rules = await runMain(['list', '--rules']);
    expect(rules.code).toBe(0);
    expect(rules.stdout).toContain('SPEC-A2A-VERSION');
    expect(rules.stdout).toContain('source  A2A v1.0.1 §3.6.1 · MUST');
    expect(rules.stdout).toContain('source  docs/duties.md §1 Live input · field');
  });

  it('exits 2 on bad arguments, with a message that says what to do', async () => {
    const noClient = await runMain(['run']);
    expect(noClient.code).toBe(2);
    expect(noClient.stderr).toContain('--client <name>');
    const unknown = await runMain(['run', '--client', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('`a2a-conformance list --clients` lists the');
    const badRule = await runMain(['run', '--client', 'reference', '--rule', 'NEG-NOPE']);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toContain('unknown rule "NEG-NOPE"');
  });

  it('reference: scrambled ids change nothing; --rule runs those families and lists the rest as not run; the run writes index.html, results.json, junit.xml and summary.md (every verdict of the whole catalogue is checked against its expect by test/package.test.ts)', async () => {
    // Arrange + Act: two runs with different opaque-id salts, side by side; the second from the
    // TypeScript sources (as a clone runs them, not dist/) and from a folder outside the clone: tsx
    // must compile with the clone's tsconfig.json, not the working folder's (the HTML report failed
    // with "React is not defined" before).
    const rules = ['--rule', 'SPEC-TLS-VERIFY,TRUST-UNKNOWN-KID', '--dialect', 'a2a-v1'];
    const [a, b] = await Promise.all([
      cliRun(['--client', 'reference', '--seed', 'aaaa', ...rules]),
      cliRun(['--client', 'reference', '--seed', 'zzzz', '--reporter', 'json', ...rules], {
        cwd: tmpdir(),
        env: { ...process.env, A2A_CONFORMANCE_DIST: '0' },
      }),
    ]);
    // --reporter json: stdout is the results document itself, nothing else.
    expect(JSON.parse(b.stdout)).toEqual(b.results);
    // Assert
    expect(a.code, a.stdout).toBe(0);
    for (const r of a.results.results) expect(r.verdict, `${r.id}: ${JSON.stringify(r.checks.filter((c) => c.verdict !== 'PASS'))}`).toBe(r.expect);
    expect(a.stdout).toContain('results:');
    const verdicts = (x: typeof a, ids = x.results.results.map((r) => r.id)) =>
      Object.fromEntries(x.results.results.filter((r) => ids.includes(r.id)).map((r) => [r.id, r.verdict]));
    const ids = b.results.results.map((r) => r.id);
    expect(ids.length).toBeGreaterThan(5);
    expect(verdicts(b)).toEqual(verdicts(a, ids));
    const opaque = (x: typeof a) => Object.fromEntries(x.results.results.map((r) => [r.id, r.opaqueId]));
    for (const id of ids) expect(opaque(b)[id]).not.toBe(opaque(a)[id]);
    expect(b.code).toBe(0);
    // --rule runs those families and lists the rest as not run; the run writes its four files and names the report.
    expect(new Set(b.results.results.map((x) => x.rule))).toEqual(new Set(['SPEC-TLS-VERIFY', 'TRUST-UNKNOWN-KID']));
    expect(b.results.notRun.length).toBeGreaterThan(0);
    expect(b.results.notRun[0]!.reason).toContain('--rule');
    // junit.xml lists every scenario not run as a skipped testcase with why, as TAP does.
    const junit = readFileSync(join(b.out, 'junit.xml'), 'utf8');
    expect(junit.match(/classname="a2a-conformance\.not-run"/g)).toHaveLength(b.results.notRun.length);
    expect(junit).toContain(`<testcase name="${b.results.notRun[0]!.id}" classname="a2a-conformance.not-run" time="0.000" status="NOT_RUN">`);
    expect(junit).toMatch(/<skipped>filtered out by --rule /);
    // And the marker by which the harness knows the folder as its own (harness/cli/output.ts).
    expect(readdirSync(b.out).sort()).toEqual(['.a2a-conformance-report.json', 'index.html', 'junit.xml', 'results.json', 'summary.md']);
    expect(a.stdout).toContain(`report: ${join(a.out, 'index.html')}`);
    // summary.md travels (a job summary, an artifact): it names the report beside it, never this machine's path.
    const summary = readFileSync(join(b.out, 'summary.md'), 'utf8');
    expect(summary).toContain('Full report: `index.html`');
    expect(summary).not.toContain(b.out);
    expect(summary).not.toMatch(/(^|[\s`(])\/(tmp|home|root|work)\//m);
    // results.json follows its published JSON Schema.
    const validate = resultsValidator();
    expect(validate(a.results), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('picking and reporting: --grep, --scenario, --bail, --reporter', () => {
  it('--grep /regex/ picks by id; --bail stops after the first unexpected verdict (the rest not run, saying why); --reporter tap writes TAP 13', {
    timeout: 120_000,
  }, async () => {
    const r = await mainRun([
      '--client',
      'naive:skips-tls-verify',
      '--grep',
      '/^spec-tls-verify\\/(untrusted|wrong|expired)/',
      '--dialect',
      'a2a-v1',
      '--bail',
      '--reporter',
      'tap',
      '--lanes',
      '1',
    ]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('TAP version 13');
    const tests = lines.filter((l) => /^(not )?ok \d+ - /.test(l));
    // Under --bail the lanes take the catalogue's order (not the costliest first, which would start
    // with the last of these three, all of one cost): the first picked runs first.
    expect(tests[0]).toMatch(/^not ok 1 - spec-tls-verify\/untrusted-ca # FAIL: SPEC-TLS-VERIFY: /);
    expect(lines).toContain(`1..${tests.length}`);
    // Three picked, on one lane (--bail stops lanes from starting more; what is in flight finishes);
    // the first FAIL stopped the run before the others started.
    const bailed = r.results.notRun.filter((n) => n.reason.startsWith('not run: --bail stopped the run after the unexpected verdict of spec-tls-verify/'));
    expect(r.results.results.length + bailed.length).toBe(3);
    expect(bailed.length).toBeGreaterThan(0);
    expect(r.results.notRun.find((n) => n.id === 'spec-tls-verify/valid-certificate-control')?.reason).toBe(
      'filtered out by --grep /^spec-tls-verify\\/(untrusted|wrong|expired)/',
    );
  });

  it('argument errors of the picking options: exit 2, one line, then the usage line', async () => {
    for (const [args, says] of [
      [['--reporter', 'nope'], /--reporter must be one of progress, dot, tap, json/],
      [['--grep', '/(/'], /--grep \/\(\/: not a regular expression/],
      [['--scenario', 'no-such/scenario'], /--scenario: no scenario "no-such\/scenario" in the catalogue/],
      [['--scenarios', 'no-such-folder/*.scenario.ts'], /--scenarios "no-such-folder\/\*\.scenario\.ts" matches no scenario file/],
      [['--no-builtin'], /--no-builtin leaves no scenarios/],
      [['--grep', 'no-such-thing'], /--grep "no-such-thing" selects no scenario of the \d+ in the catalogue/],
      [
        ['--grep', 'live-audio', '--rule', 'SPEC-TLS-VERIFY'],
        /--grep "live-audio" --rule SPEC-TLS-VERIFY together select no scenario of the \d+ in the catalogue/,
      ],
      [
        ['--nemesis', '{"faults":[{"kind":"partition"}]}'],
        /--nemesis: fault 1: "kind" must be one of unavailable, slow, drop, reset, stream-ends, stall, card-down, push-fails/,
      ],
      [['--nemesis', '{"faults":'], /--nemesis: not JSON/],
      [['--nemesis', '[{"kind":"slow","ms":5},{"kind":"stall"}]'], /--nemesis: fault 2 \(stall\): a task that never ends is laid only by the nemesis family/],
      [['--nemesis', 'no-such-schedule.json'], /--nemesis no-such-schedule\.json: no such file \(ENOENT\)/],
    ] as Array<[string[], RegExp]>) {
      const o = await runMain(['run', '--client', 'reference', ...args]);
      expect(o.code, args.join(' ')).toBe(2);
      expect(o.stderr).toMatch(says);
      const lines = o.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^a2a-conformance: /);
      expect(lines[1]).toBe('usage: a2a-conformance run [options]  (a2a-conformance run --help: every option)');
    }
  });
});

describe("check-scenarios: a vendor's files against the reference client", () => {
  it("exits 1 naming the scenario whose expect differs from the reference's verdict; the others are ok", { timeout: 120_000 }, async () => {
    const o = await runMain(['check-scenarios', join(ROOT, 'test/fixtures/vendor-asserting')]);
    expect(o.code, o.stderr).toBe(1);
    expect(o.stdout).toContain('ok   acme/probe-before-task (PASS)');
    expect(o.stdout).toMatch(/✗ {4}acme\/large-ticket-expect-wrong: declares PASS, the reference client got INFORMATIONAL — HS-SPLIT-ORIGIN: Residual risk/);
    expect(o.stdout.trim().split('\n').at(-1)).toMatch(/^2 scenario\(s\): 1 as declared, 1 differ \(acme\/large-ticket-expect-wrong\)/);
  });

  it('names a scenario that grades nothing: the reference and a careless client get the same INFORMATIONAL, and it has no assertion', {
    timeout: 120_000,
  }, async () => {
    const { writeFileSync } = await import('node:fs');
    const { scenario } = await import('./helpers/scenarios.js');
    const dir = tempDir('a2a-idle-');
    // One that grades (the reference rejects where a careless client sends), one that never can (fire-and-forget: nothing binds).
    const file = join(dir, 'mine.scenario.json');
    writeFileSync(
      file,
      JSON.stringify([
        { ...scenario('neg-live-input/live-audio-to-batch-peer'), id: 'mine/grades' },
        { ...scenario('neg-push-mtls/fire-and-forget'), id: 'mine/idle' },
      ]),
    );
    const o = await runMain(['check-scenarios', file]);
    expect(o.code, o.stderr).toBe(1);
    expect(o.stdout).toContain('ok   mine/grades (PASS)');
    expect(o.stdout).toMatch(/✗ {4}mine\/idle: grades nothing: the reference and a careless client \(naive\) get the same verdict \(INFORMATIONAL\)/);
    expect(o.stdout.trim().split('\n').at(-1)).toBe('2 scenario(s): 2 as declared, 0 differ, 1 grade nothing (mine/idle)');
    // --json: the same outcome as data, against its published schema, the same exit code.
    const j = await runMain(['check-scenarios', file, '--json']);
    expect(j.code, j.stderr).toBe(1);
    const doc = JSON.parse(j.stdout) as { scenarios: Array<{ id: string; outcome: string }>; summary: Record<string, number>; exitCode: number };
    const valid = schemaValidator('check-scenarios.schema.json', undefined, true);
    expect(valid(doc), JSON.stringify(valid.errors)).toBe(true);
    expect(doc.scenarios.map((x) => [x.id, x.outcome])).toEqual([
      ['mine/grades', 'as-declared'],
      ['mine/idle', 'grades-nothing'],
    ]);
    expect(doc.summary).toEqual({ scenarios: 2, asDeclared: 1, differ: 0, gradeNothing: 1 });
    expect(doc.exitCode).toBe(1);
  });

  it('older signal kinds load, with one warning line each that names what to write instead', async () => {
    const { writeFileSync } = await import('node:fs');
    const { scenario } = await import('./helpers/scenarios.js');
    const s = scenario('neg-live-input/live-audio-to-batch-peer');
    const file = join(tempDir('a2a-old-kind-'), 'old.scenario.json');
    writeFileSync(
      file,
      JSON.stringify([
        { ...s, id: 'mine/old-kind', peer: { ...s.peer, signals: s.peer.signals.map((x) => ({ ...x, kind: 'spec-derivable' })) } },
        { ...s, id: 'mine/seed-kind', peer: { ...s.peer, signals: s.peer.signals.map((x) => ({ ...x, kind: 'seed' })) } },
      ]),
    );
    const o = await runMain(['list', '--no-builtin', '--scenarios', file]);
    expect(o.code, o.stderr).toBe(0);
    expect(o.stdout).toContain('mine/old-kind');
    expect(o.stderr.trim().split('\n')).toEqual([
      `a2a-conformance: warning: ${file}: signal kind "spec-derivable" is deprecated (ruleset 1); write "MUST" (the level that caps nothing: the rule's own sources decide)`,
      `a2a-conformance: warning: ${file}: signal kind "seed" is deprecated (renamed in ruleset a2a-1.0.1@15); write "field"`,
    ]);
  });
});

describe('expectations files (DESIGN.md §4.3)', () => {
  const write = async (entries: Array<{ scenario: string; verdict: string; reason: string }>) => {
    const { writeFile } = await import('node:fs/promises');
    const dir = tempDir('a2a-exp-');
    const file = join(dir, 'expectations.json');
    await writeFile(file, JSON.stringify({ schema: 'a2a-conformance/expectations@1', entries }));
    return file;
  };

  it('exactly the failures: exit 0; one removed: 1; one matching nothing: 1; one outside the shard: 0', { timeout: 200_000 }, async () => {
    const client = 'naive:rejects-whole-card';
    const rules = ['--rule', 'NEG-LIVE-INPUT,SPEC-TLS-VERIFY', '--dialect', 'a2a-v1'];
    const baseline = await mainRun(['--client', client, ...rules]);
    const failures = baseline.results.results.filter((r) => r.verdict === 'FAIL');
    expect(failures.length).toBeGreaterThanOrEqual(2);
    const entries = failures.map((f) => ({ scenario: f.id, verdict: 'FAIL', reason: 'known: rejects the whole card' }));
    // Shard 1 of 2 runs one of the two files; the entry for the other file's scenario is not stale.
    const shard = await write(entries).then((f) => mainRun(['--client', client, ...rules, '--expectations', f, '--shard', '1/2']));
    // The same verdicts judged again by `report --expectations` (in this process: no run needed).
    const judged = async (e: typeof entries) =>
      runMain(['report', join(baseline.out, 'results.json'), '--expectations', await write(e), '--out', tempDir('a2a-judged-')]);
    const [exact, missingOne] = [await judged(entries), await judged(entries.slice(1))];
    expect(exact.code, exact.stdout).toBe(0);
    expect(missingOne.code).toBe(1);
    // A stale entry (matching nothing in the whole catalogue), judged on the same verdicts as the CLI judges them.
    const { judge } = await import('../harness/runner/judge/expectations.js');
    const { exitCode } = await import('../harness/runner/judge/policy.js');
    const catalogue = [...baseline.results.results.map((r) => r.id), ...baseline.results.notRun.map((n) => n.id)];
    const stale = judge(
      baseline.results.results,
      { strict: false },
      { schema: 'a2a-conformance/expectations@1', entries: [...entries, { scenario: 'no-such/scenario', verdict: 'FAIL', reason: 'stale' }] } as never,
      catalogue,
    );
    expect(exitCode(baseline.results.results, stale.unexpected)).toBe(1);
    expect(stale.unexpected.find((u) => u.id === 'no-such/scenario')?.why).toContain('stale');
    expect(shard.code, shard.stdout).toBe(0);
    expect(shard.results.notRun.some((n) => n.reason.includes('another shard'))).toBe(true);
  });

  it('--update-expectations writes a baseline that makes the same run pass, and so exits 0; a malformed file is exit 2 with the field named', {
    timeout: 120_000,
  }, async () => {
    const { readFile, writeFile } = await import('node:fs/promises');
    const dir = tempDir('a2a-upd-');
    const file = join(dir, 'baseline.json');
    const first = await mainRun(['--client', 'naive:skips-tls-verify', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--update-expectations', file]);
    // Writing the baseline is not a failure: judged by it, nothing is unexpected (exit 0, and results.json says so).
    expect(first.code).toBe(0);
    expect(first.results.unexpected).toEqual([]);
    expect(first.results.exitCode).toBe(0);
    const failed = first.results.results.filter((r) => r.verdict === 'FAIL' || r.verdict === 'TIMEOUT').map((r) => r.id);
    expect(failed.length).toBeGreaterThan(0);
    const baseline = JSON.parse(await readFile(file, 'utf8'));
    expect(baseline.entries.map((e: { scenario: string }) => e.scenario).sort()).toEqual(failed.sort());
    // The same verdicts judged against the baseline (`report --expectations`, in this process: no second run needed).
    const second = await runMain(['report', join(first.out, 'results.json'), '--expectations', file, '--out', join(dir, 'judged')]);
    expect(second.code, second.stdout).toBe(0);
    expect(baseline.written).toMatchObject({ harness: first.results.harness.version, ruleset: first.results.ruleset, everyVerdict: false });
    // --pin-every-verdict: an entry for every scenario run, PASS too; where it came from; no port or run id in a reason.
    const pinned = join(dir, 'pinned.json');
    const every = await mainRun([
      '--client',
      'naive:skips-tls-verify',
      '--rule',
      'SPEC-TLS-VERIFY',
      '--dialect',
      'a2a-v1',
      '--update-expectations',
      pinned,
      '--pin-every-verdict',
    ]);
    expect(every.code).toBe(0);
    const all = JSON.parse(await readFile(pinned, 'utf8'));
    expect(all.entries.map((e: { scenario: string; verdict: string }) => [e.scenario, e.verdict])).toEqual(every.results.results.map((r) => [r.id, r.verdict]));
    expect(all.entries.some((e: { verdict: string }) => e.verdict === 'PASS')).toBe(true);
    expect(all.written.everyVerdict).toBe(true);
    expect(all.written.notRun.flatMap((g: { scenarios: string[] }) => g.scenarios).sort()).toEqual(every.results.notRun.map((n) => n.id).sort());
    expect(JSON.stringify(all.entries)).not.toMatch(/127\.0\.0\.1:\d|\/t\/[0-9a-f]{8}\//);
    const lone = await runMain(['run', '--client', 'reference', '--pin-every-verdict']);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('give --update-expectations <file> too');
    await writeFile(file, JSON.stringify({ schema: 'a2a-conformance/expectations@1', entries: [{ scenario: 'x', verdict: 'NOPE', reason: '' }] }));
    const bad = await runMain(['run', '--client', 'reference', '--expectations', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('entries[0].verdict must be one of');
  });
});

describe('where each command writes by default', () => {
  it("run, properties and replay each have a folder of their own: a property run never overwrites the run's report", () => {
    const program = buildProgram();
    const outOf = (name: string) => program.commands.find((c) => c.name() === name)!.options.find((o) => o.long === '--out')!.defaultValue as string;
    expect([outOf('run'), outOf('properties'), outOf('replay')]).toEqual(['conformance-report', 'conformance-properties', 'conformance-replay']);
  });

  it('replay --help lists only what a replay uses: no --workers (a replay runs on one thread), its own --lanes default', () => {
    const program = buildProgram();
    const longs = (name: string) => program.commands.find((c) => c.name() === name)!.options.map((o) => o.long);
    expect(longs('properties')).toContain('--workers');
    expect(longs('replay')).not.toContain('--workers');
    const lanes = program.commands.find((c) => c.name() === 'replay')!.options.find((o) => o.long === '--lanes')!;
    expect(lanes.description).toContain('default: 1');
  });
});

describe('the Node it runs on', () => {
  it('an older Node than package.json asks for: one line and exit 2, before anything is loaded', async () => {
    const o = await cli(['run', '--client', 'reference'], { env: { ...process.env, A2A_CONFORMANCE_NODE_VERSION: '18.20.4' } });
    expect(o.code).toBe(2);
    expect(o.stdout).toBe('');
    expect(o.stderr).toBe('a2a-conformance: needs Node >=20.19, found 18.20.4: install a newer Node (https://nodejs.org) and run it again\n');
  });

  it("grpc-js's TLS server name warning (DEP0123) does not reach a gRPC run's stderr", async () => {
    const r = await cliRun(['--client', 'reference', '--binding', 'grpc', '--scenario', 'spec-tls-verify/valid-certificate-control.grpc']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.results.results.map((x) => x.id)).toEqual(['spec-tls-verify/valid-certificate-control.grpc']);
    expect(r.stderr).not.toContain('DEP0123');
  });
});

describe('reports and shards', () => {
  it('results written before the level seed was named field still report: read as field, said in one line', async () => {
    const r = await mainRun(['--client', 'reference', '--scenario', 'neg-live-input/live-audio-to-batch-peer']);
    const text = readFileSync(join(r.out, 'results.json'), 'utf8');
    expect(text).toContain('"level": "field"');
    const old = join(tempDir('a2a-old-level-'), 'results.json');
    writeFileSync(old, text.replaceAll('"level": "field"', '"level": "seed"'));
    const out = tempDir('a2a-old-level-out-');
    const o = await runMain(['report', old, '--out', out]);
    expect(o.code, o.stderr).toBe(0);
    expect(o.stderr).toMatch(/written before ruleset a2a-1\.0\.1@15; its \d+ level\(s\) named "seed" are read as "field"/);
    const again = readFileSync(join(out, 'results.json'), 'utf8');
    expect(again).not.toContain('"level": "seed"');
    expect(again).toContain('"level": "field"');
  });

  it('a shard that gets no scenario runs nothing: no ERROR, exit 0 (nobody is at fault; the merge grades); `report` merges it with the shard that ran them: exit 0, nothing left not run', async () => {
    const args = ['--client', 'reference', '--scenario', 'spec-tls-verify/expired'];
    // In this process, one after the other (a process holds one run at a time).
    const one = await mainRun([...args, '--shard', '1/2']);
    const r = await mainRun([...args, '--shard', '2/2']);
    expect(r.results.summary.ERROR).toBe(0);
    expect(r.results.results).toEqual([]);
    expect(r.results.notRun.filter((n) => n.reason.includes('another shard')).length).toBe(1);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('shard 2/2 holds no scenario (there are more shards than scenarios): nothing to run here; `report` merges the shards');
    expect(one.code, one.stdout).toBe(0);
    const out = tempDir('a2a-merged-');
    const merged = await runMain(['report', join(one.out, 'results.json'), join(r.out, 'results.json'), '--out', out]);
    expect(merged.code, merged.stderr).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as typeof one.results;
    expect(m.results.map((x) => x.id).sort()).toEqual(one.results.results.map((x) => x.id).sort());
    expect(m.results).toHaveLength(1);
    expect(m.notRun.filter((n) => n.reason.includes('another shard'))).toEqual([]);
    expect(m.incomplete).toBeUndefined();
  });
});
