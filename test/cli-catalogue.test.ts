/**
 * The whole built-in catalogue, both dialects, through the real CLI in two shards (child processes
 * over real TLS): the reference gets every declared `expect`, results.json follows its schema, and
 * `report` merges the shards. Its own file, so it runs beside the rest of the CLI contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRun, resultsValidator } from './helpers/cli.js';
import { runMain } from './helpers/main.js';

describe('a2a-conformance CLI: the whole catalogue', () => {
  it('reference, the whole catalogue in two shards: exit 0 each, every verdict equals its declared expect; `report` merges them into one report', { timeout: 120_000 }, async () => {
    const [one, two] = await Promise.all([cliRun(['--client', 'reference', '--shard', '1/2']), cliRun(['--client', 'reference', '--shard', '2/2'])]);
    expect(one.code, one.stdout).toBe(0);
    expect(two.code, two.stdout).toBe(0);
    expect(one.results.results.length).toBeGreaterThan(0);
    expect(two.results.results.length).toBeGreaterThan(0);
    const all = [...one.results.results, ...two.results.results];
    expect(all.length).toBeGreaterThanOrEqual(40);
    for (const r of all) expect(r.verdict, `${r.id}: ${JSON.stringify(r.checks.filter((c) => c.verdict !== 'PASS'))}`).toBe(r.expect);
    // results.json follows its published JSON Schema (signed cards' signature records included).
    const validate = resultsValidator();
    for (const x of [one, two]) expect(validate(x.results), JSON.stringify(validate.errors)).toBe(true);
    expect(all.some((r) => r.signatures?.length)).toBe(true);
    const { mkdtemp } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const out = await mkdtemp(join(tmpdir(), 'a2a-merged-'));
    const merged = await runMain(['report', join(one.out, 'results.json'), join(two.out, 'results.json'), '--out', out]);
    expect(merged.code, merged.stderr).toBe(0);
    const m = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(m.results.length).toBe(one.results.results.length + two.results.results.length);
    expect(m.results.length).toBe(one.results.results.length + one.results.notRun.length);
    expect(m.notRun).toEqual([]);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('merged');

    // One shard alone is an incomplete report: exit 1; a tampered exit code is recomputed (the merge as `report` does it).
    const { mergeResults } = await import('../harness/runner/merge.js');
    expect(mergeResults([one.results]).exitCode).toBe(1);
    const tampered = { ...one.results, results: [...one.results.results, { ...one.results.results[0]!, id: 'x/forged', verdict: 'FAIL' as const }], exitCode: 0 };
    expect(mergeResults([tampered, two.results]).exitCode).toBe(1);
    // A malformed file: exit 2, said why.
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(out, 'broken.json'), JSON.stringify({ schema: 'a2a-conformance/results@1' }));
    const b = await runMain(['report', join(out, 'broken.json'), '--out', join(out, 'b')]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('is not an a2a-conformance results file');
  });
});
