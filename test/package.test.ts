/**
 * The installable package: `npm pack`, install the tarball into a fresh project, and run the CLI
 * there, with the built-in scenarios and with a vendor scenario file that imports the package.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { ROOT } from './helpers/cli.js';

const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

async function sh(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd, maxBuffer: 64 << 20, timeout: 240_000, env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 99, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the packed package', () => {
  it('installs from its tarball into a fresh project and runs there, with a vendor scenario folder', { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'a2a-pack-'));
    const packed = await sh(npm, ['pack', '--pack-destination', dir], ROOT);
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    const proj = join(dir, 'proj');
    await mkdir(join(proj, 'vendor'), { recursive: true });
    await writeFile(join(proj, 'package.json'), JSON.stringify({ name: 'vendor-project', private: true, type: 'module' }));
    await cp(join(ROOT, 'test/fixtures/vendor/acme.scenario.ts'), join(proj, 'vendor/acme.scenario.ts'));
    const installed = await sh(npm, ['install', '--prefer-offline', join(dir, tarball)], proj);
    expect(installed.code, installed.stderr).toBe(0);

    const ref = await sh('npx', ['a2a-conformance', 'run', '--client', 'reference', '--rule', 'SPEC-TLS-VERIFY', '--dialect', 'a2a-v1', '--out', 'out'], proj);
    expect(ref.code, ref.stderr + ref.stdout).toBe(0);
    const results = JSON.parse(await readFile(join(proj, 'out/results.json'), 'utf8')) as RunResults;
    expect(results.results.length).toBe(4);
    expect(await readFile(join(proj, 'out/index.html'), 'utf8')).toContain('<svg');

    const vendor = await sh('npx', ['a2a-conformance', 'run', '--client', 'naive:skips-tls-verify', '--scenarios', 'vendor/*.scenario.ts', '--out', 'out-vendor'], proj);
    expect(vendor.code, vendor.stderr).toBe(1);
    const v = JSON.parse(await readFile(join(proj, 'out-vendor/results.json'), 'utf8')) as RunResults;
    expect(v.results.map((r) => [r.id, r.verdict])).toEqual([['acme/expired-certificate', 'FAIL']]);
  });
});
