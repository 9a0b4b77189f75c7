#!/usr/bin/env node
/**
 * `npm run build`: the package's dist/, as it ships.
 *
 * 1. tsc compiles the sources into dist/ (the JavaScript and the type declarations: dist/harness/index.d.ts
 *    is what a vendor's editor reads).
 * 2. esbuild bundles that JavaScript, with the runtime dependencies that are plain JavaScript, into a
 *    few files: the entry points below keep their paths, and what they share lands in dist/chunks/. Node
 *    20 loads an ES module graph file by file (resolve, stat, read, compile), and the CLI's graph was over
 *    a thousand files: each thread that loads the harness (the CLI's, each lane thread's) took about 0.7 s
 *    of it on this machine, 0.3 s bundled (docs/benchmarks.md).
 *
 * The entry points are the modules something starts or imports by path: the CLI, the public API
 * (package.json `exports`), the worker threads, each built-in scenario file (the catalogue imports them
 * by path), and the modules the bench and the test fixtures import from dist/. Shared code lives once,
 * in a chunk, whichever entry loads it. Kept outside the bundle: vite and tsx (they load vendor and
 * source files at run time, each in its own way), and @grpc/grpc-js (it reads its .proto files beside
 * its own modules).
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** Entry points, relative to dist/ (see above). */
export const ENTRIES = [
  'harness/cli/main.js',
  'harness/index.js',
  'harness/runner/engine/lane-worker.js',
  'harness/runner/infrastructure/pki-thread.js',
  // The bench (bench/property-bench.mjs, bench/render-bench.mjs) and the test fixtures import these.
  'harness/runner/properties/run.js',
  'harness/properties/families/index.js',
  'reports/index.js',
  'clients/index.js',
];

/** Packages loaded as they are installed, not bundled (see above). */
export const EXTERNAL = ['vite', 'tsx', 'esbuild', '@grpc/grpc-js'];

const files = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));

export async function build() {
  // The stamp, made now (its time the file system's own): a source changed while the build runs is
  // newer than the build (bin/dist-fresh.mjs). Moved into dist/ last.
  const stamp = join(root, '.build-started');
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  try {
    await compileAndBundle();
    renameSync(stamp, join(dist, '.built'));
  } finally {
    rmSync(stamp, { force: true });
  }
}

async function compileAndBundle() {
  // tsc never deletes an output: a scenario file removed from the sources must not live on in dist/.
  // (A command running from this dist/ meanwhile loses the modules it has not loaded yet: build while none runs.)
  rmSync(dist, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  const { build: esbuild } = await import('esbuild');
  const scenarios = files(join(dist, 'scenarios'))
    .filter((f) => f.endsWith('.scenario.js'))
    .map((f) => relative(dist, f));
  const entryPoints = [...ENTRIES, ...scenarios].map((f) => join(dist, f));
  const staging = join(root, '.bundle-staging');
  rmSync(staging, { recursive: true, force: true });
  try {
    await esbuild({
      entryPoints,
      outbase: dist,
      outdir: staging,
      entryNames: '[dir]/[name]',
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: EXTERNAL,
      logLevel: 'warning',
      // The CommonJS dependencies bundled into ES modules still call require() for Node's own modules.
      banner: { js: "import { createRequire as __a2aRequire } from 'node:module'; const require = __a2aRequire(import.meta.url);" },
    });
    // The compiled modules are replaced by the bundle's files; the type declarations stay.
    for (const f of files(dist)) if (f.endsWith('.js')) rmSync(f);
    for (const f of files(staging)) {
      const to = join(dist, relative(staging, f));
      mkdirSync(dirname(to), { recursive: true });
      renameSync(f, to);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await build();
