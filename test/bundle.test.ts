/**
 * Evidence bundles (docs/ci.md, "Evidence bundles"): `report --bundle` then `verify-bundle` round-trips;
 * a changed byte in any file of the bundle, its manifest included, fails verification; so does a
 * verdict changed with every digest made to fit, because the transcripts are graded again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { RULESET_VERSION } from '../harness/core/oracle/rules.js';
import { makeBundle, MANIFEST, verifyBundle } from '../harness/runner/judge/bundle.js';
import { mainRun, runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';

/** The bundle's entries with one changed: a byte in the middle of `path` flipped. */
function flipped(zip: Uint8Array, path: string): Uint8Array {
  const entries = unzipSync(zip);
  const b = new Uint8Array(entries[path]!);
  const at = Math.floor(b.length / 2);
  b[at] = b[at]! ^ 0x01;
  return zipSync({ ...entries, [path]: b });
}

describe('report --bundle and verify-bundle', () => {
  it('round-trips; every file of the bundle, the manifest included, fails verification with one byte changed', { timeout: 120_000 }, async () => {
    // A client that fails some and passes others: the naive one, on scenarios where its verdicts differ.
    const r = await mainRun(['--client', 'naive', '--grep', '/^(spec-tls-verify|neg-live-input)\\//']);
    const run = r.results as RunResults;
    expect(new Set(run.results.map((x) => x.verdict)).size).toBeGreaterThan(1);
    expect(run.environment?.node).toBe(process.version);
    const dir = testTemp('a2a-bundle-');
    const file = join(dir, 'evidence.zip');
    const made = await runMain(['report', join(r.out, 'results.json'), '--out', join(dir, 'report'), '--bundle', file]);
    expect(made.code, made.stderr).toBe(1); // the naive client's run: its exit code, bundle or not
    const digest = /sha256 ([0-9a-f]{64})/.exec(made.stdout)?.[1];
    expect(digest).toBeDefined();

    const ok = await runMain(['verify-bundle', file]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toContain(`manifest sha256 ${digest}`);
    const n = run.results.length;
    expect(ok.stdout).toContain(`${n} scenario(s) graded again from their transcripts, ${n} with the verdicts recorded`);
    expect(ok.stdout.trim().split('\n').at(-1)).toBe('verified');

    const zip = new Uint8Array(readFileSync(file));
    const entries = Object.keys(unzipSync(zip));
    for (const want of [
      MANIFEST,
      'results/1-results.json',
      'scenarios.json',
      'environment.json',
      'report/index.html',
      'report/results.json',
      `requirements/${RULESET_VERSION}.json`,
    ])
      expect(entries).toContain(want);
    for (const path of entries) {
      const v = verifyBundle(flipped(zip, path), RULESET_VERSION);
      expect(v.problems.length, `${path} changed by one byte`).toBeGreaterThan(0);
    }
    // One byte of the zip itself.
    const torn = new Uint8Array(zip);
    torn[Math.floor(torn.length / 3)]! ^= 0xff;
    expect(verifyBundle(torn, RULESET_VERSION).problems.length).toBeGreaterThan(0);
    // Through the CLI: exit 1, naming the file.
    writeFileSync(join(dir, 'changed.zip'), flipped(zip, 'report/index.html'));
    const bad = await runMain(['verify-bundle', join(dir, 'changed.zip')]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('✗ report/index.html: its SHA-256 is not the manifest');

    // A verdict changed, and every digest and the manifest made to fit: the transcripts say otherwise.
    const unpacked = unzipSync(zip);
    const results = JSON.parse(new TextDecoder().decode(unpacked['results/1-results.json'])) as RunResults;
    const failing = results.results.find((x) => x.verdict === 'FAIL')!;
    for (const c of failing.checks) if (c.verdict === 'FAIL') c.verdict = 'PASS';
    failing.verdict = 'PASS';
    const files = Object.entries(unpacked)
      .filter(([p]) => p !== MANIFEST)
      .map(([path, bytes]) => ({ path, bytes: path === 'results/1-results.json' ? new TextEncoder().encode(JSON.stringify(results)) : bytes }));
    const forged = makeBundle(files, new Date()).zip;
    const v = verifyBundle(forged, RULESET_VERSION);
    expect(v.problems.some((p) => p.includes(`${failing.id}:`) && p.includes('graded again from its transcript'))).toBe(true);

    // Every other edit a forger could make fit its digests to: each fails too.
    const remade = (edit: (r: RunResults, defs: Array<{ id: string }>) => void, drop?: string) => {
      const r = JSON.parse(new TextDecoder().decode(unpacked['results/1-results.json'])) as RunResults;
      const defs = JSON.parse(new TextDecoder().decode(unpacked['scenarios.json'])) as Array<{ id: string }>;
      edit(r, defs);
      const fs = Object.entries(unpacked)
        .filter(([p]) => p !== MANIFEST && p !== drop)
        .map(([path, bytes]) => ({
          path,
          bytes:
            path === 'results/1-results.json'
              ? new TextEncoder().encode(JSON.stringify(r))
              : path === 'scenarios.json'
                ? new TextEncoder().encode(JSON.stringify(defs))
                : bytes,
        }));
      return verifyBundle(makeBundle(fs, new Date()).zip, RULESET_VERSION).problems;
    };
    const harmed = results.results.findIndex((x) => x.checks.some((c) => c.basis === 'harm'));
    expect(harmed).toBeGreaterThanOrEqual(0);
    const cases: Array<[string, string[]]> = [
      ['a harm check made not binding', remade((r) => void (r.results[harmed]!.checks.find((c) => c.basis === 'harm')!.basis = 'not-binding'))],
      ['a verdict made UNSUPPORTED', remade((r) => void (r.results[harmed]!.verdict = 'UNSUPPORTED'))],
      ['a summary edited', remade((r) => void (r.summary.FAIL = 0))],
      ['a definition removed', remade((_r, defs) => void defs.splice(0, 1))],
      ['the definitions removed', remade(() => undefined, 'scenarios.json')],
      ['an older ruleset named', remade((r) => void (r.ruleset = 'seed-000@3+seed-001@1+seed-003@1+a2a-1.0.1@14'))],
      ['a result removed', remade((r) => void r.results.splice(harmed, 1))],
      ['a result made a property case', remade((r) => void (r.results[harmed]!.property = {} as never))],
      ['a requirement scenario dropped from notRun', remade((r) => void r.notRun.splice(0, 1))],
    ];
    for (const [what, problems] of cases) expect(problems.length, what).toBeGreaterThan(0);
    // A zip trick: an entry named as a property every object has.
    expect(verifyBundle(zipSync({ ...unpacked, constructor: new Uint8Array([1]) } as never), RULESET_VERSION).problems[0]).toMatch(/an entry it may not hold/);
  });

  it('refuses what is not a bundle in one line, and --bundle beside --compare or --scenarios without --bundle', async () => {
    const dir = testTemp('a2a-bundle-bad-');
    writeFileSync(join(dir, 'x.zip'), 'not a zip');
    const v = await runMain(['verify-bundle', join(dir, 'x.zip')]);
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(/not a bundle this harness can read/);
    const missing = await runMain(['verify-bundle', join(dir, 'none.zip')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    const both = await runMain(['report', 'a.json', 'b.json', '--compare', '--bundle', join(dir, 'b.zip')]);
    expect(both.code).toBe(2);
    const scen = await runMain(['report', 'a.json', '--scenarios', 'x.scenario.json']);
    expect(scen.code).toBe(2);
  });
});
