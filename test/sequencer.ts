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
  // The CPU-bound mutation sweeps interleaved with files that mostly wait (child processes, deadlines, a browser).
  'test/hostile.test.ts',
  'test/property-mutants.test.ts',
  'test/package.test.ts',
  'test/report-browser.test.ts',
  'test/cli.test.ts',
  'test/mutants.test.ts',
  'test/subprocess.test.ts',
  'test/property-mutants-handshake.test.ts',
  'test/full-runs.test.ts',
  'test/property-mutants-trust.test.ts',
  'test/oracle.test.ts',
  'test/clients.test.ts',
  'test/runner.test.ts',
  'test/ci-recipe.test.ts',
  'test/lag.test.ts',
  'test/properties.test.ts',
  'test/examples.test.ts',
  'test/clients-sdk.test.ts',
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
