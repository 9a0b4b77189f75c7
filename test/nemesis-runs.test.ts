/**
 * A nemesis over the whole catalogue (issue 45): the reference client, with every kind of fault laid
 * on every scenario's peer where its story leaves room (the first two calls refused 503 with
 * Retry-After, every answer slow, the first three answers cut, the first two calls' connections
 * closed before their answers, every stream ended after one event, the card's origin down for its
 * first fetch, every push delivery lost),
 * gets the verdict each scenario expects, and every result grades again the same from what
 * results.json keeps (the faults laid included).
 */
import { describe, expect, it } from 'vitest';
import { faultText, parseNemesis } from '../harness/core/scenario/nemesis.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { regradeRun } from '../harness/runner/judge/regrade.js';
import { renderHtmlReport } from '../reports/html/report.js';
import { ALL_SCENARIOS, BUILTIN_FILES } from './helpers/scenarios.js';

describe('run --nemesis', () => {
  it('the reference under every kind of fault at once: every scenario its expect, the faults kept and graded again the same', {
    timeout: 300_000,
  }, async () => {
    const nemesis = parseNemesis({
      faults: [
        { kind: 'unavailable', status: 503, retryAfterSeconds: 1, calls: 2 },
        { kind: 'slow', ms: 100 },
        { kind: 'drop', afterBytes: 16, calls: 3 },
        { kind: 'reset', calls: 2 },
        { kind: 'stream-ends', afterEvents: 1 },
        { kind: 'card-down', retryAfterSeconds: 1, calls: 1 },
        { kind: 'push-fails' },
      ],
    });
    const r = await runConformance({ client: 'reference', files: BUILTIN_FILES, lanes: 16, nemesis });
    expect(r.nemesis).toEqual(nemesis);
    const laid = r.results.filter((x) => x.nemesis?.laid.length);
    expect(laid.length).toBe(r.results.length);
    const of = (kind: string) => laid.filter((x) => x.nemesis!.laid.some((f) => f.kind === kind)).length;
    // The 503 left only where a scenario scripts its own; the cut and the early end where the story leaves room for them.
    expect(of('unavailable')).toBeGreaterThan(r.results.length - 10);
    expect(of('drop')).toBeGreaterThan(80);
    expect(of('reset')).toBeGreaterThan(80);
    expect(of('stream-ends')).toBeGreaterThan(5);
    // Lost deliveries only where the peer pushes and its rule's story is not the deliveries themselves.
    expect(of('push-fails')).toBeGreaterThanOrEqual(2);
    expect(laid.some((x) => x.transcript.some((e) => e.kind === 'harness' && /withheld, never posted \(runtime\.pushFails\)/.test(e.message)))).toBe(true);
    const cut = laid.filter((x) => x.transcript.some((e) => e.kind === 'http' && /^scripted: connection dropped/.test(e.note ?? '')));
    expect(cut.length).toBeGreaterThan(50);
    const lost = laid.filter((x) => x.transcript.some((e) => e.kind === 'http' && e.status === undefined && /before the answer/.test(e.note ?? '')));
    expect(lost.length).toBeGreaterThan(50);
    // The card's origin down for its first fetch: met in every scenario whose client reads the card, and read again after the wait.
    const cardDown = laid.filter((x) => x.transcript.some((e) => e.kind === 'http' && e.status === 503 && /runtime\.cardUnavailable/.test(e.note ?? '')));
    expect(cardDown.length).toBeGreaterThan(200);
    // The fault was met on the wire: a 503 with Retry-After in most runs (a client that declines before any call meets none).
    const met = laid.filter((x) => x.transcript.some((e) => e.kind === 'http' && e.status === 503 && e.response?.retryAfter === '1'));
    expect(met.length).toBeGreaterThan(laid.length / 2);
    expect(r.results.filter((x) => x.verdict !== x.expect).map((x) => `${x.id}: ${x.expect} → ${x.verdict}`)).toEqual([]);
    expect(r.exitCode).toBe(0);
    const again = regradeRun(r, new Map(ALL_SCENARIOS.map((s) => [s.id, s])));
    expect(again.differences).toEqual([]);
    // The report says the run was under a nemesis, and each scenario what was laid on its peer.
    const html = renderHtmlReport(r);
    expect(html).toContain('data-testid="nemesis"');
    expect(html).toContain(faultText(nemesis.faults[3]!));
    expect(html.split('data-testid="nemesis-faults"').length - 1).toBe(r.results.length);
  });
});
