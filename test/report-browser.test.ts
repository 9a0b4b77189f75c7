/**
 * The HTML report in a real browser (Debian chromium driven by playwright-core), offline: summary
 * numbers agree with results.json, a filter works, a failing scenario's panel opens, and a
 * screenshot is saved under test-output/. With CI=true a missing Chromium fails instead of skipping.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { VERDICT_KINDS } from '../harness/core/verdict.js';
import { writeReports } from '../reports/index.js';
import { ROOT } from './helpers/cli.js';
import { runInProcess } from './helpers/results.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/lib/chromium/chromium'].find((p) => existsSync(p));
const OUT = join(ROOT, 'test-output', 'report-browser');

describe('the HTML report in Chromium', () => {
  it.runIf(!CHROMIUM && process.env.CI === 'true')('has Chromium on CI (.ci/run installs Debian chromium)', () => {
    expect(CHROMIUM, 'Chromium is missing: apt-get install -y --no-install-recommends chromium').toBeDefined();
  });

  let browser: Browser;
  let results: RunResults;
  let html: string;
  beforeAll(async () => {
    if (!CHROMIUM) return;
    results = await runInProcess('naive', [
      'neg-live-input/live-audio-to-batch-peer',
      'neg-live-input/text-task-on-audio-card',
      'neg-push-mtls/fire-and-forget',
      'neg-escalate/known-extension',
      'spec-tls-verify/expired',
      'spec-tls-verify/valid-certificate-control',
    ]);
    html = (await writeReports(results, OUT)).html;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.skipIf(!CHROMIUM)('shows the summary of results.json, filters, opens a failing panel, and saves a screenshot', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const external: string[] = [];
    await page.route(/^(?!file:|data:|about:).*/, (r) => (external.push(r.request().url()), r.abort()));
    await page.goto(pathToFileURL(html).href);
    const onDisk = JSON.parse(await readFile(join(OUT, 'results.json'), 'utf8')) as RunResults;

    // Summary numbers agree with results.json.
    for (const k of VERDICT_KINDS) expect(await page.locator(`[data-count-verdict="${k}"]`).textContent()).toBe(String(onDisk.summary[k]));
    expect(await page.getByTestId('unexpected').textContent()).toBe(String(onDisk.unexpected.length));
    const panels = page.locator('details.scenario');
    expect(await panels.count()).toBe(onDisk.results.length);

    // A filter: hide FAIL, then only FAIL by text.
    const fails = onDisk.results.filter((r) => r.verdict === 'FAIL').length;
    expect(fails).toBeGreaterThan(0);
    await page.locator('[data-filter-verdict="FAIL"]').click();
    expect(await page.locator('details.scenario:not([hidden])').count()).toBe(onDisk.results.length - fails);
    await page.locator('[data-filter-verdict="FAIL"]').click();
    await page.locator('#text-filter').fill('expired');
    expect(await page.locator('details.scenario:not([hidden])').count()).toBe(1);
    await page.locator('#text-filter').fill('');
    // The dialect filter: every scenario here has an A2A v1.0 peer.
    await page.locator('#dialect-filter').selectOption('a2a-v0.3');
    expect(await page.locator('details.scenario:not([hidden])').count()).toBe(0);
    await page.locator('#dialect-filter').selectOption('a2a-v1');
    expect(await page.locator('details.scenario:not([hidden])').count()).toBe(onDisk.results.length);
    await page.locator('#dialect-filter').selectOption('');

    // Open a failing scenario's panel: its checks and its sequence diagram show.
    const failing = page.locator('details.scenario.v-FAIL').first();
    await failing.locator('summary').click();
    expect(await failing.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await expect.poll(() => failing.locator('.checks .badge.v-FAIL').count()).toBeGreaterThan(0);
    expect(await failing.locator('svg').count()).toBe(1);

    await page.screenshot({ path: join(OUT, 'report.png'), fullPage: false });
    await failing.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'report-panel.png'), fullPage: false });
    expect(existsSync(join(OUT, 'report.png'))).toBe(true);
    expect(external).toEqual([]);
  });
});
