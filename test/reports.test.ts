/**
 * Renderers from results.json: hostile strings stay inert in HTML, JUnit and Markdown; JUnit has the
 * structure CI importers read (one testcase per scenario, outcome after expectations).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { mergeResults } from '../harness/runner/judge/merge.js';
import { renderHtmlReport, renderJunit, renderMarkdown, resultsJson } from '../reports/index.js';
import { assemble, runInProcess } from './helpers/results.js';

const HOSTILE = `</script><script>alert(1)</script><img src=x onerror=alert(2)> "quotes" 'single' \u2028line\u2029sep & <b>bold</b> ]]> --> <!-- \u001b[31mred\u0000 \ud800lone`;

let real: RunResults;
beforeAll(async () => {
  real = await runInProcess('naive', [
    'neg-live-input/live-audio-to-batch-peer',
    'neg-live-input/text-task-on-audio-card',
    'neg-push-mtls/fire-and-forget',
    'spec-tls-verify/expired',
  ]);
});

function hostile(r: RunResults): RunResults {
  const x = structuredClone(r);
  x.client.name = HOSTILE;
  x.client.version = HOSTILE;
  x.seed = HOSTILE;
  x.results[0]!.stderr = HOSTILE;
  x.results[0]!.title = HOSTILE;
  x.results[0]!.claims = { decision: 'proceeded', degradations: [HOSTILE], taskIds: [HOSTILE], notes: HOSTILE };
  x.results[0]!.checks[0]!.reason = HOSTILE;
  x.results[0]!.checks[0]!.evidence.push({ seq: 1, fact: HOSTILE });
  x.results[0]!.card = { name: HOSTILE, [HOSTILE]: HOSTILE };
  x.notRun.push({ id: HOSTILE, reason: HOSTILE });
  x.unexpected.push({ id: HOSTILE, verdict: 'FAIL', why: HOSTILE });
  return x;
}

describe('HTML report', () => {
  it("a re-run after the harness lagged is a footnote below the scenario's checks, closed, never ahead of its verdict", () => {
    const r0 = real.results[0]!;
    const lag = { lagged: true, why: 'the event loop was 900 ms late', loopDelayMaxMs: 900, wallMs: 3000 };
    const r = { ...real, results: [{ ...r0, lag, attempts: [{ verdict: 'TIMEOUT' as const, reason: 'no decision', lag, durationMs: 3000 }] }] };
    const html = renderHtmlReport(r as RunResults);
    const panel = html.slice(html.indexOf('<details class="scenario'));
    const checks = panel.indexOf('<table class="checks"');
    const lagAt = panel.indexOf('<details class="lag"');
    expect(checks).toBeGreaterThan(0);
    expect(lagAt).toBeGreaterThan(checks);
    expect(panel).toMatch(/<details class="lag" data-testid="lag"><summary class="muted">The harness lagged: this scenario ran 2 times before its verdict/);
  });

  it('renders a real run: counts, every scenario panel, sequence diagrams', () => {
    const html = renderHtmlReport(real);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    for (const s of real.results) expect(html).toContain(`data-verdict="${s.verdict}"`);
    expect(html.match(/<details class="scenario/g)?.length).toBe(real.results.length);
    expect(html).toContain('<svg');
    expect(html).toContain(`data-count-verdict="FAIL">${real.summary.FAIL}<`);
  });

  it("shows a signed card's signature (its key, the harness's check, the JWKS the client fetched and when) and the media-type comparison behind a refusal", async () => {
    const trust = await runInProcess('naive:trusts-any-jku', ['trust-jku/own-origin', 'trust-param/profile-differs']);
    const html = renderHtmlReport(trust);
    const jku = trust.results.find((r) => r.id === 'trust-jku/own-origin')!;
    expect(jku.signatures?.[0]).toMatchObject({ alg: 'ES256', kid: 'vendorx-self', harness: 'verifies' });
    expect(html).toContain('Card signature');
    expect(html).toContain('(not a JWKS the profile trusts)');
    expect(html).toMatch(/GET \/t\/[0-9a-f]+\/\.well-known\/jwks\.json from the peer's own origin \(tls\) → 200, before the first send/);
    expect(html).toContain('Media types (parameters significant)');
    expect(html).toContain('only with parameters stripped (application/vnd.vendorx.workflow+json;profile=&quot;v3&quot;)');
  });

  it('keeps hostile strings inert: one script element, no injected tags, text escaped', () => {
    const html = renderHtmlReport(hostile(real));
    expect(html.match(/<script/g)?.length).toBe(1);
    expect(html.match(/<\/script>/g)?.length).toBe(1);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toContain('<b>bold</b>');
    expect(html).toContain('&lt;/script>&lt;script>alert(1)&lt;/script>');
    // No network: nothing is loaded from anywhere.
    expect(html).not.toMatch(/\ssrc="(https?:)?\/\//);
    expect(html).not.toMatch(/<link[^>]*\shref=/);
    // Links a reader may follow to a source (the public spec, an RFC), never loaded: anchors only, to those hosts only.
    const external = [...html.matchAll(/\shref="((?:https?:)?\/\/[^"]*)"/g)].map((m) => m[1]);
    const anchors = [...html.matchAll(/<a [^>]*href="((?:https?:)?\/\/[^"]*)"/g)].map((m) => m[1]);
    expect(anchors).toEqual(external);
    for (const u of anchors) expect(u).toMatch(/^https:\/\/(github\.com\/a2aproject\/A2A\/blob\/|www\.rfc-editor\.org\/rfc\/|html\.spec\.whatwg\.org\/)/);
  });
});

describe('JUnit XML', () => {
  const parse = (xml: string) =>
    new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testcase', 'property'].includes(n) }).parse(xml);

  it('one testcase per scenario with name and classname; unexpected verdicts fail; INFORMATIONAL is skipped; counts agree', () => {
    const xml = renderJunit(real);
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = parse(xml);
    const suite = doc.testsuites.testsuite;
    expect(suite.testcase).toHaveLength(real.results.length);
    for (const tc of suite.testcase) {
      expect(tc.name).toBeTruthy();
      expect(tc.classname).toMatch(/^a2a-conformance\./);
      const verdict = tc.properties.property.find((p: { name: string }) => p.name === 'verdict').value;
      const r = real.results.find((x) => x.id === tc.name)!;
      expect(verdict).toBe(r.verdict);
      expect(Boolean(tc.failure)).toBe(real.unexpected.some((u) => u.id === r.id));
      if (r.verdict === 'INFORMATIONAL') expect(tc.skipped).toBeDefined();
    }
    expect(Number(suite.failures)).toBe(real.unexpected.length);
    expect(Number(suite.tests)).toBe(real.results.length);
  });

  it('an expected FAIL passes once the expectations file lists it', () => {
    const failing = real.results.filter((r) => r.verdict === 'FAIL');
    expect(failing.length).toBeGreaterThan(0);
    const withExp = assemble('naive', real.results, {
      schema: 'a2a-conformance/expectations@1',
      entries: failing.map((f) => ({ scenario: f.id, verdict: 'FAIL', reason: 'known' })),
    });
    const suite = parse(renderJunit(withExp)).testsuites.testsuite;
    expect(Number(suite.failures)).toBe(0);
    expect(suite.testcase.filter((t: { failure?: unknown }) => t.failure)).toEqual([]);
  });

  it('round-trips hostile strings through a real XML parser', () => {
    const h = hostile(real);
    const xml = renderJunit(h);
    expect(XMLValidator.validate(xml)).toBe(true);
    // Nothing outside the XML 1.0 character range (control characters, lone surrogates).
    expect(xml).not.toMatch(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
    const doc = parse(xml);
    expect(doc.testsuites.testsuite.name).toContain('</script>');
  });
});

describe('Markdown summary', () => {
  it('names the client, the counts and each unexpected verdict; markup is neutralised', () => {
    const md = renderMarkdown(hostile(real), 'out/index.html');
    // Untrusted text sits in code spans, where CommonMark reads no markup, HTML, autolink or mention.
    const outsideCode = md.replace(/(`+)[^`]*?(?:`(?!\1)[^`]*?)*?\1/g, '');
    expect(outsideCode).not.toMatch(/[<>]/);
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(md).toContain('| PASS | NON_STRICT | FAIL |');
    expect(md).toContain('Full report: `out/index.html`');
    expect(md.split('\n').filter((l) => l.startsWith('| FAIL |')).length).toBeGreaterThan(0);
  });
});

describe('merging shards', () => {
  it('merges two runs of one client; scenarios run anywhere leave notRun; duplicates are refused', () => {
    const [a, b] = [assemble('naive', real.results.slice(0, 2)), assemble('naive', real.results.slice(2))];
    a.notRun = real.results.slice(2).map((r) => ({ id: r.id, reason: 'in another shard' }));
    b.notRun = real.results.slice(0, 2).map((r) => ({ id: r.id, reason: 'in another shard' }));
    const m = mergeResults([a, b]);
    expect(m.results.map((r) => r.id).sort()).toEqual(real.results.map((r) => r.id).sort());
    expect(m.notRun).toEqual([]);
    expect(m.summary).toEqual(real.summary);
    expect(m.exitCode).toBe(real.exitCode);
    expect(() => mergeResults([a, a])).toThrow(/appears in more than one/);
    // One shard alone, or a tampered exit code: recomputed from the verdicts.
    expect(mergeResults([a]).exitCode).toBe(1);
    expect(mergeResults([{ ...assemble('naive', real.results), exitCode: 0 }]).exitCode).toBe(real.exitCode);
    expect(() => mergeResults([a, { ...b, strict: true }])).toThrow(/different rulesets or --strict/);
    expect(() => mergeResults([a, { ...b, client: { ...b.client, name: 'other' } }])).toThrow(/different clients/);
    // Shards run under different nemesis schedules, or one under a schedule and one without: not one run.
    const nemesis = { faults: [{ kind: 'slow' as const, ms: 100 }] };
    expect(() => mergeResults([a, { ...b, nemesis }])).toThrow(/different --nemesis schedules/);
    expect(
      mergeResults([
        { ...a, nemesis },
        { ...b, nemesis },
      ]).nemesis,
    ).toEqual(nemesis);
  });
});

describe('results.json', () => {
  it('is written in pieces: a property run of 2,500 cases parses back to the document JSON.stringify makes, one case per line, no piece holding the whole', () => {
    const cases = Array.from({ length: 2500 }, (_, i) => ({
      path: String(i),
      story: i % 3 ? 'live-input' : HOSTILE,
      rule: 'NEG-LIVE-INPUT',
      verdict: 'PASS' as const,
      durationMs: i,
    }));
    const family = (id: string, n: number) => ({
      family: id,
      title: id,
      rules: ['NEG-LIVE-INPUT'],
      seed: 1,
      runs: n,
      ran: n,
      verdicts: { PASS: n },
      stories: {},
      labels: {},
      failed: false,
      cases: cases.slice(0, n),
      durationMs: 1,
    });
    const r = { ...real, properties: [family('negotiation', 2500), family('empty', 0), family('handshake', 3)] } as RunResults;
    const pieces = [...resultsJson(r)];
    const text = pieces.join('');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(r)));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(text.length / 2);
    expect(text.split('\n').filter((l) => /^ {8}\{"path":"\d+"/.test(l))).toHaveLength(2503);
    // No property cases: the document as JSON.stringify indents it, in one piece.
    expect([...resultsJson(real)]).toEqual([JSON.stringify(real, null, 2) + '\n']);
  });
});
