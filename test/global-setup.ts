/**
 * Before any test: a fresh dist/ (as `npm run build` makes it), and every CLI a test starts runs that
 * JavaScript (A2A_CONFORMANCE_DIST=1, inherited by the workers and their child processes). A cold CLI
 * run from dist/ costs about 3.7 s against 6 s through tsx, and dist/ is what the package ships. Built
 * here unless it is already fresh (bin/dist-fresh.mjs: built after every source file last changed, as
 * `npm ci` leaves it; the build costs 12 s before any test can start), never rewritten while a test
 * reads it (the package test packs it with --ignore-scripts). A2A_CONFORMANCE_REBUILD=1 builds it anyway.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export default async function setup(): Promise<void> {
  const root = resolve(import.meta.dirname, '..');
  const { distIsFresh } = (await import(pathToFileURL(resolve(root, 'bin/dist-fresh.mjs')).href)) as { distIsFresh(root: string): boolean };
  // A fresh dist/, compiled and bundled (scripts/build.mjs, which removes the old one first).
  if (process.env.A2A_CONFORMANCE_REBUILD === '1' || !distIsFresh(root))
    execFileSync(process.execPath, [resolve(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  process.env.A2A_CONFORMANCE_DIST = '1';
}
