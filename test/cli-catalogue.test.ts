/**
 * `report` over shard results, in this process: one shard alone is an incomplete report (exit 1), a
 * tampered exit code is recomputed, a malformed file is exit 2. The whole built-in catalogue through
 * the real CLI (every verdict its declared expect, results.json by its schema) runs in
 * test/package.test.ts, from the packed package as a vendor installs it; shards through the CLI in
 * test/cli.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from './helpers/main.js';
import { runInProcess } from './helpers/results.js';
import { testTemp } from './helpers/tmp.js';

describe('report: merging shards', () => {
  it('one shard alone is incomplete (exit 1); a tampered exit code is recomputed; a malformed file is exit 2', async () => {
    const { mergeResults } = await import('../harness/runner/judge/merge.js');
    const { writeFile } = await import('node:fs/promises');
    const out = testTemp('a2a-merged-');
    const run = await runInProcess('reference', ['spec-tls-verify/valid-certificate-control', 'wire/message-reply']);
    expect(mergeResults([run]).exitCode, JSON.stringify([run.results.map((r) => r.verdict), mergeResults([run]).unexpected])).toBe(0);
    // A shard: one scenario here, the other "in another shard", whose results are not in the merge.
    const one = { ...run, shard: '1/2', results: run.results.slice(0, 1), notRun: [{ id: run.results[1]!.id, reason: 'in another shard than 1/2' }] };
    // Incomplete, said once (not as an unexpected ERROR per scenario, which the counts did not hold).
    const alone = mergeResults([one]);
    expect(alone.exitCode).toBe(1);
    expect(alone.unexpected).toEqual([]);
    expect(alone.summary.ERROR).toBe(0);
    expect(alone.incomplete).toMatchObject({ shards: ['2/2'], missing: [run.results[1]!.id] });
    expect(alone.notRun).toEqual([{ id: run.results[1]!.id, reason: 'in a shard missing from the merge (2/2): not graded' }]);
    // The console, summary.md and junit.xml each say so, consistently with the exit code.
    const { summaryText } = await import('../harness/cli/reporters.js');
    const { renderMarkdown } = await import('../reports/markdown.js');
    const { renderJunit } = await import('../reports/junit.js');
    const said = 'incomplete: 1 scenario(s) of shard(s) 2/2 are missing from the merge and were not graded (exit code 1)';
    const paths = { dir: 'r', html: 'r/index.html', results: 'r/results.json', junit: 'r/junit.xml', markdown: 'r/summary.md' };
    expect(summaryText(alone, paths)).toContain(`✗ ${said}`);
    expect(summaryText(alone, paths)).toContain('exit code 1');
    expect(renderMarkdown(alone)).toContain(said);
    expect(renderJunit(alone)).toMatch(/<testcase name="merge" classname="a2a-conformance\.merge"[^>]*>\s*<failure message="incomplete: 1 scenario/);
    // Merged again (its own results.json re-rendered), it stays incomplete.
    expect(mergeResults([alone]).incomplete).toMatchObject({ shards: ['2/2'], missing: [run.results[1]!.id] });
    const two = { ...run, shard: '2/2', results: run.results.slice(1), notRun: [{ id: run.results[0]!.id, reason: 'in another shard than 2/2' }] };
    expect(mergeResults([one, two]).exitCode).toBe(0);
    const tampered = { ...one, results: [...one.results, { ...one.results[0]!, id: 'x/forged', verdict: 'FAIL' as const }], exitCode: 0 };
    expect(mergeResults([tampered, two]).exitCode).toBe(1);
    await writeFile(join(out, 'broken.json'), JSON.stringify({ schema: 'a2a-conformance/results@1' }));
    const b = await runMain(['report', join(out, 'broken.json'), '--out', join(out, 'b')]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('is not an a2a-conformance results file');
  });
});
