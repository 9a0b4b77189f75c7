/**
 * The config file (harness/cli/config.ts, docs/config.schema.json): it fills in what the command
 * line leaves out, the command line wins, relative paths are read from its folder, a bad key or
 * value is one line naming the file and the key (exit 2), a `.ts` config loads with defineConfig
 * from a folder with no package.json. In this process (runMain), one run at a time.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';
import { CONFIG_NAMES, findConfig } from '../harness/cli/config.js';
import type { RunResults } from '../harness/core/results.js';

const EXAMPLE = join(import.meta.dirname, '../examples/scenarios/retry-after.scenario.json');

/** What a command said on stderr besides naming the config file it used (its first line where one was). */
const said = (o: { stderr: string }) => o.stderr.split('\n').filter((l) => !l.startsWith('a2a-conformance: using the config file '));

/** A vendor folder: a scenario folder and a config file, written as given. */
function vendor(config: string, name = 'a2a-conformance.config.json') {
  const dir = testTemp('a2a-config-');
  mkdirSync(join(dir, 'conformance'));
  writeFileSync(join(dir, 'conformance/busy.scenario.json'), readFileSync(EXAMPLE));
  writeFileSync(join(dir, name), config);
  return { dir, file: join(dir, name) };
}

describe('the config file', () => {
  it('is named on stderr and in results.json; its expectations file need not exist for the first baseline; --no-config leaves it out', async () => {
    const v = vendor(
      JSON.stringify({ client: 'reference', scenarios: ['conformance/'], builtin: false, out: 'report', expectations: 'conformance-expectations.json' }),
    );
    const baseline = join(v.dir, 'conformance-expectations.json');
    const first = await runMain(['run', '--config', v.file, '--update-expectations', baseline]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`a2a-conformance: using the config file ${v.file}`);
    expect(first.stderr).toContain('does not exist yet: this run is judged without expectations, and --update-expectations writes its baseline');
    expect(existsSync(baseline)).toBe(true);
    const results = JSON.parse(readFileSync(join(v.dir, 'report/results.json'), 'utf8')) as RunResults;
    expect(results.config).toBe(v.file);
    // The second run reads the baseline it wrote.
    const second = await runMain(['run', '--config', v.file]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('does not exist yet');
    // --no-config: the config in the current folder is not read (no client then: said so, exit 2).
    const here = process.cwd();
    process.chdir(v.dir);
    try {
      const none = await runMain(['run', '--no-config', '--out', join(v.dir, 'x')]);
      expect(none.code).toBe(2);
      expect(none.stderr).not.toContain('using the config file');
      expect(none.stderr).toContain('say which client to run');
      const found = await runMain(['list', '--no-builtin']);
      expect(found.stderr).toContain('using the config file a2a-conformance.config.json');
    } finally {
      process.chdir(here);
    }
  });

  it('fills in client, scenarios, builtin, out, reporter and lanes; paths (out, a reporter file) are read from its folder', async () => {
    const v = vendor(
      JSON.stringify({
        client: 'reference',
        scenarios: ['conformance/'],
        builtin: false,
        out: 'reports/conformance',
        reporter: ['dot', 'junit=reports/junit.xml'],
        lanes: 2,
      }),
    );
    const r = await runMain(['run', '--config', v.file]);
    expect(r.code, r.stderr).toBe(0);
    // dot, not progress: one character, then the summary.
    expect(r.stdout).toMatch(/^\.\n/);
    const results = JSON.parse(readFileSync(join(v.dir, 'reports/conformance/results.json'), 'utf8')) as RunResults;
    expect(results.results.map((x) => x.id)).toEqual(['example/busy-retry-after']);
    expect(results.client.name).toBe('reference');
    // A reporter's file is a path too, read from the config's folder.
    expect(readFileSync(join(v.dir, 'reports/junit.xml'), 'utf8')).toBe(readFileSync(join(v.dir, 'reports/conformance/junit.xml'), 'utf8'));
  });

  it('the command line wins: --client-cmd or --client replaces the config client, --reporter its list, --out its folder', async () => {
    const v = vendor(JSON.stringify({ client: 'no-such-client', scenarios: ['conformance/'], builtin: false, reporter: ['dot'] }));
    const out = join(v.dir, 'here');
    const r = await runMain(['run', '--config', v.file, '--client', 'reference', '--reporter', 'tap', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('TAP version 13\n')).toBe(true);
    expect(existsSync(join(out, 'results.json'))).toBe(true);
    // The config's own client, where the command line names none, is checked as --client is.
    const bad = await runMain(['run', '--config', v.file, '--out', join(v.dir, 'x')]);
    expect(bad.code).toBe(2);
    expect(said(bad)[0]).toMatch(/^a2a-conformance: unknown client "no-such-client" \(`a2a-conformance list --clients` lists the \d+ built-in clients/);
    // A slip of the keys is met with the names nearest to it, not the whole list.
    const slip = await runMain(['run', '--client', 'refrence', '--out', join(v.dir, 'y')]);
    expect(slip.code).toBe(2);
    expect(slip.stderr.split('\n')[0]).toMatch(/^a2a-conformance: unknown client "refrence": did you mean "reference"\?/);
    expect(slip.stderr).not.toContain('naive:');
  });

  it('matrix takes its clients from "clients" and "clientCmds", never the run\'s "client" or "out"; the command line replaces both lists', async () => {
    const v = vendor(
      JSON.stringify({ client: 'no-such-client', clients: ['reference', 'naive'], scenarios: ['conformance/'], builtin: false, out: 'reports/run' }),
    );
    const out = join(v.dir, 'm');
    const m = await runMain(['matrix', '--config', v.file, '--no-properties', '--out', out]);
    expect(m.code, m.stderr).toBe(1);
    expect(JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')).clients.map((c: { name: string }) => c.name)).toEqual(['reference', 'naive']);
    expect(existsSync(join(v.dir, 'reports/run'))).toBe(false);
    const one = await runMain(['matrix', '--config', v.file, '--no-properties', '--client', 'reference', '--out', out]);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8')).clients.map((c: { name: string }) => c.name)).toEqual(['reference']);
    const bad = vendor(JSON.stringify({ clientCmds: ['no equals sign'] }));
    const b = await runMain(['matrix', '--config', bad.file, '--out', join(bad.dir, 'm')]);
    expect(b.code).toBe(2);
    expect(b.stderr.split('\n')[0]).toMatch(/clientCmds/);
  });

  it('a key that is not one, a value its option refuses, two config files, a --config that does not exist: one line, exit 2', async () => {
    const typo = vendor(JSON.stringify({ clinet: 'reference' }));
    const t = await runMain(['run', '--config', typo.file]);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/a2a-conformance\.config\.json: "clinet" is not a key of the config \(docs\/config\.schema\.json\)\n$/);
    const lanes = vendor(JSON.stringify({ client: 'reference', lanes: 0 }));
    expect((await runMain(['run', '--config', lanes.file])).stderr).toMatch(/a2a-conformance\.config\.json: \/lanes: must be >= 1/);
    const rule = vendor(JSON.stringify({ client: 'reference', rule: ['NO-SUCH-RULE'] }));
    const rr = await runMain(['run', '--config', rule.file]);
    expect(rr.code).toBe(2);
    expect(rr.stderr.split('\n')[0]).toMatch(/a2a-conformance\.config\.json: "rule": unknown rule "NO-SUCH-RULE"\. Rules: /);
    const two = vendor('{}');
    writeFileSync(join(two.dir, 'a2a-conformance.config.mjs'), 'export default {};\n');
    expect(() => findConfig(two.dir)).toThrow(
      /two config files in .* \(a2a-conformance\.config\.json, a2a-conformance\.config\.mjs\): keep one, or name it with --config/,
    );
    const none = await runMain(['doctor', '--config', join(two.dir, 'nope.json')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--config ');
    expect(none.stderr).toContain('nope.json: no such file');
    // doctor without a client command, from neither place, says where to give it.
    const bare = vendor('{}');
    const d = await runMain(['doctor', '--config', bare.file]);
    expect(d.code).toBe(2);
    expect(said(d)[0]).toBe('a2a-conformance: doctor checks a subprocess client: give --client-cmd "<command>" (or clientCmd in the config file)');
  });

  it('list and serve read the scenarios from it; keys of other commands wait for them', async () => {
    const v = vendor(JSON.stringify({ client: 'reference', scenarios: ['conformance/'], builtin: false, reporter: ['dot'], strict: true }));
    const l = await runMain(['list', '--config', v.file]);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^example\/busy-retry-after +WIRE-NO-BLIND-RETRY +PASS$/)]);
  });

  it('a .ts config with defineConfig loads from a folder with no package.json; a function in it is refused', async () => {
    const v = vendor(
      `import { defineConfig } from 'a2a-conformance';\nexport default defineConfig({ scenarios: ['conformance/'], builtin: false });\n`,
      'a2a-conformance.config.ts',
    );
    const l = await runMain(['list', '--config', v.file]);
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toMatch(/^example\/busy-retry-after /);
    const f = vendor(`export default { scenarios: ['conformance/'], grep: () => true };\n`, 'a2a-conformance.config.mjs');
    const bad = await runMain(['list', '--config', f.file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /the config file .*a2a-conformance\.config\.mjs did not load: its default export holds a function \(at "grep"\): a config is plain data/,
    );
  });

  it('the names it is found by are the ones docs/cli.md gives', () => {
    const doc = readFileSync(join(import.meta.dirname, '../docs/cli.md'), 'utf8');
    expect(doc).toContain('`a2a-conformance.config.json` (or `.ts`, `.mts`, `.mjs`, `.js`');
    expect(CONFIG_NAMES.map((n) => n.slice('a2a-conformance.config'.length))).toEqual(['.json', '.ts', '.mts', '.mjs', '.js']);
  });
});
