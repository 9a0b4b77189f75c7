/**
 * The worked examples the package ships (examples/scenarios/): they load and agree with the
 * reference client (check-scenarios), the 503-with-Retry-After one tells a careful client from one
 * that retries at once, the connection cut mid-answer tells a client that finds its task from one
 * that sends the message again, the reference follows a task past a stream that ended early (in
 * both dialects), and the package ships them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioToV03 } from '../harness/core/card-v03.js';
import type { ScenarioResult } from '../harness/core/results.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { HttpEvent } from '../harness/core/transcript.js';
import { loadCatalogue } from '../harness/runner/load/catalogue.js';
import { runMain } from './helpers/main.js';
import { ROOT } from './helpers/cli.js';
import { startHarness, type InProcessHarness } from './helpers/harness.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-examples-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const RETRY_AFTER = join(ROOT, 'examples/scenarios/retry-after.scenario.json');
const INCIDENTS = join(ROOT, 'examples/scenarios/incidents.scenario.ts');

describe('examples/scenarios', () => {
  it('check-scenarios: every example loads and the reference client gets the verdict it declares', { timeout: 120_000 }, async () => {
    const o = await runMain(['check-scenarios', join(ROOT, 'examples/scenarios'), '--out', join(dir, 'check')]);
    expect(o.code, o.stderr + o.stdout).toBe(0);
    expect(o.stdout).toMatch(/ok {3}example\/busy-retry-after \(PASS\)/);
    expect(o.stdout).toMatch(/ok {3}example\/slow-answer \(PASS\)/);
    expect(o.stdout).toMatch(/ok {3}example\/answer-cut \(PASS\)/);
    expect(o.stdout).toMatch(/ok {3}example\/stream-ends-early \(PASS\)/);
  });

  it('the 503 with Retry-After: the reference client PASSes, naive:retries-blindly FAILs on WIRE-NO-BLIND-RETRY', { timeout: 120_000 }, async () => {
    const verdicts: Record<string, { verdict: string; check?: string }> = {};
    for (const client of ['reference', 'naive:retries-blindly']) {
      const out = join(dir, client.replace(/\W/g, '-'));
      const o = await runMain(['run', '--client', client, '--no-builtin', '--scenarios', RETRY_AFTER, '--out', out]);
      const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as {
        results: Array<{ id: string; verdict: string; checks?: Array<{ rule: string; verdict: string; reason?: string }> }>;
      };
      const s = results.results.find((x) => x.id === 'example/busy-retry-after')!;
      const failed = s.checks?.find((c) => c.verdict === 'FAIL');
      verdicts[client] = { verdict: s.verdict, ...(failed ? { check: `${failed.rule}: ${failed.reason}` } : {}) };
      expect(o.code, client).toBe(client === 'reference' ? 0 : 1);
    }
    expect(verdicts.reference).toEqual({ verdict: 'PASS' });
    expect(verdicts['naive:retries-blindly']!.verdict).toBe('FAIL');
    expect(verdicts['naive:retries-blindly']!.check).toMatch(/^WIRE-NO-BLIND-RETRY: retried \d+ ms after a Retry-After of 2 s/);
  });

  describe('the incidents a peer scripts with drop and streamEnds, in process', () => {
    let examples: Map<string, Scenario>;
    let reference: InProcessHarness;
    beforeAll(async () => {
      examples = new Map((await loadCatalogue([INCIDENTS])).map((e) => [e.scenario.id, e.scenario]));
      reference = await startHarness('reference');
    });
    afterAll(async () => reference?.close());
    const runAll = async (h: InProcessHarness, scenarios: Scenario[]) => {
      const out: ScenarioResult[] = [];
      for (const s of scenarios) out.push(await h.run(s));
      return out;
    };
    /** The A2A calls of a run, by operation (a v0.3 call counts under its operation), with the note a scripted incident left. */
    const calls = (r: ScenarioResult) =>
      r.transcript.filter((e): e is HttpEvent => e.kind === 'http' && !!e.rpc).map((e) => ({ method: e.rpc!.method, note: e.note }));
    const methods = (r: ScenarioResult) => calls(r).map((c) => c.method);
    const failing = (r: ScenarioResult) =>
      r.checks.filter((c) => c.verdict !== 'PASS' && c.verdict !== 'INFORMATIONAL').map((c) => `${c.rule} ${c.verdict}: ${c.reason}`);
    /** A variant of an example: its runtime changed, its id marked. */
    const variant = (s: Scenario, id: string, runtime: Partial<Scenario['peer']['runtime']>): Scenario => ({
      ...s,
      id: `${s.id}/${id}`,
      peer: { ...s.peer, runtime: { ...s.peer.runtime, ...runtime } },
    });

    it('drop: the reference PASSes the cut answer, found with ListTasks and never sent again; v0.3 has no tasks/list, and it says so without sending again', {
      timeout: 60_000,
    }, async () => {
      const cut = examples.get('example/answer-cut')!;
      const [v1, v03] = await runAll(reference, [cut, scenarioToV03(cut)]);
      expect([v1!.verdict, failing(v1!)]).toEqual(['PASS', []]);
      const sent = calls(v1!).filter((c) => c.method === 'SendMessage');
      expect(sent).toHaveLength(1);
      expect(sent[0]!.note).toMatch(/connection dropped after the headers and 16 bytes/);
      expect(methods(v1!).slice(0, 2)).toEqual(['SendMessage', 'ListTasks']);
      expect(v1!.ledger).toHaveLength(1);
      expect(v1!.claims).toMatchObject({ decision: 'proceeded', taskIds: [v1!.ledger[0]!.id] });
      expect(v1!.claims!.notes).toMatch(/ListTasks found task .*; not sent again; TASK_STATE_COMPLETED$/);
      // v0.3's JSON-RPC has no tasks/list: the task the cut answer named cannot be found, and the
      // reference neither sends the message again nor claims a task it cannot name. The rules grade
      // what that leaves (a task nobody follows) as harm, whoever caused it: no example's PASS.
      expect(methods(v03!)).toEqual(['SendMessage']);
      expect(v03!.claims).toMatchObject({ decision: 'rejected', errorClass: 'handshake', taskIds: [] });
      expect(v03!.claims!.notes).toMatch(/no tasks\/list .*not sent again/);
    });

    it('streamEnds: the reference PASSes, following the task past the early end with SubscribeToTask then GetTask, in v1.0 and v0.3', {
      timeout: 60_000,
    }, async () => {
      const ends = examples.get('example/stream-ends-early')!;
      for (const r of await runAll(reference, [ends, scenarioToV03(ends)])) {
        expect([r.id, r.verdict, failing(r)]).toEqual([r.id, 'PASS', []]);
        expect(methods(r).slice(0, 3), r.id).toEqual(['SendStreamingMessage', 'SubscribeToTask', 'GetTask']);
        expect(
          methods(r)
            .slice(3)
            .every((m) => m === 'GetTask'),
          r.id,
        ).toBe(true);
        expect(calls(r)[0]!.note, r.id).toMatch(/the stream ended after 1 events without a terminal one/);
        expect(r.claims, r.id).toMatchObject({ decision: 'downgraded', degradations: ['stream->polling'] });
        expect(r.claims!.notes, r.id).toMatch(/the stream closed with the task in TASK_STATE_WORKING.*; TASK_STATE_COMPLETED$/);
      }
    });

    it('a stream cut mid-answer (drop on SendStreamingMessage): after its first event, followed as an early end; before any, found with ListTasks', {
      timeout: 60_000,
    }, async () => {
      const ends = examples.get('example/stream-ends-early')!;
      const { streamEnds: _, ...whole } = ends.peer.runtime;
      const base = { ...ends, peer: { ...ends.peer, runtime: whole } };
      // 500 bytes: the first event (the Task, under 400 bytes) whole, the second cut, the terminal one never sent.
      const afterFirst = variant(base, 'cut-after-first-event', { drop: { afterBytes: 500, calls: 1, method: 'SendStreamingMessage' } });
      const beforeAny = variant(base, 'cut-before-any-event', { drop: { afterBytes: 0, calls: 1, method: 'SendStreamingMessage' } });
      const [a, a03, b] = await runAll(reference, [afterFirst, scenarioToV03(afterFirst), beforeAny]);
      for (const r of [a!, a03!]) {
        expect([r.id, r.verdict, failing(r)]).toEqual([r.id, 'PASS', []]);
        // The first event reaches the client's socket whole, and the client reads its body without pause (sse.ts): it always
        // has the task's id, and resubscribes (an errored body stream drops only what was left queued in it).
        expect(methods(r).slice(0, 2), r.id).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
        expect(r.claims!.notes, r.id).toMatch(/the stream was cut \(HTTP 200, then the connection closed in the middle of the answer/);
      }
      expect([b!.verdict, failing(b!)]).toEqual(['PASS', []]);
      expect(methods(b!).slice(0, 3)).toEqual(['SendStreamingMessage', 'ListTasks', 'SubscribeToTask']);
      expect(b!.ledger).toHaveLength(1);
    });

    it('naive:retries-blindly sends the cut message again: a second task for one intent (WIRE-NO-DESTROYED-WORK FAIL, harm); the first one’s id never reached it, so its report owes none', {
      timeout: 60_000,
    }, async () => {
      const naive = await startHarness('naive:retries-blindly');
      try {
        const [r] = await runAll(naive, [examples.get('example/answer-cut')!]);
        expect(r!.verdict).toBe('FAIL');
        expect(calls(r!).filter((c) => c.method === 'SendMessage')).toHaveLength(2);
        expect(r!.ledger).toHaveLength(2);
        expect(r!.checks.find((c) => c.rule === 'WIRE-NO-DESTROYED-WORK')).toMatchObject({
          verdict: 'FAIL',
          basis: 'harm',
          reason: expect.stringMatching(/^a second task .* after a lost answer/),
        });
        expect(r!.checks.find((c) => c.rule === 'WIRE-HONEST-REPORT')).toMatchObject({
          verdict: 'PASS',
          reason: expect.stringMatching(/no answer, event or push ever carried its id to the client/),
        });
      } finally {
        await naive.close();
      }
    });
  });

  it('the package ships them: package.json "files" names the folder and excludes none of them', async () => {
    // What npm packs is package.json's "files" (test/docs.test.ts checks that reading against \`npm pack\`).
    const files = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    expect(files).toContain('examples/');
    expect(files.filter((f) => f.startsWith('!'))).toEqual(['!**/*.test.*']);
  });
});
