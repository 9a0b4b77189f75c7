/**
 * Worker threads of the harness (lane workers, the early PKI): started from the compiled module next
 * to the caller (dist/, an installed package), or from its TypeScript source through tsx (a clone, a
 * test), as the caller itself was loaded.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ResourceLimits, Worker } from 'node:worker_threads';

/** The temp folder as this module found it (a run changes no thread's TMPDIR: its client processes get the run's folder, adapters/child.ts). */
const COMPILE_TMP = tmpdir();

/**
 * Starts the module `name` (no extension) beside `caller` (its `import.meta.url`) on a worker thread
 * with `workerData` (and `resourceLimits`, where given).
 */
export function startThread(caller: string, name: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (!caller.endsWith('.ts')) return new Worker(new URL(`${name}.js`, caller), { workerData, ...(resourceLimits ? { resourceLimits } : {}) });
  // tsx's ESM API, as its package.json exports it (`require.resolve` would find the CommonJS build).
  const pkg = createRequire(caller).resolve('tsx/package.json');
  const api = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api']!.import.default;
  const tsx = pathToFileURL(join(dirname(pkg), api)).href;
  const entry = new URL(`${name}.ts`, caller).href;
  // The clone's tsconfig.json, not whatever the working folder holds (as bin/a2a-conformance.mjs registers tsx).
  const tsconfig = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
  // tsx keeps its compile cache in the user's temp folder, set here in case the thread's TMPDIR names
  // another, or every worker would compile every module again.
  const boot = `const runTmp = process.env.TMPDIR; process.env.TMPDIR = ${JSON.stringify(COMPILE_TMP)};
    import(${JSON.stringify(tsx)}).then((m) => { m.register({ tsconfig: ${JSON.stringify(tsconfig)} }); if (runTmp === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = runTmp; return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData, ...(resourceLimits ? { resourceLimits } : {}) });
}
