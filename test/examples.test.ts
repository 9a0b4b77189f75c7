/**
 * The worked examples the package ships (examples/scenarios/): they load and agree with the
 * reference client (check-scenarios), the 503-with-Retry-After one tells a careful client from one
 * that retries at once, and the package ships them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from './helpers/main.js';
import { ROOT } from './helpers/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-examples-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const RETRY_AFTER = join(ROOT, 'examples/scenarios/retry-after.scenario.json');

describe('examples/scenarios', () => {
  it('check-scenarios: every example loads and the reference client gets the verdict it declares', { timeout: 120_000 }, async () => {
    const o = await runMain(['check-scenarios', join(ROOT, 'examples/scenarios'), '--out', join(dir, 'check')]);
    expect(o.code, o.stderr + o.stdout).toBe(0);
    expect(o.stdout).toMatch(/ok {3}example\/busy-retry-after \(PASS\)/);
    expect(o.stdout).toMatch(/ok {3}example\/slow-answer \(PASS\)/);
  });

  it('the 503 with Retry-After: the reference client PASSes, naive:retries-blindly FAILs on WIRE-NO-BLIND-RETRY', { timeout: 120_000 }, async () => {
    const verdicts: Record<string, { verdict: string; check?: string }> = {};
    for (const client of ['reference', 'naive:retries-blindly']) {
      const out = join(dir, client.replace(/\W/g, '-'));
      const o = await runMain(['run', '--client', client, '--no-builtin', '--scenarios', RETRY_AFTER, '--out', out]);
      const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as { results: Array<{ id: string; verdict: string; checks?: Array<{ rule: string; verdict: string; reason?: string }> }> };
      const s = results.results.find((x) => x.id === 'example/busy-retry-after')!;
      const failed = s.checks?.find((c) => c.verdict === 'FAIL');
      verdicts[client] = { verdict: s.verdict, ...(failed ? { check: `${failed.rule}: ${failed.reason}` } : {}) };
      expect(o.code, client).toBe(client === 'reference' ? 0 : 1);
    }
    expect(verdicts.reference).toEqual({ verdict: 'PASS' });
    expect(verdicts['naive:retries-blindly']!.verdict).toBe('FAIL');
    expect(verdicts['naive:retries-blindly']!.check).toMatch(/^WIRE-NO-BLIND-RETRY: retried \d+ ms after a Retry-After of 2 s/);
  });

  it('the package ships them: package.json "files" names the folder and excludes none of them', async () => {
    // What npm packs is package.json's "files" (test/docs.test.ts checks that reading against \`npm pack\`).
    const files = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files).toContain('examples/');
    expect(files.filter((f) => f.startsWith('!'))).toEqual(['!**/*.test.*']);
  });
});
