/**
 * The order the test files start in: the longest first (the CPU-bound ones beside ones that mostly
 * wait), so that three workers on two cores end together. vitest orders by the durations it cached in an earlier run; a clean clone (CI) has none
 * and would start the files in name order, leaving the property mutation check, whose files are
 * small, for last: a long tail (214 s against 173 s, measured). The durations behind this list were
 * measured with `npm test` on a 2-core machine; a file not listed runs after those listed.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_FIRST = [
  // Measured with `npm test` on the 2-core machine (2026-12-07), longest first: the CPU-bound mutation sweeps
  // start beside files that mostly wait (child processes, deadlines, a browser).
  'test/property-mutants-handshake.test.ts',
  'test/mutants.test.ts',
  'test/clients-sdk.test.ts',
  'test/property-mutants-wire.test.ts',
  'test/cli.test.ts',
  'test/hostile-3.test.ts',
  'test/package.test.ts',
  'test/property-mutants.test.ts',
  'test/report-browser.test.ts',
  'test/subprocess.test.ts',
  'test/hostile/clients.test.ts',
  'test/config.test.ts',
  'test/worker-pool.test.ts',
  'test/full-runs.test.ts',
  'test/matrix.test.ts',
  'test/leftovers.test.ts',
  'test/hostile/ends.test.ts',
  'test/properties-shards.test.ts',
  'test/property-mutants-trust.test.ts',
  'test/hostile/floods.test.ts',
  'test/examples.test.ts',
  'test/properties.test.ts',
  'test/hostile/cli-input.test.ts',
  'test/a2a-cli.test.ts',
  'test/ci-habits.test.ts',
  'test/runner.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(relative(f.project.config.root, f.moduleId).replace(/\\/g, '/'));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}
