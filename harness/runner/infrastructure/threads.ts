/**
 * Worker threads of the harness (lane workers, the early PKI): started from the compiled module (dist/,
 * an installed package), or from its TypeScript source through tsx (a clone, a test), as the harness
 * itself was loaded.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CODE_EXT, CODE_ROOT } from './package-root.js';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/** The temp folder as this module found it (a run changes no thread's TMPDIR: its client processes get the run's folder, adapters/child.ts). */
const COMPILE_TMP = tmpdir();

/** The modules the harness starts as threads (each an entry point of the bundle, scripts/build.mjs). */
export type ThreadModule = 'harness/runner/engine/lane-worker' | 'harness/runner/infrastructure/pki-thread';

/**
 * Starts the harness's module `name` (its path from the code root, no extension: say
 * `harness/runner/engine/lane-worker`) on a worker thread with `workerData` (and `resourceLimits`,
 * where given). Named from the code root, not beside its caller: compiled, the caller sits in one of
 * the bundle's chunks (scripts/build.mjs), and the module is an entry point of its own.
 */
export function startThread(name: ThreadModule, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  const limits = resourceLimits ? { resourceLimits } : {};
  if (CODE_EXT === '.js') return new Worker(pathToFileURL(join(CODE_ROOT, `${name}.js`)), { workerData, ...limits });
  // tsx's ESM API, as its package.json exports it (`require.resolve` would find the CommonJS build).
  const pkg = createRequire(join(CODE_ROOT, 'package.json')).resolve('tsx/package.json');
  const api = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!.import.default;
  const tsx = pathToFileURL(join(dirname(pkg), api)).href;
  const entry = pathToFileURL(join(CODE_ROOT, `${name}.ts`)).href;
  // The clone's tsconfig.json, not whatever the working folder holds (as bin/a2a-conformance.mjs registers tsx).
  const tsconfig = join(CODE_ROOT, 'tsconfig.json');
  // tsx keeps its compile cache in the user's temp folder, set here in case the thread's TMPDIR names
  // another, or every worker would compile every module again.
  const boot = `const runTmp = process.env.TMPDIR; process.env.TMPDIR = ${JSON.stringify(COMPILE_TMP)};
    import(${JSON.stringify(tsx)}).then((m) => { m.register({ tsconfig: ${JSON.stringify(tsconfig)} }); if (runTmp === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = runTmp; return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData, ...limits });
}
