/**
 * Regenerates the README's screenshot (docs/report.png): a real run of one naive mistake over the
 * built-in catalogue, its report opened in Debian's Chromium with only the unexpected verdicts shown
 * and the first of them open. `npm run docs:screenshot`; needs chromium (apt-get install chromium).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(import.meta.dirname, '..');
const CLIENT = process.argv[2] ?? 'naive:registers-unusable-push';
const chromiumPath = ['/usr/bin/chromium', '/usr/lib/chromium/chromium'].find((p) => existsSync(p));
if (!chromiumPath) {
  console.error('readme-screenshot: Chromium is missing (apt-get install -y --no-install-recommends chromium)');
  process.exit(2);
}

const out = mkdtempSync(join(tmpdir(), 'a2a-screenshot-'));
try {
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'bin/a2a-conformance.mjs'), 'run', '--client', CLIENT, '--dialect', 'a2a-v1', '--out', join(out, 'report'), '--reporter', 'dot'],
      { stdio: 'inherit' },
    );
  } catch {
    // exit 1: the naive client gets unexpected verdicts, which is what the picture shows
  }
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
  const page = await browser.newPage({ viewport: { width: 1300, height: 1500 } });
  await page.goto(pathToFileURL(join(out, 'report', 'index.html')).href);
  await page.locator('#only-unexpected').check();
  const first = page.locator('details.scenario.unexpected').first();
  await first.locator(':scope > summary').click();
  await page.screenshot({ path: join(ROOT, 'docs/report.png'), fullPage: false });
  await browser.close();
  console.log(`docs/report.png: the report of ${CLIENT}, only the unexpected verdicts, the first one open`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
