/**
 * The scripted incidents of a runtime (docs/peers.md) on the wire, with bare undici requests: a
 * 503/429 with Retry-After for the first N calls, a slow answer, a connection dropped mid-response,
 * and a stream that ends without a terminal event; each on the v1.0 endpoint and through v0.3's.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { HttpEvent } from '../harness/core/transcript.js';
import type { PeerDescription, Scenario } from '../harness/core/scenario/scenario.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import { scenarioToV03 } from '../harness/core/card-v03.js';
import { scenarioProblem } from '../harness/runner/load/catalogue.js';
import { bareRpc, rpcUrlOf, sharedPeer } from './helpers/peer.js';

const shared = sharedPeer();

const card = {
  name: 'Contoso Incidents',
  description: 'A well-behaved agent on a bad day.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'answer', name: 'Answer', description: 'Answer a short question', tags: ['qa'] }],
};
const base: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 150,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
};

const asScenario = (runtime: Partial<PeerRuntime>): Scenario => ({
  id: 'incident/x',
  rule: 'WIRE-NO-BLIND-RETRY',
  title: 't',
  description: 'd',
  expectation: 'e',
  spec: 's',
  peer: { factory: 'contoso-control', card, runtime: { ...base, ...runtime }, signals: [] },
  profileConstraints: {},
  intent: { taskClass: 'text', input: { mediaType: 'text/plain', text: 'hi' }, acceptedOutputModes: ['text/plain'], completion: 'poll' },
  deadlineMs: 3000,
  expect: 'PASS',
});
const v1 = (runtime: Partial<PeerRuntime>): PeerDescription => asScenario(runtime).peer;
const v03 = (runtime: Partial<PeerRuntime>): PeerDescription => scenarioToV03(asScenario(runtime)).peer;
/** A v0.3 card names its endpoint in `url`. */
const urlOf = (c: Record<string, unknown>) => (typeof c.url === 'string' ? c.url : rpcUrlOf(c));

const send = (t = 'hello') => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: t, mediaType: 'text/plain' }] },
  configuration: { returnImmediately: true },
});
const send03 = (t = 'hello') => ({
  message: { messageId: `m-${Math.random()}`, role: 'user', kind: 'message', parts: [{ kind: 'text', text: t }] },
  configuration: { blocking: false },
});
const https = (events: readonly unknown[]) => events.filter((e): e is HttpEvent => (e as HttpEvent).kind === 'http' && !!(e as HttpEvent).rpc);

/** A raw POST that reports how the connection ended instead of throwing. */
async function raw(url: string, method: string, params: unknown, extra: Record<string, string> = {}) {
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher: shared.agent,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...extra },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const headers = res.headers;
    try {
      return { status: res.statusCode, headers, text: await res.body.text(), cut: false };
    } catch {
      return { status: res.statusCode, headers, text: '', cut: true };
    }
  } catch {
    return { status: 0, headers: {}, text: '', cut: true };
  }
}

describe('runtime fields for the incidents vendors meet most', () => {
  it('the schema takes each field and refuses a malformed one, naming it', () => {
    expect(
      scenarioProblem(
        asScenario({
          unavailable: { status: 503, retryAfterSeconds: 2, calls: 1, method: 'SendMessage' },
          slow: { ms: 10 },
          drop: { afterBytes: 0, calls: 1 },
          streamEnds: { afterEvents: 1 },
        }),
      ),
    ).toBeUndefined();
    expect(scenarioProblem(asScenario({ unavailable: { status: 500 as 503, retryAfterSeconds: 2, calls: 1 } }))).toMatch(
      /^peer\.runtime\.unavailable\.status: must be equal to one of the allowed values \(503, 429\)/,
    );
    expect(scenarioProblem(asScenario({ unavailable: { status: 503, retryAfterSeconds: 2 } as never }))).toMatch(
      /^peer\.runtime\.unavailable: must have required property 'calls'/,
    );
    expect(scenarioProblem(asScenario({ slow: { ms: 10, method: 'SendMesage' as 'SendMessage' } }))).toMatch(
      /^peer\.runtime\.slow\.method: must be equal to one of the allowed values/,
    );
    expect(scenarioProblem(asScenario({ drop: { afterBytes: -1 } }))).toMatch(/^peer\.runtime\.drop\.afterBytes: must be >= 0/);
    expect(scenarioProblem(asScenario({ streamEnds: { afterEvents: 0 } }))).toMatch(/^peer\.runtime\.streamEnds\.afterEvents: must be >= 1/);
  });

  it('unavailable: the first N calls of the method get 503 with Retry-After and mint no task; other methods and later calls are served', async () => {
    const run = shared.fx.start(v1({ unavailable: { status: 503, retryAfterSeconds: 7, calls: 2, method: 'SendMessage' } }));
    const url = rpcUrlOf(run.peer.card);
    const a = await raw(url, 'SendMessage', send());
    const list = await bareRpc(shared.agent, url, 'ListTasks', {});
    const b = await raw(url, 'SendMessage', send());
    const c = await bareRpc(shared.agent, url, 'SendMessage', send());
    run.end();
    expect([a.status, a.headers['retry-after'], b.status, b.headers['retry-after']]).toEqual([503, '7', 503, '7']);
    expect(list.json?.result?.tasks).toEqual([]);
    expect(c.json?.result?.task?.id).toBeTruthy();
    expect(run.ledger.snapshot()).toHaveLength(1);
    const events = https(run.transcript.events);
    expect(events.map((e) => [e.rpc!.method, e.status, e.response?.retryAfter])).toEqual([
      ['SendMessage', 503, '7'],
      ['ListTasks', 200, undefined],
      ['SendMessage', 503, '7'],
      ['SendMessage', 200, undefined],
    ]);
  });

  it('unavailable without a method counts every call, and a 429 says so; through the v0.3 endpoint too', async () => {
    const run = shared.fx.start(v03({ unavailable: { status: 429, retryAfterSeconds: 1, calls: 1 } }));
    const url = urlOf(run.peer.card);
    const a = await raw(url, 'message/send', send03());
    const b = await bareRpc(shared.agent, url, 'message/send', send03());
    run.end();
    expect([a.status, a.headers['retry-after']]).toEqual([429, '1']);
    expect(b.json?.result?.kind).toBe('task');
  });

  it('slow: the named method waits before it answers; another does not', async () => {
    const run = shared.fx.start(v1({ slow: { ms: 400, method: 'ListTasks' } }));
    const url = rpcUrlOf(run.peer.card);
    let t = Date.now();
    await bareRpc(shared.agent, url, 'ListTasks', {});
    const slow = Date.now() - t;
    t = Date.now();
    await bareRpc(shared.agent, url, 'SendMessage', send());
    const quick = Date.now() - t;
    run.end();
    expect(slow).toBeGreaterThanOrEqual(390);
    expect(quick).toBeLessThan(slow);
  });

  it('slow: a run that ends stops the wait (an answer never outlives its run)', async () => {
    const run = shared.fx.start(v1({ slow: { ms: 60_000 } }));
    const t = Date.now();
    const pending = bareRpc(shared.agent, rpcUrlOf(run.peer.card), 'ListTasks', {});
    setTimeout(() => run.end(), 200);
    await pending.catch(() => undefined);
    const took = Date.now() - t;
    expect(took).toBeGreaterThanOrEqual(190); // it did wait…
    expect(took).toBeLessThan(20_000); // …until the run ended, not the minute
  });

  it('drop: the first call gets its headers and part of the body, then the socket closes; the next is whole; v0.3 too', async () => {
    for (const [desc, method, params] of [
      [v1({ drop: { afterBytes: 12, calls: 1, method: 'SendMessage' } }), 'SendMessage', send()],
      [v03({ drop: { afterBytes: 12, calls: 1, method: 'SendMessage' } }), 'message/send', send03()],
    ] as const) {
      const run = shared.fx.start(desc);
      const url = urlOf(run.peer.card);
      const a = await raw(url, method, params);
      const b = await raw(url, method, params);
      run.end();
      expect(a.status, method).toBe(200);
      expect(a.cut, method).toBe(true);
      expect(b.cut, method).toBe(false);
      expect(JSON.parse(b.text).result).toBeTruthy();
      const first = https(run.transcript.events)[0]!;
      expect(first.note).toMatch(/connection dropped after the headers and 12 bytes/);
      expect(first.responseBody?.bytes).toBe(12);
    }
  });

  it('drop after 0 bytes cuts right after the headers, every call when no count is given', async () => {
    const run = shared.fx.start(v1({ drop: { afterBytes: 0 } }));
    const url = rpcUrlOf(run.peer.card);
    const a = await raw(url, 'ListTasks', {});
    const b = await raw(url, 'GetTask', { id: 'nope' });
    run.end();
    expect([a.cut, b.cut]).toEqual([true, true]);
  });

  it('streamEnds: the stream closes after N events without a terminal one; GetTask still finds the end', async () => {
    const run = shared.fx.start(v1({ streamEnds: { afterEvents: 1 } }), { deadlineMs: 5000 });
    const url = rpcUrlOf(run.peer.card);
    const s = await raw(url, 'SendStreamingMessage', send(), { accept: 'text/event-stream' });
    const frames = s.text
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => JSON.parse(f.slice(6)));
    expect(s.cut).toBe(false);
    expect(frames).toHaveLength(1);
    const id = frames[0].result.task.id as string;
    expect(frames[0].result.task.status.state).not.toBe('TASK_STATE_COMPLETED');
    let state = '';
    for (let i = 0; i < 50 && state !== 'TASK_STATE_COMPLETED'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = (await bareRpc(shared.agent, url, 'GetTask', { id })).json?.result?.status?.state;
    }
    run.end();
    expect(state).toBe('TASK_STATE_COMPLETED');
    expect(https(run.transcript.events)[0]!.note).toMatch(/stream ended after 1 events without a terminal one/);
  });

  it('streamEnds with midEvent: the whole events, then half of the next, then the connection reset; the half is not recorded as sent', async () => {
    const run = shared.fx.start(v1({ streamEnds: { afterEvents: 1, midEvent: true } }), { deadlineMs: 5000 });
    const url = rpcUrlOf(run.peer.card);
    const res = await request(url, {
      method: 'POST',
      dispatcher: shared.agent,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: send() }),
    });
    let text = '';
    let reset = false;
    try {
      for await (const chunk of res.body) text += Buffer.from(chunk).toString('utf8');
    } catch {
      reset = true;
    }
    const [whole, half, ...rest] = text.split('\n\n');
    const task = JSON.parse(whole!.slice(6)).result.task;
    expect(reset).toBe(true);
    expect(rest).toEqual([]);
    // The next event was begun and never ended: no line end, no JSON that parses.
    expect(half!.startsWith('data: {')).toBe(true);
    expect(() => JSON.parse(half!.slice(6))).toThrow();
    let state = '';
    for (let i = 0; i < 50 && state !== 'TASK_STATE_COMPLETED'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = (await bareRpc(shared.agent, url, 'GetTask', { id: task.id })).json?.result?.status?.state;
    }
    run.end();
    expect(state).toBe('TASK_STATE_COMPLETED');
    const ev = https(run.transcript.events)[0]!;
    expect(ev.note).toMatch(/^scripted: the stream ended after 1 events, reset mid-way through the next/);
    expect(ev.responseBody?.events).toHaveLength(1);
    expect(run.transcript.events.filter((e) => e.kind === 'sse')).toHaveLength(1);
    expect(ev.streamEnd?.by).toBe('peer');
  });

  it('without streamEnds the same stream runs to its terminal event (the control)', async () => {
    const run = shared.fx.start(v1({}), { deadlineMs: 5000 });
    const s = await raw(rpcUrlOf(run.peer.card), 'SendStreamingMessage', send(), { accept: 'text/event-stream' });
    run.end();
    const states = s.text
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => JSON.parse(f.slice(6)).result)
      .map((r) => r.task?.status?.state ?? r.statusUpdate?.status?.state);
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  });
});

describe('docs/peers.md', () => {
  it('is generated from the factories and the schema (npm run docs), and names the incident fields', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { ROOT } = await import('./helpers/cli.js');
    const { peersPage } = await import('../harness/runner/load/describe-peers.js');
    const doc = readFileSync(join(ROOT, 'docs/peers.md'), 'utf8');
    expect(peersPage(), 'docs/peers.md is out of date: run npm run docs').toBe(doc);
    for (const f of ['unavailable', 'slow', 'drop', 'streamEnds']) expect(doc).toMatch(new RegExp(`^\\| \`${f}\` \\| no \\| `, 'm'));
    expect(doc).toMatch(/^\| `contoso-cdn-stale` \| .* \| `runtime\.cardListener: "cdn"`/m);
  });
});
