#!/usr/bin/env node
// Entry point: loads the TypeScript sources through tsx (no build step), then runs the CLI.
import { register } from 'tsx/esm/api';

// A CLI started from inside a vitest run (a test, a vendor's CI step) must not look like a worker.
for (const k of Object.keys(process.env)) if (k === 'VITEST' || k.startsWith('VITEST_')) delete process.env[k];

register();
const { main } = await import('../harness/cli/main.ts');
const code = await main(process.argv);
process.exitCode = code;
// Stopped by a signal (128 + its number): the run is cleaned up; what vitest still closes must not hold the exit.
if (code >= 128) process.exit(code);
