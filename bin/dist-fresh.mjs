// Whether a clone's dist/ is fresh (bin/a2a-conformance.mjs runs it then, not the sources). Plain
// JavaScript beside the bin: it runs before anything of the package is loaded.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Whether the clone's dist/ was built after every file it is built from last changed: its stamp
 * (dist/.built, made by scripts/build.mjs when the build starts) is newer than each source file and
 * each folder holding them, the built-in scenarios, the package and TypeScript configuration, the lock
 * file (the bundle holds the dependencies) and the build script. A few
 * milliseconds for the clone's few hundred files; loading the sources through tsx takes a second.
 * `root`: the package's folder.
 */
export function distIsFresh(root) {
  const built = statSync(join(root, 'dist/.built'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined || !existsSync(join(root, 'dist/harness/cli/main.js'))) return false;
  const newer = (path) => (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) > built;
  // The lock file too: the bundle holds the plain-JavaScript dependencies, so new ones installed make it stale.
  if (['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs'].some((f) => newer(join(root, f)))) return false;
  // The TypeScript the build compiles (tsconfig.build.json's folders), not a folder of another kind
  // inside them (a client example's own dependencies or virtual environment). A folder's own time
  // counts too: a file removed, renamed or moved in (keeping its older time) changes it.
  const changedUnder = (dir) =>
    newer(dir) ||
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory()
        ? !e.name.startsWith('.') && e.name !== 'node_modules' && changedUnder(join(dir, e.name))
        : /\.tsx?$/.test(e.name) && newer(join(dir, e.name)),
    );
  return !['harness', 'peers', 'clients', 'scenarios', 'reports'].some((d) => existsSync(join(root, d)) && changedUnder(join(root, d)));
}
