/**
 * Before any test: compile the package into a fresh dist/ (as `npm run build` does) and have every CLI a test
 * starts run that JavaScript (A2A_CONFORMANCE_DIST=1, inherited by the workers and their child
 * processes). A cold CLI run from dist/ costs about 3.7 s against 6 s through tsx, and dist/ is what
 * the package ships. Built here, once, it is never stale and never rewritten while a test reads it
 * (the package test packs it with --ignore-scripts).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';

export default function setup(): void {
  const root = resolve(import.meta.dirname, '..');
  // tsc never deletes an output: a scenario file removed from the sources must not live on in dist/.
  rmSync(resolve(root, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  process.env.A2A_CONFORMANCE_DIST = '1';
}
