/** Where the package is installed (the repository root in a clone, node_modules/a2a-conformance in a vendor project). */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
