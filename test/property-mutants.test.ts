/**
 * The mutation check of the property families (issue 13): each family alone, with no hand-written
 * scenario, catches every naive mistake of the rules it covers (and of the cross-cutting rules it
 * provokes): the run fails, the first failure is shrunk, and replaying the printed seed and path
 * gives the same verdict. Then one counterexample goes through the CLI: exported, and run as a
 * plain scenario, it fails the same way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MISTAKES } from '../clients/naive/index.js';
import type { RunResults } from '../harness/core/results.js';
import { severity } from '../harness/core/verdict.js';
import { FAMILIES } from '../harness/gen/families/index.js';
import { runProperties } from '../harness/runner/properties.js';
import { runMain } from './helpers/main.js';

const covered = MISTAKES.flatMap((m) => {
  const family = FAMILIES.find((f) => [...f.rules, ...(f.provokes ?? [])].includes(m.caughtBy as never));
  return family ? [[m.name, m, family] as const] : [];
});

describe('each naive mistake a family covers is caught by the family alone', () => {
  it('covers the mistakes of every rule the families name', () => {
    expect(covered.map(([name]) => name).length).toBeGreaterThanOrEqual(14);
  });

  it.each(covered)('naive:%s', async (_, m, family) => {
    const strict = m.atLeast === 'NON_STRICT';
    const run = await runProperties({ client: `naive:${m.name}`, families: [family], runs: 100, seed: 1, strict, shrinkBudgetMs: 2000 });
    const f = run.properties![0]!;
    expect(f.failed, `${family.id} did not catch ${m.name}: ${JSON.stringify(f.verdicts)}`).toBe(true);
    const ce = run.results[0]!;
    // At least what the mistake must get: FAIL or TIMEOUT where it does harm, NON_STRICT (with --strict) where it misses a duty below MUST.
    expect(severity(ce.verdict)).toBeGreaterThanOrEqual(severity(m.atLeast === 'FAIL' ? 'TIMEOUT' : 'NON_STRICT'));
    expect(run.exitCode).toBe(1);
    expect(ce.property!.replay).toContain(`--seed 1 --path ${ce.property!.path}`);
    // The printed seed and path find the same case, with the same verdict.
    const again = await runProperties({ client: `naive:${m.name}`, families: [family], seed: 1, path: ce.property!.path, strict, lanes: 1 });
    expect(again.results[0]!.verdict).toBe(ce.verdict);
    expect(again.results[0]!.card).toMatchObject({ name: (ce.card as { name: string }).name });
  });
});

describe('a counterexample through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-prop-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is printed with its replay command, exported, and fails the same way as a plain scenario', async () => {
    const file = join(dir, 'found.scenario.json');
    const props = await runMain(['properties', '--client', 'naive:repeats-challenged-call', '--family', 'handshake', '--seed', '3', '--out', join(dir, 'p'), '--export', file]);
    expect(props.code, props.stderr).toBe(1);
    const results = JSON.parse(readFileSync(join(dir, 'p', 'results.json'), 'utf8')) as RunResults;
    const ce = results.results[0]!;
    expect(props.stdout).toContain(`replay: npx a2a-conformance replay --client naive:repeats-challenged-call --family handshake --seed 3 --path ${ce.property!.path}`);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string; expect: string }>;
    expect(exported.map((s) => s.id)).toEqual([ce.id]);
    // The reference client's verdict is the exported scenario's expect.
    expect(['PASS', 'INFORMATIONAL']).toContain(exported[0]!.expect);
    const plain = await runMain(['run', '--client', 'naive:repeats-challenged-call', '--scenarios', file, '--scenario', ce.id, '--out', join(dir, 'r')]);
    expect(plain.code).toBe(1);
    const rerun = JSON.parse(readFileSync(join(dir, 'r', 'results.json'), 'utf8')) as RunResults;
    expect(rerun.results.map((r) => [r.id, r.verdict])).toEqual([[ce.id, ce.verdict]]);
  });
});
