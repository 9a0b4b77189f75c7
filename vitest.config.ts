import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

/**
 * The unit tier: pure tests, with no listener, no child process, no browser and no dist/ (the oracle
 * on data, the validators, the reporters, the scenario shape, the docs and the architecture). `npm run test:unit`
 * runs it alone, in seconds; `npm test` runs it with the rest. A file is in one tier only.
 */
export const UNIT = [
  'test/architecture.test.ts',
  'test/bindings.test.ts',
  'test/body.test.ts',
  'test/card-validator.test.ts',
  'test/differential.test.ts',
  'test/dist-fresh.test.ts',
  'test/docs-generated.test.ts',
  'test/docs.test.ts',
  'test/glob.test.ts',
  'test/proto-wire.test.ts',
  'test/reporters.test.ts',
  'test/rules.test.ts',
  'test/scenario-shape.test.ts',
  'test/status-line.test.ts',
  'test/wires.test.ts',
];

// The project's own tests. Scenario files (scenarios/**) are not tests of this project: the CLI
// loads them and runs them on its own lanes (harness/runner/engine/lanes.ts).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker keeps the modules it loaded from one test file to the next (module loading was a
    // quarter of the suite's CPU); every test file sets up and tears down what it uses.
    isolate: false,
    // Most tests wait on sockets, deadlines and child processes, not the CPU: three workers on two
    // cores (measured: 151 s against 163 s with two, every test passing either way).
    maxWorkers: 3,
    // The longest files start first (test/sequencer.ts): a clean clone has no durations cached.
    sequence: { sequencer: LongestFirst },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'the rest',
          include: ['test/**/*.test.ts', 'harness/**/*.test.ts', 'peers/**/*.test.ts', 'clients/**/*.test.ts'],
          exclude: [...UNIT, '**/node_modules/**'],
          // Builds dist/ once; the CLIs the tests start run it (test/global-setup.ts).
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
