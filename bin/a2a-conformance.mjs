#!/usr/bin/env node
// Entry point. An installed package runs its compiled JavaScript (dist/, built by `npm pack` and
// `prepare`); a clone, which has the TypeScript sources, runs them through tsx, so an edit is never
// shadowed by a stale build. A2A_CONFORMANCE_DIST=1 makes a clone run its dist/ (what ships).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

// `--version` alone answers from package.json, before the CLI (commander, the commands) or tsx loads:
// a CI step that checks the tool is there pays node's own start and little more (issue 28).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

const source = new URL('../harness/cli/main.ts', import.meta.url);
let entry = new URL('../dist/harness/cli/main.js', import.meta.url);
if (existsSync(source) && process.env.A2A_CONFORMANCE_DIST !== '1') {
  // tsx keeps its compile cache in the temp folder, and makes it (parents too) before anything of ours
  // runs: a TMPDIR that is not a folder would end in its stack trace. The CLI checks it again itself.
  if (!statSync(tmpdir(), { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`a2a-conformance: the temp folder ${tmpdir()} cannot be used (not a folder): set TMPDIR to a folder you can write, or unset it\n`);
    process.exit(2);
  }
  // The clone's own tsconfig.json, wherever the command is run from: tsx would take the one in the
  // working folder (or none), and compile the report's JSX for React instead of preact.
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  entry = source;
}
const { main } = await import(entry.href);
const code = await main(process.argv);
process.exitCode = code;
// Stopped by a signal (128 + its number): the run is cleaned up; a scenario still winding down on a lane must not hold the exit.
if (code >= 128) process.exit(code);
