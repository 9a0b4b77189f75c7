/**
 * Before any test: build the package into a fresh dist/ (as `npm run build` does) and have every CLI a test
 * starts run that JavaScript (A2A_CONFORMANCE_DIST=1, inherited by the workers and their child
 * processes). A cold CLI run from dist/ costs about 3.7 s against 6 s through tsx, and dist/ is what
 * the package ships. Built here, once, it is never stale and never rewritten while a test reads it
 * (the package test packs it with --ignore-scripts).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function setup(): void {
  const root = resolve(import.meta.dirname, '..');
  // A fresh dist/, compiled and bundled (scripts/build.mjs, which removes the old one first).
  execFileSync(process.execPath, [resolve(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  process.env.A2A_CONFORMANCE_DIST = '1';
}
