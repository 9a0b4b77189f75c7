/**
 * Loads a vendor's scenario modules in the CLI's own process, each as an ES module whatever its
 * package's `type` says and whatever its extension (.ts, .mts, .js, .mjs): through one Vite module
 * runner, the same transform vitest applies when the file runs as a test module. Node's own loader
 * would read a `.ts` or `.js` file of a CommonJS package as CommonJS, and fail on its `import`.
 * The package's own scenarios (compiled, or loaded through tsx in a clone) keep Node's loader.
 */
import { dirname } from 'node:path';

/** Each file's module, or the error it failed to load with. */
export async function importVendorModules(files: string[]): Promise<Map<string, { default?: unknown } | VendorImportError>> {
  const out = new Map<string, { default?: unknown } | VendorImportError>();
  if (files.length === 0) return out;
  const { createServer, createServerModuleRunner } = await import('vite');
  const server = await createServer({
    configFile: false,
    envFile: false,
    logLevel: 'silent',
    root: dirname(files[0]!),
    appType: 'custom',
    clearScreen: false,
    server: { middlewareMode: true, hmr: false, ws: false, watch: null },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
  try {
    for (const file of files) {
      try {
        out.set(file, (await runner.import(file)) as { default?: unknown });
      } catch (err) {
        out.set(file, new VendorImportError(err));
      }
    }
  } finally {
    await runner.close();
    await server.close();
  }
  return out;
}

/** A module that failed to load: its first line of error, said by the catalogue with the file's name. */
export class VendorImportError {
  readonly message: string;
  constructor(err: unknown) {
    this.message = String((err as Error)?.message ?? err).split('\n')[0]!;
  }
}
