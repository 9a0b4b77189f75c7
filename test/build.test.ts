/**
 * The built package (scripts/build.mjs, run by test/global-setup.ts): dist/ is a bundle whose entry
 * points keep their paths, and every path something imports from dist/ is one of them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTRIES } from '../scripts/build.mjs';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';

const DIST = join(PACKAGE_ROOT, 'dist');
const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));

describe('dist/: the bundle', () => {
  const js = files(DIST)
    .filter((f) => f.endsWith('.js'))
    .map((f) => relative(DIST, f));

  it('holds the entry points at their paths, each built-in scenario file, and the shared chunks; no other module', () => {
    const scenarios = files(join(PACKAGE_ROOT, 'scenarios'))
      .filter((f) => f.endsWith('.scenario.ts'))
      .map((f) => relative(PACKAGE_ROOT, f).replace(/\.ts$/, '.js'));
    expect(scenarios.length).toBeGreaterThan(10);
    const chunks = js.filter((f) => f.startsWith('chunks/'));
    expect(chunks.length).toBeGreaterThan(0);
    expect(js.filter((f) => !f.startsWith('chunks/')).sort()).toEqual([...ENTRIES, ...scenarios].sort());
    // The type declarations stay where tsc wrote them: package.json's `types` names one.
    const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { types: string; exports: { '.': { default: string } } };
    expect(statSync(join(PACKAGE_ROOT, pkg.types)).isFile()).toBe(true);
    expect(js).toContain(relative('dist', pkg.exports['.'].default.replace(/^\.\//, '')));
  });

  it('a CommonJS package reached by a dynamic import() keeps only its default export in the bundle: each such chunk is known, and read through it', () => {
    // esbuild makes such a chunk `export default require_x()`: `(await import('x')).name` is undefined
    // there, where Node would have guessed the named export (selfsigned's `generate` was lost so).
    const KNOWN: Record<string, string> = {
      selfsigned: 'harness/pki/index.ts reads module.exports.generate (m.default.generate)',
      graphql: "msw's, loaded only for GraphQL handlers, which the peers never use: no chunk imports it",
    };
    const defaultOnly = js
      .filter((f) => f.startsWith('chunks/') && /^export default require_/m.test(readFileSync(join(DIST, f), 'utf8')))
      .map((f) => f.replace(/^chunks\/|-[A-Z0-9]+\.js$/g, ''));
    expect(defaultOnly.length).toBeGreaterThan(0);
    for (const name of defaultOnly)
      expect(
        Object.keys(KNOWN),
        `dist/chunks/${name}-*.js is a CommonJS package imported dynamically: read it through .default where it is imported, and list it here`,
      ).toContain(name);
  });

  it('every module the bench, the fixtures and the worker threads load from dist/ is an entry point', () => {
    const importers = [...files(join(PACKAGE_ROOT, 'bench')), ...files(join(PACKAGE_ROOT, 'test/fixtures'))].filter((f) => /\.(m?js|ts)$/.test(f));
    const wanted = new Set<string>();
    for (const f of importers) for (const m of readFileSync(f, 'utf8').matchAll(/from '(?:\.\.\/)+dist\/([^']+\.js)'/g)) wanted.add(m[1]!);
    // The threads the harness starts by name (harness/runner/infrastructure/threads.ts).
    for (const f of files(join(PACKAGE_ROOT, 'harness')).filter((x) => x.endsWith('.ts')))
      for (const m of readFileSync(f, 'utf8').matchAll(/startThread\('([^']+)'/g)) wanted.add(`${m[1]!}.js`);
    expect(wanted.size).toBeGreaterThan(4);
    for (const w of wanted) expect(ENTRIES, `${w} is imported from dist/ but is not an entry point of scripts/build.mjs`).toContain(w);
  });
});
