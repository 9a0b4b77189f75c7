/**
 * The recording proxy in front of a live agent (issue 45, `proxy`; docs/live.md): a real A2A v1.0
 * agent built from @a2a-js/sdk 1.3.0's server side, on 127.0.0.1 (test/helpers/live-agent.ts), its
 * card listing HTTP+JSON first, then JSON-RPC. Through the proxy the reference client gets PASS on
 * every duty the wire shows; naive:omits-a2a-version and naive:ignores-interface-order FAIL with
 * evidence from the live exchange; the proxy's cuts exercise stream recovery against the agent.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResults, ScenarioResult } from '../harness/core/results.js';
import { runLive } from '../harness/runner/engine/live.js';
import { renderHtmlReport } from '../reports/html/report.js';
import { startLiveAgent, type LiveAgent } from './helpers/live-agent.js';
import { runMain } from './helpers/main.js';

let agent: LiveAgent;
const dir = mkdtempSync(join(tmpdir(), 'a2a-live-'));
beforeAll(async () => {
  agent = await startLiveAgent();
});
afterAll(async () => {
  await agent?.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (r: ScenarioResult, rule: string) => r.checks.find((c) => c.rule === rule)!;
const measured = (r: ScenarioResult) => r.checks.filter((c) => !c.reason.startsWith('not measured'));

describe('proxy in front of a live @a2a-js/sdk agent', () => {
  it('the reference client: PASS on every measured duty, the card and each call through the proxy; the report says the agent was live', {
    timeout: 120_000,
  }, async () => {
    const run = await runLive({ upstream: agent.cardUrl, client: 'reference' });
    const r = run.results[0]!;
    expect(
      measured(r)
        .filter((c) => c.verdict !== 'PASS' && c.verdict !== 'INFORMATIONAL')
        .map((c) => `${c.rule}: ${c.reason}`),
    ).toEqual([]);
    expect([r.verdict, run.exitCode]).toEqual(['PASS', 0]);
    for (const rule of ['SPEC-INTERFACE-SELECTION', 'SPEC-A2A-VERSION', 'WIRE-DEADLINE', 'WIRE-HONEST-REPORT', 'WIRE-NO-ORPHANS'])
      expect(check(r, rule).verdict, rule).toBe('PASS');
    // A rule that needs a scripted peer's truth is reported, not measured.
    expect(check(r, 'WIRE-NO-DESTROYED-WORK').reason).toMatch(/^not measured against a live agent/);
    // The agent minted the task; the proxy kept it in the ledger as the agent's answers named it.
    const minted = r.transcript.filter((e) => e.kind === 'task' && e.cause === 'minted');
    expect(minted).toHaveLength(1);
    expect(r.transcript.some((e) => e.kind === 'sse' && e.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect(run.live).toMatchObject({ cardUrl: agent.cardUrl, name: 'Fabrikam Live Echo', scripted: false, cuts: [] });
    const html = renderHtmlReport(run);
    expect(html).toContain('data-testid="live"');
    expect(html).toContain('A live agent, not scripted');
  });

  it('naive:omits-a2a-version: SPEC-A2A-VERSION FAIL, the live call without the header as evidence', { timeout: 120_000 }, async () => {
    const run = await runLive({ upstream: agent.cardUrl, client: 'naive:omits-a2a-version' });
    const r = run.results[0]!;
    const c = check(r, 'SPEC-A2A-VERSION');
    expect(c.verdict).toBe('FAIL');
    const seq = c.evidence.find((e) => e.seq !== undefined)!.seq!;
    const call = r.transcript.find((e) => e.seq === seq);
    // The agent itself refused the call (it reads a missing A2A-Version as 0.3): a live exchange, not a scripted one.
    expect(call).toMatchObject({ kind: 'http', status: 400 });
    expect(run.exitCode).toBe(1);
  });

  it('naive:ignores-interface-order: SPEC-INTERFACE-SELECTION FAIL, its call to the second interface as evidence', { timeout: 120_000 }, async () => {
    const run = await runLive({ upstream: agent.cardUrl, client: 'naive:ignores-interface-order' });
    const r = run.results[0]!;
    const c = check(r, 'SPEC-INTERFACE-SELECTION');
    expect(c.verdict).toBe('FAIL');
    expect(c.reason).toMatch(/called JSONRPC .*\/live\/1 .*not the first interface the client speaks \(HTTP\+JSON/);
    expect(run.exitCode).toBe(1);
  });

  it('--cut-streams: the reference follows the task past the cut to its end (STREAM-RECOVERY PASS); naive:resends-on-stream-drop sends the message again (FAIL)', {
    timeout: 120_000,
  }, async () => {
    const good = (await runLive({ upstream: agent.cardUrl, client: 'reference', cutStreams: true })).results[0]!;
    expect([good.verdict, check(good, 'STREAM-RECOVERY').verdict]).toEqual(['PASS', 'PASS']);
    const bad = (await runLive({ upstream: agent.cardUrl, client: 'naive:resends-on-stream-drop', cutStreams: true })).results[0]!;
    expect(check(bad, 'STREAM-RECOVERY')).toMatchObject({ verdict: 'FAIL' });
    expect(bad.transcript.filter((e) => e.kind === 'task' && e.cause === 'minted')).toHaveLength(2);
  });

  it("the agent's own course is not the client's: a task the agent fails, or one slower than the deadline, gives the reference no FAIL", {
    timeout: 120_000,
  }, async () => {
    const failing = await startLiveAgent({ fails: true });
    const slow = await startLiveAgent({ workMs: 60_000 });
    try {
      for (const [a, deadlineMs] of [
        [failing, 20_000],
        [slow, 3_000],
      ] as const) {
        const r = (await runLive({ upstream: a.cardUrl, client: 'reference', deadlineMs })).results[0]!;
        expect(
          r.checks.filter((c) => c.verdict === 'FAIL' || c.verdict === 'NON_STRICT').map((c) => `${c.rule}: ${c.reason}`),
          a.cardUrl,
        ).toEqual([]);
        expect(check(r, 'SPEC-INTERFACE-SELECTION').reason, a.cardUrl).toMatch(/^not measured against a live agent: whether the task could have completed/);
      }
    } finally {
      await Promise.all([failing.close(), slow.close()]);
    }
  });

  it('through the CLI: `proxy --upstream` writes the report, exit 0 for the reference; --refuse-first is honoured; a bad upstream is one line', {
    timeout: 120_000,
  }, async () => {
    const out = join(dir, 'live');
    const ran = await runMain(['proxy', '--upstream', agent.cardUrl, '--client', 'reference', '--refuse-first', 'SendStreamingMessage', '--out', out]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/live: Fabrikam Live Echo, live at /);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResults;
    expect(results.live?.cuts).toEqual(['the first SendStreamingMessage answered 503 with Retry-After: 1 (--refuse-first)']);
    const calls = results.results[0]!.transcript.filter((e) => e.kind === 'http' && e.rpc?.method === 'SendStreamingMessage');
    expect(calls.map((e) => (e.kind === 'http' ? e.status : 0))).toEqual([503, 200]);
    const bad = await runMain(['proxy', '--upstream', 'ftp://127.0.0.1/card', '--client', 'reference', '--out', join(dir, 'bad')]);
    expect(bad.code).toBe(2);
    // The one line, and the usage hint every usage error ends with.
    const [line, ...rest] = bad.stderr.trim().split('\n');
    expect(line).toMatch(/^a2a-conformance: --upstream must be an http:\/\/ or https:\/\/ URL/);
    expect(rest.map((l) => l.startsWith('usage: '))).toEqual([true]);
  });
});
