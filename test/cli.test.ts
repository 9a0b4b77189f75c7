/**
 * The CLI contract (DESIGN.md §4.3), end to end in child processes over real TLS:
 * the reference gets every declared `expect`; every naive mistake is caught by the rule it declares.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CLIENTS } from '../clients/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { cli, cliRun, ROOT } from './helpers/cli.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
function resultsValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(join(ROOT, 'docs/results.schema.json'), 'utf8')));
}

describe('a2a-conformance CLI', () => {
  it('prints help and lists the built-in clients, each naive mistake included', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('run [options]');
    const list = await cli(['list', '--clients']);
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(BUILTIN_CLIENTS.map((c) => c.name));
    expect(list.stdout).toContain('naive:streams-live-audio');
  });

  it('exits 2 on bad arguments, with a message that says what to do', async () => {
    const noClient = await cli(['run']);
    expect(noClient.code).toBe(2);
    expect(noClient.stderr).toContain('--client <name>');
    const unknown = await cli(['run', '--client', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Built-in clients: reference');
    const badRule = await cli(['run', '--client', 'reference', '--rule', 'NEG-NOPE']);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toContain('unknown rule "NEG-NOPE"');
  });

  it('reference: exits 0, every verdict equals its declared expect, and scrambled ids change nothing', async () => {
    // Arrange + Act: two runs with different opaque-id salts, side by side.
    const [a, b] = await Promise.all([cliRun(['--client', 'reference', '--seed', 'aaaa']), cliRun(['--client', 'reference', '--seed', 'zzzz'])]);
    // Assert
    expect(a.code, a.stdout).toBe(0);
    expect(a.results.results.length).toBeGreaterThanOrEqual(20);
    for (const r of a.results.results) expect(r.verdict, `${r.id}: ${JSON.stringify(r.checks.filter((c) => c.verdict !== 'PASS'))}`).toBe(r.expect);
    expect(a.stdout).toContain('results:');
    const verdicts = (x: typeof a) => Object.fromEntries(x.results.results.map((r) => [r.id, r.verdict]));
    expect(verdicts(b)).toEqual(verdicts(a));
    const opaque = (x: typeof a) => x.results.results.map((r) => r.opaqueId);
    expect(opaque(b)).not.toEqual(opaque(a));
    expect(b.code).toBe(0);
    // results.json follows its published JSON Schema.
    const validate = resultsValidator();
    expect(validate(a.results), JSON.stringify(validate.errors)).toBe(true);
  });

  it('--rule runs one family and lists the rest as not run', async () => {
    const r = await cliRun(['--client', 'reference', '--rule', 'SPEC-TLS-VERIFY']);
    expect(r.code).toBe(0);
    expect(new Set(r.results.results.map((x) => x.rule))).toEqual(new Set(['SPEC-TLS-VERIFY']));
    expect(r.results.notRun.length).toBeGreaterThan(0);
    expect(r.results.notRun[0]!.reason).toContain('--rule');
  });

  const mutants = BUILTIN_CLIENTS.filter((c) => c.caughtBy);
  it('has a mutant per mistake, each naming the rule that must catch it', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(6);
  });

  it('every naive mutant exits 1 with a FAIL or TIMEOUT from the rule it declares, citing transcript sequence numbers', { timeout: 400_000 }, async () => {
    const pending = [...mutants];
    const validate = resultsValidator();
    const failures: string[] = [];
    // Two child runs at a time: the machine has two cores.
    await Promise.all(
      [0, 1].map(async () => {
        for (let m = pending.shift(); m; m = pending.shift()) {
          const r = await cliRun(['--client', m.name]);
          if (!validate(r.results)) failures.push(`${m.name}: results.json does not follow the schema: ${JSON.stringify(validate.errors)}`);
          const caught = r.results.results.flatMap((x) => x.checks.filter((c) => c.rule === m.caughtBy && (c.verdict === 'FAIL' || c.verdict === 'TIMEOUT')));
          if (r.code !== 1) failures.push(`${m.name}: exit ${r.code}`);
          if (caught.length === 0) failures.push(`${m.name}: no FAIL/TIMEOUT from ${m.caughtBy}`);
          else if (!caught.some((c) => c.evidence.some((e) => typeof e.seq === 'number'))) failures.push(`${m.name}: ${m.caughtBy} cites no sequence number`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it('over-rejection variants: PASS for the reference, FAIL for naive:rejects-whole-card', async () => {
    const r = await cliRun(['--client', 'naive:rejects-whole-card', '--rule', 'NEG-LIVE-INPUT']);
    const v = Object.fromEntries(r.results.results.map((x) => [x.id, x.verdict]));
    expect(v['neg-live-input/text-task-on-audio-card']).toBe('FAIL');
    expect(v['neg-live-input/bufferable-audio']).toBe('FAIL');
    expect(r.code).toBe(1);
  });
});
