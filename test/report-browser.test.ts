/**
 * The HTML report in a real browser (Debian chromium driven by playwright-core), offline: summary
 * numbers agree with results.json, a filter works, a failing scenario's panel opens, the card is the
 * bytes served, the sequence diagrams have their own arrowheads, the layout holds at 390 px, and a
 * merged report links only to what it holds; the conformance matrix's page at 1400 and 390 px.
 * Screenshots at 1400 and 390 px go to test-output/report-browser/ and test-output/matrix-browser/. With CI=true a missing Chromium fails instead of skipping.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { VERDICT_KINDS } from '../harness/core/verdict.js';
import { writeReports } from '../reports/index.js';
import { mergeResults } from '../harness/runner/judge/merge.js';
import { buildMatrix, type Matrix } from '../harness/runner/judge/matrix.js';
import { renderMatrixReports } from '../reports/matrix.js';
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
      // A card literal with undefined keys (securitySchemes: undefined): the view must not show them.
      'neg-push-mtls/no-signal',
      // A card whose highlighted field sits below the card box's first screen.
      'hs-skill-override/text-to-json-skill',
      // A description with a long unbroken token, and a wide media-type table (they overflowed at 390 px).
      'trust-decode/drift',
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

    // A filter by text.
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
    await failing.locator(':scope > summary').click();
    expect(await failing.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    await expect.poll(() => failing.locator('.checks .badge.v-FAIL').count()).toBeGreaterThan(0);
    expect(await failing.locator('svg').count()).toBe(1);

    await page.screenshot({ path: join(OUT, 'report-1400.png'), fullPage: false });
    await failing.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'report-1400-panel.png'), fullPage: false });
    expect(existsSync(join(OUT, 'report-1400.png'))).toBe(true);
    expect(external).toEqual([]);
    await page.close();
  });

  for (const width of [1400, 390])
    it.skipIf(!CHROMIUM)(`at ${width} px, a verdict chip shows only its verdict (as Playwright's report does), a second click shows all again`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(pathToFileURL(html).href);
      const shown = () => page.locator('details.scenario:not([hidden])').evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')));
      const count = (k: string) => results.results.filter((r) => r.verdict === k).length;
      expect(count('FAIL')).toBeGreaterThan(0);
      expect(count('INFORMATIONAL')).toBeGreaterThan(0);
      const chip = (k: string) => page.locator(`[data-filter-verdict="${k}"]`);
      expect(await chip('').getAttribute('aria-pressed')).toBe('true');
      await chip('FAIL').click();
      expect(await shown()).toEqual(Array(count('FAIL')).fill('FAIL'));
      expect(await chip('FAIL').getAttribute('aria-pressed')).toBe('true');
      expect(await chip('').getAttribute('aria-pressed')).toBe('false');
      // Another chip replaces the selection; with Shift it adds to it.
      await chip('INFORMATIONAL').click();
      expect(await shown()).toEqual(Array(count('INFORMATIONAL')).fill('INFORMATIONAL'));
      await chip('FAIL').click({ modifiers: ['Shift'] });
      expect((await shown()).length).toBe(count('FAIL') + count('INFORMATIONAL'));
      await chip('FAIL').click();
      await chip('FAIL').click();
      expect((await shown()).length).toBe(results.results.length);
      expect(await chip('').getAttribute('aria-pressed')).toBe('true');
      await chip('FAIL').click();
      await chip('').click();
      expect((await shown()).length).toBe(results.results.length);
      await chip('FAIL').click();
      await page.screenshot({ path: join(OUT, `report-${width}-chip.png`), fullPage: false });
      await page.close();
    });

  for (const width of [1400, 390])
    it.skipIf(!CHROMIUM)(
      `at ${width} px, nothing in an expanded scenario is wider than its box, and the card scrolls down to its highlighted field with its keys in sight`,
      async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(pathToFileURL(html).href);
        // Every panel open; every element of its body measured, scrolling boxes too (a box that scrolls
        // sideways hides the start of its lines). The diagram alone may scroll sideways, at 390 px only.
        const overflowing = await page.evaluate((narrow) => {
          const out: string[] = [];
          for (const d of Array.from(document.querySelectorAll<HTMLDetailsElement>('details.scenario'))) {
            d.open = true;
            for (const el of [d, ...Array.from(d.querySelectorAll<HTMLElement>('.body, .body *'))]) {
              if (el.closest('svg') || (narrow && el.closest('.diagram'))) continue;
              if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
                out.push(`${d.id}: <${el.tagName.toLowerCase()} class="${el.className}"> ${el.scrollWidth} > ${el.clientWidth}`);
            }
          }
          return out;
        }, width < 600);
        expect(overflowing).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

        // The card whose highlighted field is far down: the box scrolls down to it, never sideways.
        await page.evaluate(() =>
          document.querySelectorAll<HTMLDetailsElement>('details.scenario').forEach((d) => {
            d.open = false;
          }),
        );
        const deep = page.locator('details.scenario').filter({ has: page.locator('code.sid:text-is("hs-skill-override/text-to-json-skill")') });
        const pre = deep.locator('.card-bytes + pre.json');
        await deep.locator(':scope > summary').click();
        await expect.poll(() => pre.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
        expect(await pre.evaluate((el) => [el.scrollLeft, el.scrollWidth <= el.clientWidth])).toEqual([0, true]);
        await pre.scrollIntoViewIfNeeded();
        // The highlighted value and the key it sits under are inside the box, both ways: nothing of the key is cut off at the left.
        const seen = await pre.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const mark = el.querySelector('mark')!;
          const key = mark.previousElementSibling?.classList.contains('k') ? mark.previousElementSibling : mark.querySelector('.k');
          const inside = (r: DOMRect) => r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom;
          return {
            key: key?.textContent,
            keyInside: !!key && inside(key.getBoundingClientRect()),
            markTopInside: mark.getClientRects()[0]!.top >= box.top && mark.getClientRects()[0]!.bottom <= box.bottom,
          };
        });
        expect(seen).toMatchObject({ keyInside: true, markTopInside: true });
        await page.screenshot({ path: join(OUT, `report-${width}-card.png`), fullPage: false });
        await page.close();
      },
    );

  for (const width of [1400, 390])
    it.skipIf(!CHROMIUM)(
      `at ${width} px, every matrix cell is read whole (no text clipped or off screen), and a reason the unexpected share is said once`,
      async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(pathToFileURL(html).href);
        const clipped = await page.evaluate((w) => {
          const out: string[] = [];
          const wrap = document.querySelector<HTMLElement>('.matrix-wrap')!;
          if (wrap.scrollWidth > wrap.clientWidth + 1) out.push(`the matrix scrolls sideways: ${wrap.scrollWidth} > ${wrap.clientWidth}`);
          for (const el of Array.from(document.querySelectorAll<HTMLElement>('.matrix .cell, .matrix .cell-btn, .matrix .cc, .matrix .rule-name'))) {
            const r = el.getBoundingClientRect();
            if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) out.push(`${el.className} "${el.textContent}" clipped`);
            if (r.left < 0 || r.right > w || r.width === 0) out.push(`${el.className} "${el.textContent}" off screen: ${r.left}..${r.right}`);
          }
          return out;
        }, width);
        expect(clipped).toEqual([]);
        // Each cell says which task class it is, in a table's header or (narrow) beside its counts.
        const labels = await page
          .locator('.matrix td.cell')
          .evaluateAll((els) =>
            els.map(
              (e) =>
                (getComputedStyle(e, '::before').content !== 'none' ? getComputedStyle(e, '::before').content : '') ||
                document.querySelector('.matrix thead')!.checkVisibility(),
            ),
          );
        for (const l of labels) expect(l === true || (typeof l === 'string' && l.length > 2)).toBe(true);
        await page.locator('.matrix').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(OUT, `report-${width}-matrix.png`), fullPage: false });

        const sentence = 'FAIL is never expected without an expectations file';
        const fails = results.unexpected.filter((u) => u.verdict === 'FAIL').length;
        expect(fails).toBeGreaterThan(1);
        // innerText, not textContent: the sentence is counted as the reader sees it (hidden text left out).
        // biome-ignore lint/performance/useDomNodeTextContent: what is rendered is what is counted
        const text = await page.evaluate(() => document.body.innerText);
        expect(text.split(sentence).length - 1).toBe(1);
        expect(await page.getByTestId('why-shared').textContent()).toContain(`${fails} × ${sentence}`);
        expect(await page.locator('.unexpected-list li').count()).toBe(results.unexpected.length);
        await page.close();
      },
    );

  it.skipIf(!CHROMIUM)('matrix cells are counts per verdict, the worst first, and add up to the scenarios', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(pathToFileURL(html).href);
    const cells = await page
      .locator('.cell-btn')
      .evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', counts: e.getAttribute('data-counts') ?? '' })));
    let total = 0;
    for (const c of cells) {
      expect(c.text).toMatch(/^\d+ [A-Z_]+( · \d+ [A-Z_]+)*$/);
      expect(c.text).not.toContain('/');
      const parsed = c.counts.split(',').map((x) => x.split('=') as [string, string]);
      expect(c.text).toBe(parsed.map(([k, n]) => `${n} ${k}`).join(' · '));
      total += parsed.reduce((n, [, x]) => n + Number(x), 0);
    }
    expect(total).toBe(results.results.length);
    await page.close();
  });

  it.skipIf(!CHROMIUM)('shows each card as the bytes the peer served (no undefined keys), and brings its highlighted field into view on opening', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(pathToFileURL(html).href);
    for (const r of results.results) {
      const panel = page.locator(`details.scenario[data-rule="${r.rule}"]`).filter({ has: page.locator(`code.sid:text-is("${r.id}")`) });
      const card = panel.locator('.card-bytes + pre.json');
      const text = (await card.textContent())!;
      expect(text, r.id).not.toMatch(/:\s*,|:\s*\n\s*[}\]]|undefined/);
      // The text is the card as results.json holds it, pretty-printed: the bytes the peer served.
      expect(text).toBe(JSON.stringify(JSON.parse(JSON.stringify(r.card)), null, 2));
      const digest = createHash('sha256').update(text).digest('hex');
      expect(await panel.locator('.card-bytes').getAttribute('data-sha256')).toBe(digest);
      const served = r.transcript.find((e) => e.kind === 'http' && e.bodyDigest === digest);
      if (r.transcript.some((e) => e.kind === 'http' && e.path.endsWith('/.well-known/agent-card.json') && e.status === 200))
        expect(served, `${r.id}: the peer recorded serving these bytes`).toBeDefined();
      if (served) expect(await panel.locator('.card-bytes').textContent()).toContain(`byte for byte what the client was served at #${served.seq}`);
    }
    const deep = page.locator('details.scenario').filter({ has: page.locator('code.sid:text-is("hs-skill-override/text-to-json-skill")') });
    const pre = deep.locator('.card-bytes + pre.json');
    await deep.locator(':scope > summary').click();
    await expect.poll(() => pre.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    const [box, mark] = await Promise.all([pre.boundingBox(), pre.locator('mark').first().boundingBox()]);
    expect(mark!.y).toBeGreaterThanOrEqual(box!.y);
    expect(mark!.y + mark!.height).toBeLessThanOrEqual(box!.y + box!.height);
    await page.close();
  });

  it.skipIf(!CHROMIUM)(
    'draws arrowheads in every diagram (its own markers), requests apart from responses, and a bad certificate the client accepted',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(pathToFileURL(html).href);
      // Every marker id is unique, and every arrow's head is defined in its own SVG.
      const problems = await page.evaluate(() => {
        const out: string[] = [];
        const ids = Array.from(document.querySelectorAll('marker')).map((m) => m.id);
        if (new Set(ids).size !== ids.length) out.push('duplicate marker ids');
        for (const line of Array.from(document.querySelectorAll('svg line[marker-end]'))) {
          const id = /url\(#(.+)\)/.exec(line.getAttribute('marker-end') ?? '')?.[1];
          const marker = id ? document.getElementById(id) : null;
          if (!marker || marker.closest('svg') !== line.closest('svg')) out.push(`arrow without its own head: ${id}`);
        }
        return out;
      });
      expect(problems).toEqual([]);
      const expired = page.locator('details.scenario').filter({ has: page.locator('code.sid:text-is("spec-tls-verify/expired")') });
      await expired.locator(':scope > summary').click();
      const requests = expired.locator('svg g[data-kind="request"] line');
      const responses = expired.locator('svg g[data-kind="response"] line');
      expect(await requests.count()).toBeGreaterThan(0);
      expect(await responses.count()).toBeGreaterThan(0);
      for (const l of await requests.all()) expect(await l.getAttribute('stroke-dasharray')).toBeNull();
      for (const l of await responses.all()) expect(await l.getAttribute('stroke-dasharray')).toBe('6 4');
      // The naive client accepts the expired certificate: that handshake is drawn, in red.
      expect(
        await expired.locator('svg g.ev.fail[data-kind="request"] text.label', { hasText: 'TLS handshake accepted: an expired certificate' }).count(),
      ).toBeGreaterThan(0);
      await expired.locator('svg').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(OUT, 'report-1400-diagram.png'), fullPage: false });
      await page.close();
    },
  );

  for (const width of [1400, 390])
    it.skipIf(!CHROMIUM)(`at ${width} px, every diagram numbers each arrow on its own, keeps its labels off the lifelines, and fills its box`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 } });
      await page.goto(pathToFileURL(html).href);
      const problems = await page.evaluate(() => {
        const out: string[] = [];
        for (const d of Array.from(document.querySelectorAll<HTMLDetailsElement>('details.scenario'))) {
          d.open = true;
          const svg = d.querySelector('svg');
          if (!svg) continue;
          const steps = Array.from(svg.querySelectorAll('g.ev text.seq')).map((t) => t.textContent);
          if (new Set(steps).size !== steps.length) out.push(`${d.id}: a step number twice`);
          // A response is its own step, not its request's number again.
          for (const g of Array.from(svg.querySelectorAll('g.ev[data-kind="response"]'))) {
            const prev = g.previousElementSibling;
            if (prev?.querySelector('text.seq')?.textContent === g.querySelector('text.seq')?.textContent)
              out.push(`${d.id}: a response numbered as its request`);
          }
          const lifelines = Array.from(svg.querySelectorAll('line.lifeline')).map((l) => l.getBoundingClientRect().left);
          for (const t of Array.from(svg.querySelectorAll('text.label, text.lane'))) {
            const r = t.getBoundingClientRect();
            const crossed = lifelines.filter((x) => x > r.left + 1 && x < r.right - 1);
            // A lane's name sits centred over its own lifeline; no other line may cross it, nor any line a label.
            if (t.classList.contains('lane') ? crossed.length > 1 : crossed.length > 0) out.push(`${d.id}: "${t.textContent}" crosses a lifeline`);
          }
          const box = svg.closest('.diagram')!;
          if (svg.getBoundingClientRect().width < box.clientWidth - 2)
            out.push(`${d.id}: the diagram leaves its box's width unused (${svg.getBoundingClientRect().width} of ${box.clientWidth})`);
        }
        return out;
      });
      expect(problems).toEqual([]);
      const expired = page.locator('details.scenario').filter({ has: page.locator('code.sid:text-is("spec-tls-verify/expired")') });
      // The label ends with the transcript's sequence number, which the checks' evidence cites.
      expect(await expired.locator('svg g[data-kind="response"] text.label').first().textContent()).toMatch(/ · #\d+/);
      await expired.locator('svg').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(OUT, `report-${width}-sequence.png`), fullPage: false });
      await page.close();
    });

  it.skipIf(!CHROMIUM)('shows what the peer answered: a response arrow links to its body, which is the body results.json keeps', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(pathToFileURL(html).href);
    // The first JSON-RPC answer with a body: its arrow's label is a link to the body under the diagram.
    const answeredIn = (x: (typeof results.results)[number]) => x.transcript.find((e) => e.kind === 'http' && !!e.rpc && e.responseBody?.json !== undefined);
    const r = results.results.find((x) => answeredIn(x));
    expect(r, 'a scenario with a JSON-RPC answer kept with its body').toBeDefined();
    const answered = answeredIn(r!);
    const panel = page.locator('details.scenario').filter({ has: page.locator(`code.sid:text-is("${r!.id}")`) });
    await panel.locator(':scope > summary').click();
    const link = panel.locator(`svg a[href$="-body-${answered!.seq}"]`);
    expect(await link.count()).toBe(1);
    await link.click();
    const body = panel.locator(`[id$="-body-${answered!.seq}"]`);
    await expect.poll(() => body.isVisible()).toBe(true);
    const shown = JSON.parse((await body.locator('pre').textContent()) ?? 'null') as unknown;
    expect(shown).toEqual((answered as { responseBody: { json: unknown } }).responseBody.json);
    await body.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'report-1400-bodies.png'), fullPage: false });
    await page.close();
  });

  it.skipIf(!CHROMIUM)('works at 390 px: nothing wider than the screen outside its own scrolling box', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await page.goto(pathToFileURL(html).href);
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await width()).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(OUT, 'report-390.png'), fullPage: false });
    const failing = page.locator('details.scenario.v-FAIL').first();
    await failing.locator(':scope > summary').click();
    expect(await width()).toBeLessThanOrEqual(390);
    await failing.locator('.checks').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUT, 'report-390-panel.png'), fullPage: false });
    expect(existsSync(join(OUT, 'report-390.png'))).toBe(true);
    await page.close();
  });

  it.skipIf(!CHROMIUM)(
    'a merged report with a shard missing says it is incomplete, and links only to scenarios it holds (a stale expectation has none)',
    async () => {
      const half = Math.ceil(results.results.length / 2);
      const stale = { schema: 'a2a-conformance/expectations@1', entries: [{ scenario: 'gone/renamed', verdict: 'FAIL' as const, reason: 'known' }] };
      const shard = {
        ...results,
        shard: '1/2',
        expectations: stale,
        results: results.results.slice(0, half),
        notRun: results.results.slice(half).map((x) => ({ id: x.id, reason: 'in another shard than 1/2' })),
      };
      const merged = mergeResults([shard]);
      expect(merged.incomplete?.shards).toEqual(['2/2']);
      expect(merged.unexpected.some((u) => !merged.results.some((x) => x.id === u.id))).toBe(true);
      const file = (await writeReports(merged, join(OUT, 'merged'))).html;
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(pathToFileURL(file).href);
      const dangling = await page.evaluate(() =>
        Array.from(document.querySelectorAll('a[href^="#"]'))
          .map((a) => a.getAttribute('href')!)
          .filter((h) => !document.getElementById(h.slice(1))),
      );
      expect(dangling).toEqual([]);
      const items = page.locator('.unexpected-list li');
      expect(await items.count()).toBe(merged.unexpected.length);
      expect(await page.locator('.unexpected-list li a').count()).toBe(merged.unexpected.filter((u) => merged.results.some((x) => x.id === u.id)).length);
      expect(await page.getByTestId('incomplete').textContent()).toContain(
        `incomplete: ${results.results.length - half} scenario(s) of shard(s) 2/2 are missing from the merge`,
      );
      await page.close();
    },
  );
});

describe('the conformance matrix in Chromium', () => {
  let browser: Browser;
  let file: string;
  let matrix: Matrix;
  beforeAll(async () => {
    if (!CHROMIUM) return;
    const ids = [
      'neg-live-input/live-audio-to-batch-peer',
      'neg-escalate/known-extension',
      'spec-tls-verify/expired',
      'trust-decode/drift',
      'neg-push-mtls/no-signal',
    ];
    const built = buildMatrix([await runInProcess('reference', ids), await runInProcess('naive', ids)]);
    matrix = built.matrix;
    const dir = join(ROOT, 'test-output', 'matrix-browser');
    await rm(dir, { recursive: true, force: true });
    for (const f of renderMatrixReports(built.matrix, built.entries).files) {
      await mkdir(dirname(join(dir, f.name)), { recursive: true });
      await writeFile(join(dir, f.name), f.text);
    }
    file = join(dir, 'index.html');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const width of [1400, 390])
    it.skipIf(!CHROMIUM)(
      `at ${width} px: each client's tier and badge as matrix.json has them, the grids' rows, nothing wider than the page but a grid's own scroller`,
      async () => {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        const external: string[] = [];
        await page.route(/^(?!file:|data:|about:).*/, (r) => (external.push(r.request().url()), r.abort()));
        await page.goto(pathToFileURL(file).href);
        for (const c of matrix.clients) {
          const card = page.locator(`section.client[data-client="${c.id}"]`);
          expect(await card.getAttribute('data-tier')).toBe(c.tier.label);
          // The badge is inline (data:) and drawn: the page needs no other file.
          expect(await card.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
          // At its own size, whole: at most 200 px, never scaled into a strip.
          const [natural, shown] = await card.locator('img').evaluate((img: HTMLImageElement) => [img.naturalWidth, img.getBoundingClientRect().width]);
          expect(natural).toBeLessThanOrEqual(200);
          expect(Math.round(shown!)).toBe(natural);
          expect(await card.locator('.blockers > li').count()).toBe(c.tier.blockers.length);
        }
        expect(await page.locator('table.rules tbody tr').count()).toBe(matrix.rules.length);
        expect(await page.locator('table.levels tbody tr').count()).toBe(matrix.clients.length);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        const overflowing = await page.evaluate(() =>
          Array.from(document.querySelectorAll('section.client, h1, p'))
            .filter((el) => el.scrollWidth > el.clientWidth + 1)
            .map((el) => `${el.tagName} ${el.className}`),
        );
        expect(overflowing).toEqual([]);
        expect(external).toEqual([]);
        await page.screenshot({ path: join(ROOT, 'test-output', 'matrix-browser', `matrix-${width}.png`), fullPage: true });
        await page.close();
      },
    );
});
