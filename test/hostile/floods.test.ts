/**
 * The hostile matrix (test/helpers/hostile.ts): floods at the peers. Floods at the peers: requests, streams and bodies past every bound, and memory measured after a full collection.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { beforeAll, describe, expect } from 'vitest';
import { isTerminal, KEPT_PAYLOAD_CHARS, MAX_EVENTS, RUN_INPUT_BYTES, Transcript, type TaskLedger } from '../../harness/core/transcript.js';
import { makePki, writePki, type Pki } from '../../harness/pki/index.js';
import { closeEnv, openEnv } from '../../harness/runner/infrastructure/env.js';
import { mountPeer } from '../../harness/runner/infrastructure/mount.js';
import { closeRunFolder, openRunFolder } from '../../harness/runner/infrastructure/workspace.js';
import { SERVE_EVENTS, SERVE_FINISHED_TASKS } from '../../harness/runner/engine/serve.js';
import { Agent, request } from 'undici';
import { scenario } from '../helpers/scenarios.js';
import { CONTROL, MB, listening, leftInProcess, retained, peakOf, hostileMatrix } from '../helpers/hostile.js';

const m = hostileMatrix('floods at the peers');
const { hostile, figures } = m;

describe('floods at the peers', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki();
  });

  /**
   * Mounts the control peer with `transcript` already holding `prefill` events, sends `n` real requests
   * (`body(i)`: a GetTask of no task by default); returns their statuses and JSON-RPC error codes.
   */
  async function flood(
    transcript: Transcript,
    prefill: number,
    n: number,
    o: { body?: (i: number) => unknown; retainFinished?: number; ledger?: (l: TaskLedger) => void | Promise<void>; scenario?: string } = {},
  ): Promise<{ statuses: number[]; codes: Array<number | undefined>; left: string[] }> {
    const before = listening();
    const folder = await openRunFolder('hostile flood');
    await writePki(pki, folder.pkiDir);
    const env = await openEnv({
      pkiDir: folder.pkiDir,
      client: {
        hello: async () => ({ name: 'none', version: '0', profile: null, taskClasses: [] }),
        run: async () => ({ decision: 'rejected', taskIds: [], degradations: [] }),
      } as never,
      idSalt: 'flood',
      deadlineMultiplier: 1,
    });
    const statuses: number[] = [];
    const codes: Array<number | undefined> = [];
    try {
      const m = mountPeer(env.host, env.dispatcher, scenario(o.scenario ?? CONTROL).peer, {
        deadlineMs: 60_000,
        transcript,
        ...(o.retainFinished ? { retainFinished: o.retainFinished } : {}),
      });
      for (let i = 0; i < prefill; i++) transcript.record({ kind: 'harness', level: 'info', message: 'prefill' });
      const rpc = (m.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url;
      const agent = new Agent({ connect: { ca: pki.testCa.cert } });
      for (let i = 0; i < n; i++) {
        const res = await request(rpc, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
          body: JSON.stringify(o.body?.(i) ?? { jsonrpc: '2.0', id: i, method: 'GetTask', params: { id: 'nope' } }),
        });
        const text = await res.body.text();
        statuses.push(res.statusCode);
        codes.push(res.statusCode === 200 ? (JSON.parse(text) as { error?: { code: number } }).error?.code : undefined);
      }
      await agent.close();
      await o.ledger?.(m.ledger);
      m.end();
    } finally {
      await closeEnv(env);
      await closeRunFolder(folder);
    }
    return { statuses, codes, left: leftInProcess([folder.dir], before) };
  }

  const send = (i: number, text: string, extra: object = {}) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'SendMessage',
    params: { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text }] }, ...extra },
  });

  hostile(
    `requests of 60 KB until the run's ${RUN_INPUT_BYTES / MB} MiB are spent: answered 429 after; payloads past ${KEPT_PAYLOAD_CHARS / MB} Mi characters kept as size and digest; memory bounded`,
    120_000,
    async () => {
      const t = new Transcript(() => performance.now());
      const n = Math.ceil(RUN_INPUT_BYTES / 60_000) + 30;
      const rssBefore = process.memoryUsage.rss();
      const { value: out, peak } = await peakOf(
        () => process.memoryUsage.rss(),
        () => flood(t, 0, n, { body: (i) => send(i, 'x'.repeat(60_000), { configuration: { returnImmediately: true } }) }),
      );
      const first = out.statuses.indexOf(429);
      expect(first, JSON.stringify(out.statuses.slice(-40))).toBeGreaterThan(400);
      expect(out.statuses.slice(0, first).every((s) => s === 200)).toBe(true);
      expect(out.statuses.slice(first).every((s) => s === 429)).toBe(true);
      // The first refusal is on record, saying why; nothing after it.
      const refused = t.events.filter((e) => e.kind === 'http' && e.status === 429);
      expect(refused).toHaveLength(1);
      expect((refused[0] as { note?: string }).note).toMatch(/past the 32 MiB of requests one scenario run takes/);
      // What the transcript holds stays within the payload budget (and some room for the events themselves).
      const held = JSON.stringify(t.events).length;
      expect(held).toBeLessThan(KEPT_PAYLOAD_CHARS + 4 * MB);
      expect(t.shed).toBeGreaterThan(0);
      const shed = t.events.filter((e) => e.kind === 'http' && e.responseBody?.truncated?.includes("run's budget"));
      expect(shed.length).toBeGreaterThan(0);
      expect(shed[0]!.kind === 'http' && shed[0]!.responseBody!.digest).toMatch(/^[0-9a-f]{16}$/);
      const growth = (peak - rssBefore) / MB;
      figures.push(`${n} requests of 60 KB: ${(held / MB).toFixed(1)} MiB held by the transcript, ${growth.toFixed(0)} MiB peak growth`);
      expect(growth, 'peak RSS growth (MiB)').toBeLessThan(400);
      return out.left;
    },
  );

  hostile('push configs whose URL, token or credentials run to megabytes: refused with -32602, never stored or recorded', 60_000, async () => {
    const t = new Transcript(() => performance.now());
    const big = 'https://127.0.0.1/' + 'a'.repeat(1_900_000);
    const out = await flood(t, 0, 3, {
      scenario: 'hs-aspirational/push-works',
      body: (i) =>
        send(i, 'hi', {
          configuration: {
            taskPushNotificationConfig:
              i === 0
                ? { url: big }
                : i === 1
                  ? { url: 'https://127.0.0.1/hook', token: 'x'.repeat(9000) }
                  : { url: 'https://127.0.0.1/hook', authentication: { scheme: 'Bearer', credentials: 'x'.repeat(9000) } },
          },
        }),
    });
    expect(out.statuses).toEqual([200, 200, 200]);
    expect(out.codes).toEqual([-32602, -32602, -32602]);
    expect(t.events.filter((e) => e.kind === 'push-register')).toHaveLength(0);
    expect(JSON.stringify(t.events).length).toBeLessThan(200_000);
    return out.left;
  });

  hostile(
    `serve forgets finished tasks past the latest ${SERVE_FINISHED_TASKS} (or 16 Mi characters of history): 60 sends of 1 MB leave few in its ledger, and under 40 MiB retained after a collection`,
    120_000,
    async () => {
      const t = new Transcript(() => performance.now(), { ring: SERVE_EVENTS });
      let kept = -1;
      let finished = -1;
      const heapBefore = await retained();
      let heapAfter = 0;
      const out = await flood(t, 0, 60, {
        body: (i) => send(i, 'y'.repeat(1_000_000), { configuration: { returnImmediately: true } }),
        retainFinished: SERVE_FINISHED_TASKS,
        ledger: async (l) => {
          // Once the last tasks are done: what serve holds while it keeps serving.
          await new Promise((r) => setTimeout(r, 1500));
          kept = l.all().length;
          finished = l.all().filter((r) => isTerminal(r.state)).length;
          heapAfter = await retained();
        },
      });
      const held = (heapAfter - heapBefore) / MB;
      figures.push(`serve after 60 sends of 1 MB: ${held.toFixed(1)} MiB retained, ${kept} tasks kept`);
      expect(held, 'retained after a collection (MiB)').toBeLessThan(40);
      expect(out.statuses.every((s) => s === 200)).toBe(true);
      // The control peer finishes each task soon after its send; those still working are kept besides.
      // 16 Mi characters of history hold about 16 of these tasks.
      expect(finished).toBeGreaterThan(0);
      expect(finished).toBeLessThanOrEqual(17);
      expect(kept).toBeLessThan(30);
      // Small tasks: the count bounds them.
      let small = -1;
      const many = await flood(new Transcript(() => performance.now(), { ring: SERVE_EVENTS }), 0, SERVE_FINISHED_TASKS + 30, {
        body: (i) => send(i, 'hi', { configuration: { returnImmediately: true } }),
        retainFinished: SERVE_FINISHED_TASKS,
        ledger: async (l) => {
          await new Promise((r) => setTimeout(r, 1500));
          small = l.all().filter((r) => isTerminal(r.state)).length;
        },
      });
      expect(many.statuses.every((x) => x === 200)).toBe(true);
      expect(small).toBe(SERVE_FINISHED_TASKS);
      out.left.push(...many.left);
      return out.left;
    },
  );

  hostile(`a scenario run past ${MAX_EVENTS} events: answered 429, never recorded, the transcript stays at its cap`, 60_000, async () => {
    const t = new Transcript(() => performance.now());
    const { statuses, left } = await flood(t, MAX_EVENTS - 50, 100);
    // Answered while there was room, then 429 for every request after the cap.
    const first = statuses.indexOf(429);
    expect(first, JSON.stringify(statuses)).toBeGreaterThan(10);
    expect(statuses.slice(0, first).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(first).every((s) => s === 429)).toBe(true);
    expect(t.events.length).toBe(MAX_EVENTS);
    expect(t.dropped).toBeGreaterThanOrEqual(100 - first);
    return left;
  });

  hostile(`serve keeps answering after ${MAX_EVENTS + 5000} events: its transcript is a ring of the latest ${SERVE_EVENTS}`, 60_000, async () => {
    const t = new Transcript(() => performance.now(), { ring: SERVE_EVENTS });
    const { statuses, left } = await flood(t, MAX_EVENTS + 5000, 20);
    expect(
      statuses.every((s) => s === 200),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(t.events.length).toBeLessThan(2 * SERVE_EVENTS);
    expect(t.events.at(-1)!.seq).toBeGreaterThan(MAX_EVENTS + 5000);
    return left;
  });
});

// =============================================================================================
