/**
 * The CI recipes a vendor copies (docs/ci.md) and the composite Action (action.yml) say only what
 * the CLI does: every `a2a-conformance` command in them is parsed by the CLI's own option parser, and
 * the Action's run script is executed as GitHub would, against the built-in reference client.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseShell, type ParseEntry } from 'shell-quote';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildProgram } from '../harness/cli/main.js';
import type { RunResults } from '../harness/core/results.js';
import { ROOT } from './helpers/cli.js';

const run = promisify(execFile);
const ciDoc = readFileSync(resolve(ROOT, 'docs/ci.md'), 'utf8');
const blocks = [...ciDoc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parseYaml(m[1]!) as Record<string, any>);
const action = parseYaml(readFileSync(resolve(ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string; description: string }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: Array<{
      id?: string;
      name?: string;
      run?: string;
      shell?: string;
      uses?: string;
      if?: string;
      env?: Record<string, string>;
      with?: Record<string, string>;
    }>;
  };
};

const isGitHub = (doc: Record<string, any>) => typeof doc.jobs === 'object';
const githubDocs = blocks.filter(isGitHub);
const gitlabDocs = blocks.filter((d) => !isGitHub(d));

/** The shell commands of a workflow: GitHub steps' `run`, GitLab jobs' script lists. */
function commandsOf(doc: Record<string, any>): string[] {
  if (isGitHub(doc))
    return Object.values(doc.jobs).flatMap((job: any) => (job.steps as any[]).map((s) => s.run).filter((r): r is string => typeof r === 'string'));
  return Object.values(doc)
    .filter((job): job is Record<string, unknown> => typeof job === 'object' && job !== null && !Array.isArray(job))
    .flatMap((job) => ['before_script', 'script', 'after_script'].flatMap((k) => (Array.isArray(job[k]) ? (job[k] as string[]) : [])));
}

/** The `a2a-conformance` invocations of one shell command, as argv lists (CI variables given sample values). */
function invocations(command: string, vars: Record<string, string>): string[][] {
  // A matrix value as the job's strategy gives it; any other expression (github.run_number, …) stands as 1.
  const text = command.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_m, k: string) => vars[k] ?? '1');
  const tokens = parseShell(text, (k) => vars[k] ?? '');
  const out: string[][] = [];
  let current: string[] | undefined;
  for (const t of tokens as ParseEntry[]) {
    if (typeof t === 'object' && 'op' in t && t.op !== 'glob') {
      current = undefined; // an operator (`&&`, `>>`, `|`) ends the invocation
      continue;
    }
    const word = typeof t === 'string' ? t : 'pattern' in t ? t.pattern : '';
    if (current) current.push(word);
    else if (word === 'a2a-conformance' || word.endsWith('/a2a-conformance.mjs')) out.push((current = []));
  }
  return out;
}

/** Parses argv with the CLI's own parser: the subcommand must exist and every option must be one it knows. */
function checkInvocation(argv: string[]): void {
  const [name, ...rest] = argv;
  const program = buildProgram();
  const cmd = program.commands.find((c) => c.name() === name);
  expect(cmd, `a2a-conformance ${argv.join(' ')}: no command "${name}"`).toBeDefined();
  // parseOptions also runs each option's own parser (--reporter, --dialect, --rule, …), which throws on a bad value.
  const { operands, unknown } = cmd!.parseOptions(rest);
  expect(unknown, `a2a-conformance ${argv.join(' ')}: options the CLI does not take`).toEqual([]);
  if (name === 'run') {
    expect(operands).toEqual([]);
    const shard = rest[rest.indexOf('--shard') + 1];
    if (rest.includes('--shard')) expect(shard).toMatch(/^[1-9]\d*\/[1-9]\d*$/);
  }
  if (name === 'report') expect(operands.length).toBeGreaterThan(0);
}

describe('docs/ci.md', () => {
  it('holds four GitHub Actions workflows (shards, the Action, a nightly matrix, a sharded matrix) and a GitLab CI file, each valid YAML', () => {
    expect(githubDocs).toHaveLength(4);
    expect(gitlabDocs).toHaveLength(1);
  });

  it('GitHub: every a2a-conformance command parses with the CLI, and the shard count matches the matrix', () => {
    let seen = 0;
    for (const doc of githubDocs)
      for (const [jobName, job] of Object.entries<any>(doc.jobs)) {
        const shards: unknown[] = job.strategy?.matrix?.shard ?? [];
        for (const step of job.steps as any[]) {
          if (typeof step.run !== 'string') continue;
          for (const value of shards.length ? shards : [undefined]) {
            for (const argv of invocations(step.run, { 'matrix.shard': String(value ?? 1), GITHUB_STEP_SUMMARY: '/tmp/summary' })) {
              checkInvocation(argv);
              seen++;
              if (argv[0] === 'run' && argv.includes('--shard'))
                expect(argv[argv.indexOf('--shard') + 1], `${jobName}: --shard count vs the matrix`).toBe(`${value}/${shards.length}`);
            }
          }
        }
      }
    expect(seen).toBeGreaterThanOrEqual(4);
  });

  it('GitHub: the Action is used with inputs it declares, and every input is documented in the table', () => {
    const uses = githubDocs.flatMap((d) => Object.values<any>(d.jobs).flatMap((j) => j.steps as any[])).filter((s) => /\/a2a-conformance@/.test(s.uses ?? ''));
    expect(uses.length).toBeGreaterThan(0);
    for (const s of uses) for (const k of Object.keys(s.with ?? {})) expect(Object.keys(action.inputs), `input "${k}"`).toContain(k);
    for (const k of Object.keys(action.inputs)) expect(ciDoc, `docs/ci.md's table names input ${k}`).toContain(`| \`${k}\` |`);
    for (const k of Object.keys(action.outputs)) expect(ciDoc).toContain(`\`${k}\``);
  });

  it('GitLab: every a2a-conformance command parses with the CLI; the shard comes from parallel', () => {
    const [doc] = gitlabDocs;
    let seen = 0;
    for (const command of commandsOf(doc!))
      for (const argv of invocations(command, { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3' })) {
        checkInvocation(argv);
        seen++;
      }
    expect(seen).toBe(2);
    const sharded = Object.values<any>(doc!).find((j) => j?.parallel);
    expect(sharded.parallel).toBeGreaterThan(1);
    expect(sharded.script.join('\n')).toContain('--shard "$CI_NODE_INDEX/$CI_NODE_TOTAL"');
  });

  it('a checker that cannot fail is no checker: an unknown option and an unknown command are caught', () => {
    expect(() => checkInvocation(['run', '--client', 'reference', '--shards', '1/3'])).toThrow();
    expect(() => checkInvocation(['merge', 'a/results.json'])).toThrow();
    expect(() => checkInvocation(['run', '--client', 'reference', '--reporter', 'html'])).toThrow(/--reporter must be one of/);
  });
});

describe('action.yml', () => {
  const steps = action.runs.steps;
  const step = (id: string) => steps.find((s) => s.id === id)!;

  it('is a composite Action whose scripts take inputs through env only', () => {
    expect(action.runs.using).toBe('composite');
    for (const s of steps) {
      if (s.run !== undefined) {
        expect(s.shell, `${s.name}: a composite run step needs a shell`).toBe('bash');
        expect(s.run, `${s.name}: an expression spliced into a script could inject shell`).not.toContain('${{');
      } else expect(s.uses, `${s.name}: an action pinned to a major version`).toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
    }
    // Every input is read by some step (no dead input).
    const text = JSON.stringify(steps);
    for (const k of Object.keys(action.inputs)) expect(text, `input ${k} is used`).toContain(`inputs.${k}`);
  });

  it('its run script passes only options `run` knows', () => {
    const options = new Set([...step('run').run!.matchAll(/(?<![\w-])--[a-z][a-z-]+/g)].map((m) => m[0]));
    const runCmd = buildProgram().commands.find((c) => c.name() === 'run')!;
    const known = new Set(runCmd.options.map((o) => o.long));
    for (const o of options) expect(known, `option ${o}`).toContain(o);
    expect(options.size).toBeGreaterThanOrEqual(8);
  });

  describe('run as GitHub would run it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-action-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    /** Runs one step's script the way a runner does: `bash -e`, its env evaluated from the inputs and earlier outputs. */
    async function runStep(id: string, inputs: Record<string, string>, outputs: Record<string, string> = {}, cwd = ROOT) {
      const s = step(id);
      const values = { ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])), ...inputs };
      const env: Record<string, string> = {};
      // Outputs of earlier steps by name (`steps.<id>.outputs.<key>`): the test hands over the ones it has.
      for (const [k, v] of Object.entries(s.env ?? {}))
        env[k] = String(v).replace(
          /\$\{\{\s*(inputs|steps\.[\w-]+\.outputs)\.([\w-]+)\s*\}\}/g,
          (_m, where: string, key: string) => (where === 'inputs' ? values[key] : outputs[key]) ?? '',
        );
      const paths = { GITHUB_ACTION_PATH: ROOT, GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary.md'), RUNNER_TEMP: dir };
      const script = join(dir, `${id}.sh`);
      writeFileSync(script, s.run!);
      return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env: { ...process.env, ...paths, ...env }, timeout: 120_000 }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    }
    /** The step outputs as GitHub reads the output file: `key=value` lines and `key<<DELIMITER` heredocs; a later value wins. */
    const outputsOf = () => {
      const lines = readFileSync(join(dir, 'output'), 'utf8').split('\n');
      const out: Record<string, string> = {};
      for (let i = 0; i < lines.length; i++) {
        // As the runner reads it: `=` before any `<<` is a key=value line, else `<<` opens a heredoc.
        const line = lines[i]!;
        const eq = line.indexOf('=');
        const here = line.indexOf('<<');
        if (eq >= 0 && (here < 0 || eq < here)) out[line.slice(0, eq)] = line.slice(eq + 1);
        else if (here > 0) {
          const end = lines.indexOf(line.slice(here + 2), i + 1);
          const stop = end < 0 ? lines.length : end;
          out[line.slice(0, here)] = lines.slice(i + 1, stop).join('\n');
          i = stop;
        }
      }
      return out;
    };

    it("picks the job's own node when it is new enough (no download, PATH untouched) and names the installation's cache key", async () => {
      rmSync(join(dir, 'output'), { force: true });
      const r = await runStep('node', {});
      expect(r.code, r.stderr).toBe(0);
      const o = outputsOf();
      expect(realpathSync(o.node!)).toBe(realpathSync(process.execPath));
      expect(o.key).toMatch(/^[0-9a-f]{32}$/);
    });

    it("loads a vendor's TypeScript scenario importing 'a2a-conformance' from a folder with no package.json and no node_modules", async () => {
      const vendor = mkdtempSync(join(dir, 'vendor-'));
      mkdirSync(join(vendor, 'conformance'));
      copyFileSync(join(ROOT, 'test/fixtures/vendor/acme.scenario.ts'), join(vendor, 'conformance', 'x.scenario.ts'));
      rmSync(join(dir, 'output'), { force: true });
      const out = join(vendor, 'conformance-report');
      const r = await runStep(
        'run',
        { client: 'reference', scenarios: 'conformance/', 'no-builtin': 'true', out: 'conformance-report', args: '--reporter dot' },
        { node: process.execPath },
        vendor,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(outputsOf()['exit-code']).toBe('0');
      // The console names the report by its path from the current folder, as the job's log shows it.
      expect(r.stdout).toContain('report: conformance-report/index.html');
      const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
      expect(results.results.map((x) => x.file)).toEqual([join('conformance', 'x.scenario.ts')].map((f) => relative(ROOT, join(vendor, f))));
      expect(results.results.every((x) => x.verdict === x.expect)).toBe(true);
    });

    it('a client that writes into GITHUB_OUTPUT cannot turn a failing run green: it never gets the file, and the fail step re-reads results.json', async () => {
      const vendor = mkdtempSync(join(dir, 'outputs-'));
      rmSync(join(dir, 'output'), { force: true });
      const hostile = `"${process.execPath}" "${join(ROOT, 'test/fixtures/clients/hostile.mjs')}" ci-outputs`;
      // The control scenario rejected: over-rejection, exit 1.
      const r = await runStep(
        'run',
        { 'client-cmd': hostile, args: '--scenario spec-tls-verify/valid-certificate-control --reporter dot', out: 'report' },
        { node: process.execPath },
        vendor,
      );
      expect(r.code, r.stderr).toBe(0);
      const results = JSON.parse(readFileSync(join(vendor, 'report', 'results.json'), 'utf8')) as RunResults;
      expect(results.exitCode).toBe(1);
      // The client found no GITHUB_OUTPUT in its environment, only in an ancestor's, and wrote its lines there.
      expect(results.results[0]!.stderr).toContain('ci-outputs: GITHUB_OUTPUT read from an ancestor');
      expect(readFileSync(join(dir, 'output'), 'utf8')).toContain('swallow<<exit-code=1');
      // Its heredoc swallows what follows as GitHub reads the file: the step's exit-code output reads 0.
      const outputs = outputsOf();
      expect(outputs['exit-code']).toBe('0');
      // The fail step, run whatever the output says, reads results.json and fails the job all the same.
      const verdict = await runStep('verdict', { out: 'report' }, { 'exit-code': outputs['exit-code']!, node: process.execPath }, vendor);
      expect(verdict.code).toBe(1);
      expect(verdict.stdout).toMatch(/the run step's exit-code output says 0, but report\/results\.json says 1/);
      expect(step('verdict').if).toMatch(/always\(\)/);
    });

    it("an `out` input holding a newline and an `exit-code=0` line sets no output of its own: the step's exit-code stays the harness's", async () => {
      const vendor = mkdtempSync(join(dir, 'out-newline-'));
      writeFileSync(join(vendor, 'bad.scenario.json'), '{"scenarios": "no"}');
      rmSync(join(dir, 'output'), { force: true });
      const out = 'report\nexit-code=0\n';
      const r = await runStep('run', { client: 'reference', scenarios: 'bad.scenario.json', 'no-builtin': 'true', out }, {}, vendor);
      expect(r.code, r.stderr).toBe(0);
      const outputs = outputsOf();
      // Written as `report=<out>/index.html`, the input's second line would be an output line of its own.
      expect(outputs['exit-code']).toBe('2');
      expect(outputs.report).toBe(`${out}/index.html`);
      expect(Object.keys(outputs).sort()).toEqual(['exit-code', 'report', 'results']);
    });

    it('says in the job summary why a run that ended before its report did, and its annotation points there', async () => {
      const vendor = mkdtempSync(join(dir, 'broken-'));
      writeFileSync(join(vendor, 'bad.scenario.json'), '{"scenarios": "no"}');
      rmSync(join(dir, 'output'), { force: true });
      rmSync(join(dir, 'summary.md'), { force: true });
      const r = await runStep('run', { client: 'reference', scenarios: 'bad.scenario.json', 'no-builtin': 'true', out: 'report' }, {}, vendor);
      expect(r.code, r.stderr).toBe(0);
      expect(outputsOf()['exit-code']).toBe('2');
      expect((await runStep('summary', { out: 'report' }, { 'exit-code': '2' }, vendor)).code).toBe(0);
      const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
      expect(summary).toContain('a2a-conformance exited 2 before writing its report');
      expect(summary).toMatch(/bad\.scenario\.json: scenarios: a scenario JSON file is a list of scenarios/);
      const verdict = await runStep('verdict', { out: 'report' }, { 'exit-code': '2' }, vendor);
      expect(verdict.code).toBe(2);
      expect(verdict.stdout).toMatch(/before writing its report: see the job summary/);
    });

    it('runs a vendor glob alone, writes its outputs and the job summary, and fails only on an unexpected verdict', async () => {
      for (const f of ['output', 'summary.md']) rmSync(join(dir, f), { force: true });
      const out = join(dir, 'report');
      const r = await runStep('run', {
        client: 'reference',
        // Two patterns on two lines, one a glob the harness expands itself.
        scenarios: 'test/fixtures/vendor/*.json\ntest/fixtures/vendor-asserting/acme-probe.scenario.json',
        'no-builtin': 'true',
        'deadline-multiplier': '2',
        lanes: '2',
        args: '--reporter dot',
        out,
      });
      expect(r.code, r.stderr).toBe(0);
      const outputs = outputsOf();
      expect(outputs).toEqual({ 'exit-code': '0', report: `${out}/index.html`, results: `${out}/results.json` });
      const results = JSON.parse(readFileSync(outputs.results!, 'utf8')) as RunResults;
      expect(results.deadlineMultiplier).toBe(2);
      expect(results.results.map((x) => x.file).sort()).toEqual([
        'test/fixtures/vendor-asserting/acme-probe.scenario.json',
        'test/fixtures/vendor/acme-json.scenario.json',
      ]);
      expect(results.results.every((x) => x.verdict === x.expect)).toBe(true);

      expect((await runStep('summary', { out })).code).toBe(0);
      expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toBe(readFileSync(join(out, 'summary.md'), 'utf8'));

      const verdict = await runStep('verdict', { out }, { 'exit-code': '1' });
      expect(verdict.code).toBe(1);
      expect(verdict.stdout).toMatch(/^::error title=A2A conformance::a2a-conformance exited 1/);

      // compare-to: against itself no regression; against a baseline that graded one more scenario, a regression that fails the job.
      rmSync(join(dir, 'output'), { force: true });
      const same = await runStep('compare', { out, 'compare-to': outputs.results! });
      expect(same.code, same.stderr).toBe(0);
      expect(outputsOf()).toEqual({ regressed: 'false' });
      const baseline = join(dir, 'baseline.json');
      writeFileSync(baseline, JSON.stringify({ ...results, results: [...results.results, { ...results.results[0]!, id: 'acme/retired' }] }));
      rmSync(join(dir, 'output'), { force: true });
      const worse = await runStep('compare', { out, 'compare-to': baseline });
      expect(worse.code).toBe(1);
      expect(worse.stdout).toContain('no longer graded (in the old run only): 1 (acme/retired)');
      expect(worse.stdout).toMatch(/::error title=A2A conformance::regressions against/);
      expect(outputsOf()).toEqual({ regressed: 'true' });
      expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(`### Compared with ${baseline}`);
      const none = await runStep('compare', { out, 'compare-to': join(dir, 'no-such.json') });
      expect([none.code, none.stdout]).toEqual([0, expect.stringContaining('::warning title=A2A conformance::no baseline at')]);
    });
  });
});
