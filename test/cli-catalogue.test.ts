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
    const { mergeResults } = await import('../harness/runner/merge.js');
    const { writeFile } = await import('node:fs/promises');
    const out = testTemp('a2a-merged-');
    const run = await runInProcess('reference', ['spec-tls-verify/valid-certificate-control', 'wire/message-reply']);
    expect(mergeResults([run]).exitCode, JSON.stringify([run.results.map((r) => r.verdict), mergeResults([run]).unexpected])).toBe(0);
    // A shard: one scenario here, the other "in another shard", whose results are not in the merge.
    const one = { ...run, shard: '1/2', results: run.results.slice(0, 1), notRun: [{ id: run.results[1]!.id, reason: 'in another shard than 1/2' }] };
    expect(mergeResults([one]).exitCode).toBe(1);
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
