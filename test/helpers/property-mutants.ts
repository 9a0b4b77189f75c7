/**
 * The mutation check of the property families (issue 13), shared by the test files that split it
 * (four files, so three test workers share it): each mistake's recorded counterexample replayed, and
 * a few counterexamples found live through the CLI.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../../harness/core/results.js';
import { runMain } from './main.js';
import { COVERED, NEMESIS_COVERED, problems, readCounterexamples } from './counterexamples.js';

/**
 * For each mistake the given families cover: the family alone catches it. Its counterexample is the one
 * `npm run golden` recorded from the family's sweep (test/helpers/counterexamples.ts): the sweep's first
 * failing case, replayed live from the family's seed and path, still fails, and the shrunk one still
 * gives the recorded verdict, at least what the mistake must get (`problems`).
 */
export function mutationCheck(familyIds: string[]): void {
  const mine = [...COVERED, ...NEMESIS_COVERED].filter(([, , f]) => familyIds.includes(f.id));
  const recorded = readCounterexamples();
  describe(`each naive mistake ${familyIds.join(' and ')} cover${familyIds.length === 1 ? 's' : ''} is caught by the family alone (its recorded counterexample, replayed)`, () => {
    it.each(mine)('naive:%s', async (name, m, family, key) => {
      const found = await problems(m, family, recorded[key]);
      expect(found, `naive:${name}: if the family or the client changed, run npm run golden`).toEqual([]);
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
