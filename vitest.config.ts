import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

// The project's own tests. Scenario files (scenarios/**) are not tests of this project: the CLI
// loads them and runs them on its own lanes (harness/runner/engine/lanes.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'harness/**/*.test.ts', 'peers/**/*.test.ts', 'clients/**/*.test.ts'],
    // Compiles dist/ once; the CLIs the tests start run it (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
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
  },
});
