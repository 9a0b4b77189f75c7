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
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The compiled JavaScript is running (from `dist/`), not the TypeScript sources. */
const COMPILED = basename(CODE_ROOT) === 'dist' && existsSync(join(CODE_ROOT, '..', 'package.json'));
export const PACKAGE_ROOT = COMPILED ? dirname(CODE_ROOT) : CODE_ROOT;
/** The extension of the package's own modules where they run: `.js` compiled, `.ts` from source. */
export const CODE_EXT = COMPILED ? '.js' : '.ts';

/** The package's version, from its package.json. */
export function harnessVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
