/**
 * The mutation check of the property families (issue 13), shared by the test files that split it
 * (three files, so three test workers share it).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../../harness/core/results.js';
import { runMain } from './main.js';
import { MISTAKES } from '../../clients/naive/index.js';
import { severity } from '../../harness/core/verdict.js';
import { FAMILIES } from '../../harness/properties/families/index.js';
import { runProperties } from '../../harness/runner/properties/run.js';

/** Every naive mistake with the family that covers its rule (by the rules it names, or those it provokes). */
export const COVERED = MISTAKES.flatMap((m) => {
  const family = FAMILIES.find((f) => [...f.rules, ...(f.provokes ?? [])].includes(m.caughtBy as never));
  return family ? [[m.name, m, family] as const] : [];
});

/** For each mistake the given families cover: the family alone catches it, shrinks it, and the replay agrees. */
export function mutationCheck(familyIds: string[]): void {
  const mine = COVERED.filter(([, , f]) => familyIds.includes(f.id));
  describe(`each naive mistake ${familyIds.join(' and ')} cover${familyIds.length === 1 ? 's' : ''} is caught by the family alone`, () => {
    it.each(mine)('naive:%s', async (_, m, family) => {
      const strict = m.atLeast === 'NON_STRICT';
      // Four lanes, not the default sixteen: three test files sweep at once on two cores, and a case timed
      // out by that load alone (found under load: a TIMEOUT the replay did not repeat) is not the mistake.
      const run = await runProperties({ client: `naive:${m.name}`, families: [family], runs: 100, seed: 1, strict, shrinkBudgetMs: 1000, lanes: 4 });
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
}

/** A counterexample of `client` in `family` through the CLI: printed with its replay command, exported, and run as a plain scenario it fails the same way. */
export function exportCheck(client: string, family: string, seed: number): void {
  describe(`a counterexample of ${family} through the CLI`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-prop-cli-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    // A sweep, an export and a run through the CLI: on a loaded machine more than the default minute.
    it(`${client}: printed with its replay command, exported, and fails the same way as a plain scenario`, { timeout: 300_000 }, async () => {
      const file = join(dir, 'found.scenario.json');
      const props = await runMain(['properties', '--client', client, '--family', family, '--seed', String(seed), '--out', join(dir, 'p'), '--export', file]);
      expect(props.code, props.stderr).toBe(1);
      const results = JSON.parse(readFileSync(join(dir, 'p', 'results.json'), 'utf8')) as RunResults;
      const ce = results.results[0]!;
      expect(props.stdout).toContain(`replay: npx a2a-conformance replay --client ${client} --family ${family} --seed ${seed} --path ${ce.property!.path}`);
      const exported = JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string; expect: string }>;
      expect(exported.map((s) => s.id)).toEqual([ce.id]);
      // The reference client's verdict is the exported scenario's expect.
      expect(['PASS', 'INFORMATIONAL']).toContain(exported[0]!.expect);
      const plain = await runMain(['run', '--client', client, '--scenarios', file, '--scenario', ce.id, '--out', join(dir, 'r')]);
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
}
