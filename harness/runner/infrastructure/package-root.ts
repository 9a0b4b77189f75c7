/**
 * Where the package is, and where its code runs from.
 *
 * - `PACKAGE_ROOT`: the package's folder (the repository root in a clone, node_modules/a2a-conformance
 *   in a vendor project): package.json, docs/ (the published schemas), the README.
 * - `CODE_ROOT`: the folder the running code was loaded from: the same folder when the TypeScript
 *   sources run (a clone, through tsx or vitest), or its `dist/` when the compiled JavaScript runs (an
 *   installed package: `npm pack` compiles it, `prepare`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where this module runs from says which: the nearest folder above it with a package.json is the
 * package; the module is compiled where it sits in that package's dist/. (Found, not counted in
 * folders: compiled, this code sits in one of the bundle's chunks, dist/chunks/, not at its source path.)
 */
const HERE = dirname(fileURLToPath(import.meta.url));
const packageAbove = (dir: string): string => (existsSync(join(dir, 'package.json')) || dirname(dir) === dir ? dir : packageAbove(dirname(dir)));
export const PACKAGE_ROOT = packageAbove(HERE);
/** The compiled JavaScript is running (from `dist/`), not the TypeScript sources. */
const COMPILED = relative(PACKAGE_ROOT, HERE).split(sep)[0] === 'dist';
export const CODE_ROOT = COMPILED ? join(PACKAGE_ROOT, 'dist') : PACKAGE_ROOT;
/** The extension of the package's own modules where they run: `.js` compiled, `.ts` from source. */
export const CODE_EXT = COMPILED ? '.js' : '.ts';

/** The package's version, from its package.json. */
export function harnessVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
