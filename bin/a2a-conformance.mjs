#!/usr/bin/env node
// Entry point: loads the TypeScript sources through tsx (no build step), then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli/main.ts');
process.exitCode = await main(process.argv);
