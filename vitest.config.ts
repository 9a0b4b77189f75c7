import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';

/**
 * The unit tier: pure tests, with no listener, no child process, no browser and no dist/ (the oracle
 * on data, the validators, the reporters, the scenario shape, the docs and the architecture). `npm run test:unit`
 * runs it alone, in seconds; `npm test` runs it with the others. A file is in one tier only.
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
  'test/nemesis.test.ts',
  'test/oracle.test.ts',
  'test/proto-wire.test.ts',
  'test/reporters.test.ts',
  'test/rules.test.ts',
  'test/scenario-shape.test.ts',
  'test/status-line.test.ts',
  'test/wires.test.ts',
];

/**
 * The integration tier: real listeners and peers in this process, one client against one peer at a
 * time (in-process harnesses, bare requests): no CLI, no child process, no whole run or property sweep,
 * no browser and no dist/ (test/architecture.test.ts checks each file for them). `npm run
 * test:integration` runs it alone.
 */
export const INTEGRATION = [
  'test/acts.test.ts',
  'test/assertions.test.ts',
  'test/credential-scope.test.ts',
  'test/dialect-v03.test.ts',
  'test/golden-live.test.ts',
  'test/grpc-binding.test.ts',
  'test/handshake.test.ts',
  'test/hostile/floods.test.ts',
  'test/incidents.test.ts',
  'test/nemesis-kinds.test.ts',
  'test/levels.test.ts',
  'test/payloads.test.ts',
  'test/peers.test.ts',
  'test/push-forge.test.ts',
  'test/push-rules.test.ts',
  'test/reports.test.ts',
  'test/runner.test.ts',
  'test/signing.test.ts',
  'test/stream-bounds.test.ts',
  'test/stream-close.test.ts',
  'test/stream-framing.test.ts',
  'test/tolerant-decoding.test.ts',
  'test/toy-binding.test.ts',
  'test/toy-wire.test.ts',
  'test/version-claim.test.ts',
  'test/wire-grpc.test.ts',
  'test/wire-httpjson.test.ts',
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
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
      {
        extends: true,
        test: {
          // Whole runs and property sweeps, the CLI (in this process and as child processes), the browser, the package.
          name: 'system',
          include: ['test/**/*.test.ts', 'harness/**/*.test.ts', 'peers/**/*.test.ts', 'clients/**/*.test.ts'],
          exclude: [...UNIT, ...INTEGRATION, '**/node_modules/**'],
          // Builds dist/ once; the CLIs the tests start run it (test/global-setup.ts).
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
