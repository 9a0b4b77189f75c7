#!/usr/bin/env node
// Entry point. An installed package runs its compiled JavaScript (dist/, built by `npm pack` and
// `prepare`). A clone, which has the TypeScript sources, runs its dist/ where it was built after every
// source last changed (`npm ci` builds it), and the sources through tsx where one changed since, so an
// edit is never shadowed by a stale build. A2A_CONFORMANCE_DIST=1 makes a clone run its dist/ whatever
// its age, A2A_CONFORMANCE_DIST=0 the sources.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { distIsFresh } from './dist-fresh.mjs';

// `--version` alone answers from package.json, before the CLI (commander, the commands) or tsx loads:
// a CI step that checks the tool is there pays node's own start and little more (issue 28).
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

// The Node it needs (package.json's engines), checked before anything that could fail on an older one
// (undici, the CLI) is loaded: one line and exit 2, never a crash read as a verdict. For a test, the
// version may be given in A2A_CONFORMANCE_NODE_VERSION.
{
  const wanted = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines?.node ?? '';
  const min = /^>=\s*(\d+)(?:\.(\d+))?/.exec(wanted);
  const found = process.env.A2A_CONFORMANCE_NODE_VERSION || process.versions.node;
  const [major, minor] = found.replace(/^v/, '').split('.').map(Number);
  if (min && (major < Number(min[1]) || (major === Number(min[1]) && minor < Number(min[2] ?? 0)))) {
    process.stderr.write(
      `a2a-conformance: needs Node ${wanted.replace(/\s+/g, ' ')}, found ${found}: install a newer Node (https://nodejs.org) and run it again\n`,
    );
    process.exit(2);
  }
}

// @grpc/grpc-js, under the built-in clients' gRPC calls, names the peer's IP address as the TLS server
// name; Node warns of it (DEP0123) on stderr, where it reads as a problem of the run. It is neither the
// harness's nor the client under test's to fix: that one warning is dropped, every other kept.
{
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const code = rest[0] && typeof rest[0] === 'object' ? rest[0].code : rest[1];
    if (code === 'DEP0123') return;
    return emit.call(process, warning, ...rest);
  };
}

const source = new URL('../harness/cli/main.ts', import.meta.url);
let entry = new URL('../dist/harness/cli/main.js', import.meta.url);
const distWanted = process.env.A2A_CONFORMANCE_DIST;
if (existsSync(source) && distWanted !== '1' && (distWanted === '0' || !distIsFresh(fileURLToPath(new URL('..', import.meta.url))))) {
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
