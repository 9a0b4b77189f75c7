/**
 * The installable package: `npm pack` (which compiles it), install the tarball into a fresh ESM and
 * a fresh CommonJS project, and run the CLI there: the built-in scenarios together with a vendor's
 * .ts, .mts and .json scenario files that import the package.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { resultsValidator, ROOT } from './helpers/cli.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

async function sh(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(cmd, args, {
      cwd,
      maxBuffer: 64 << 20,
      timeout: 240_000,
      env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 99, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/**
 * The packed tarball installed once, into `dir` (a package.json with no "type": CommonJS, npm's
 * default), and a vendor project of each kind beside it with the three vendor fixtures (.ts, .mts,
 * .json) in vendor/: Node finds the package from either project in dir/node_modules, as it would in a
 * monorepo. One install, not two: each is about 80 MB of npm's work.
 */
async function vendorProjects(dir: string, tarball: string): Promise<{ esm: string; cjs: string; modules: string }> {
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'vendor-root', private: true }));
  const installed = await sh(npm, ['install', '--prefer-offline', join(dir, tarball)], dir);
  expect(installed.code, installed.stderr).toBe(0);
  const project = async (kind: 'commonjs' | 'module') => {
    const proj = join(dir, kind);
    await mkdir(join(proj, 'vendor'), { recursive: true });
    // No "type" at all is CommonJS, the npm default: the case where Node would read a .ts or .js file as CommonJS.
    await writeFile(join(proj, 'package.json'), JSON.stringify({ name: `vendor-${kind}`, private: true, ...(kind === 'module' ? { type: 'module' } : {}) }));
    for (const f of await readdir(join(ROOT, 'test/fixtures/vendor'))) await cp(join(ROOT, 'test/fixtures/vendor', f), join(proj, 'vendor', f));
    return proj;
  };
  return { esm: await project('module'), cjs: await project('commonjs'), modules: join(dir, 'node_modules') };
}

const VENDOR_IDS = ['acme/expired-certificate', 'acme/untrusted-ca', 'acme/wrong-host'];

describe('the packed package', () => {
  it("installs from its tarball (compiled: no TypeScript sources, no tsx) into an ESM and a CommonJS project; vendor .ts, .mts and .json scenarios run together with the built-in ones (the whole catalogue in the ESM project; one rule's in the CommonJS one)", {
    timeout: 400_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-pack-'));
    // The installed package and the tarball: about 80 MB, removed whether the test passes or not.
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    // dist/ was compiled by test/global-setup.ts: packing without `prepare` never rewrites it under other tests.
    const packed = await sh(npm, ['pack', '--ignore-scripts', '--pack-destination', dir], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    const { esm, cjs, modules } = await vendorProjects(dir, tarball);
    const pkg = join(modules, 'a2a-conformance');
    expect(existsSync(join(pkg, 'dist/harness/cli/main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'harness'))).toBe(false);
    expect(existsSync(join(modules, 'tsx'))).toBe(false);
    const version = await sh('npx', ['a2a-conformance', '--version'], dir);
    expect(version.stdout.trim()).toBe((JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);

    // ESM project: the whole built-in catalogue plus the vendor folder, with the reference client, in one
    // run: every verdict its declared expect, results.json by its schema; `report` renders it again.
    const bin = join(modules, '.bin/a2a-conformance');
    const all = await sh(bin, ['run', '--client', 'reference', '--scenarios', 'vendor', '--out', 'out'], esm);
    expect(all.code, all.stderr + all.stdout).toBe(0);
    const results = JSON.parse(await readFile(join(esm, 'out/results.json'), 'utf8')) as RunResults;
    const validate = resultsValidator();
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    const builtin = JSON.parse((await sh(bin, ['list', '--json'], esm)).stdout) as Array<{ id: string }>;
    expect(builtin.length).toBeGreaterThan(100);
    expect(results.results.map((r) => r.id).sort()).toEqual([...builtin.map((b) => b.id), ...VENDOR_IDS].sort());
    for (const r of results.results) expect(r.verdict, `${r.id}: ${JSON.stringify(r.checks.filter((c) => c.verdict !== 'PASS'))}`).toBe(r.expect);
    expect(results.results.some((r) => r.signatures?.length)).toBe(true);
    const again = await sh(bin, ['report', 'out/results.json', '--out', 'again'], esm);
    expect(again.code, again.stderr).toBe(0);
    const page = await readFile(join(esm, 'again/index.html'), 'utf8');
    expect(page).toContain('<svg');
    // The duties the verdicts cite, with their text, read from the package's docs/ by the bundled renderer.
    expect(page).toContain('id="duty-1"');

    // CommonJS project: built-in and vendor scenarios of one rule together; a client that skips TLS verification fails the vendor ones.
    const some = await sh(
      bin,
      ['run', '--client', 'naive:skips-tls-verify', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--scenarios', 'vendor/*.scenario.*', '--out', 'out'],
      cjs,
    );
    expect(some.code, some.stderr).toBe(1);
    const v = JSON.parse(await readFile(join(cjs, 'out/results.json'), 'utf8')) as RunResults;
    const verdicts = Object.fromEntries(v.results.map((r) => [r.id, r.verdict]));
    for (const id of VENDOR_IDS) expect(verdicts[id], id).toBe('FAIL');
    expect(v.results.filter((r) => !r.id.startsWith('acme/')).length).toBeGreaterThan(0);
    // --no-builtin: the vendor's alone; a pattern that names nothing is an error that says so.
    const alone = await sh(bin, ['list', '--no-builtin', '--scenarios', 'vendor'], cjs);
    expect(
      alone.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[0])
        .sort(),
    ).toEqual(VENDOR_IDS);
    const typo = await sh(bin, ['list', '--scenarios', 'vendr/*.ts'], cjs);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--scenarios "vendr\/\*\.ts" matches no scenario file/);
  });
});
