/**
 * The mutation check of the property families (issue 13): each family alone, with no hand-written
 * scenario, catches every naive mistake of the rules it covers (and of the cross-cutting rules it
 * provokes): the run fails, the first failure is shrunk, and replaying the printed seed and path
 * gives the same verdict (helpers/property-mutants.ts; this file holds the negotiation family's,
 * property-mutants-*.test.ts the others'). Then one counterexample goes through the CLI: exported,
 * and run as a plain scenario, it fails the same way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { FAMILIES } from '../harness/properties/families/index.js';
import { runMain } from './helpers/main.js';
import { COVERED, mutationCheck } from './helpers/property-mutants.js';

describe('the mutation check covers every family', () => {
  it('covers the mistakes of every rule the families name, and every family has some', () => {
    expect(COVERED.length).toBeGreaterThanOrEqual(19);
    expect(new Set(COVERED.map(([, , f]) => f.id))).toEqual(new Set(FAMILIES.map((f) => f.id)));
  });
});

// The negotiation family's mistakes here; handshake and transport, and trust, in files of their own.
mutationCheck(['negotiation']);

describe('a counterexample through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-prop-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is printed with its replay command, exported, and fails the same way as a plain scenario', async () => {
    const file = join(dir, 'found.scenario.json');
    const props = await runMain([
      'properties',
      '--client',
      'naive:repeats-challenged-call',
      '--family',
      'handshake',
      '--seed',
      '3',
      '--out',
      join(dir, 'p'),
      '--export',
      file,
    ]);
    expect(props.code, props.stderr).toBe(1);
    const results = JSON.parse(readFileSync(join(dir, 'p', 'results.json'), 'utf8')) as RunResults;
    const ce = results.results[0]!;
    expect(props.stdout).toContain(
      `replay: npx a2a-conformance replay --client naive:repeats-challenged-call --family handshake --seed 3 --path ${ce.property!.path}`,
    );
    const exported = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string; expect: string }>;
    expect(exported.map((s) => s.id)).toEqual([ce.id]);
    // The reference client's verdict is the exported scenario's expect.
    expect(['PASS', 'INFORMATIONAL']).toContain(exported[0]!.expect);
    const plain = await runMain(['run', '--client', 'naive:repeats-challenged-call', '--scenarios', file, '--scenario', ce.id, '--out', join(dir, 'r')]);
    const rerun = JSON.parse(readFileSync(join(dir, 'r', 'results.json'), 'utf8')) as RunResults;
    const why = (r: RunResults['results'][number] | undefined) =>
      r
        ? `${r.verdict}: ${r.checks
            .filter((c) => c.verdict === r.verdict)
            .map((c) => `${c.rule} ${c.reason}`)
            .join('; ')}${r.lag?.lagged ? ` [lagged: ${r.lag.why}]` : ''}`
        : 'none';
    expect(
      rerun.results.map((r) => [r.id, r.verdict]),
      `the sweep's ${why(ce)}; the plain run's ${why(rerun.results[0])}`,
    ).toEqual([[ce.id, ce.verdict]]);
    expect(plain.code).toBe(1);
  });
});
