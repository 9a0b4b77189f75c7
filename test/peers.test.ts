/**
 * Peer contract tests: bare undici requests (not our reference client) against the scripted peers
 * over real TLS/mTLS, plus the real @a2a-js/sdk 1.3.0 client against the control peer.
 */
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { http, HttpResponse } from 'msw';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role } from '@a2a-js/sdk';
import { validateCardV1 } from '../harness/core/card-validator.js';
import { validateCard } from '../harness/core/card-validator-v03.js';
import { cardDialect } from '../harness/core/protocol/card-view.js';
import { fillCard } from '../harness/core/scenario/card.js';
import { Transcript } from '../harness/core/transcript.js';
import { PushDispatcher } from '../harness/net/push-dispatcher.js';
import { makePki } from '../harness/pki/index.js';
import { audioMessage, bareRpc, peerFixture, rpcUrlOf, type PeerFixture, clientAgent } from './helpers/peer.js';
import { ALL_SCENARIOS, scenario } from './helpers/scenarios.js';
import { DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue, PACKAGE_ROOT } from '../harness/runner/load/catalogue.js';

let fx: PeerFixture;
let agent: Agent; // trusts the test CA, presents the client certificate
beforeAll(async () => {
  fx = await peerFixture();
  agent = clientAgent(fx.pki);
});
afterAll(async () => {
  await agent.close();
  await fx.close();
});

describe('the test helper knows the whole built-in catalogue', () => {
  it('ALL_SCENARIOS holds every scenario of every built-in scenario file', async () => {
    const files = await findScenarioFiles([DEFAULT_SCENARIO_GLOB], PACKAGE_ROOT);
    const ids = (await loadCatalogue(files)).map((e) => e.scenario.id).sort();
    expect(ALL_SCENARIOS.map((s) => s.id).sort()).toEqual(ids);
  });
});

describe('every card a peer serves is a structurally valid card of its dialect (A2A v1.0 or v0.3)', () => {
  it.each(ALL_SCENARIOS.map((s) => [s.id, s] as const))('%s', (_id, s) => {
    const card = fillCard(s.peer.card, {
      rpcUrl: 'https://127.0.0.1:1/t/x/rpc',
      rpcUrl03: 'https://127.0.0.1:1/t/x/rpc03',
      tokenUrl: 'https://127.0.0.1:1/t/x/oauth/token',
    });
    expect(cardDialect(card)).toBe(s.peer.dialect ?? 'a2a-v1');
    expect(validateCard(JSON.parse(JSON.stringify(card)))).toEqual([]);
  });
});

describe('contoso-audio-batch (seed 000, incident 1)', () => {
  it('answers frame 2 of a live upload with HTTP 415 and leaves the task in input-required', async () => {
    const run = fx.start(scenario('neg-live-input/live-audio-to-batch-peer').peer);
    const url = rpcUrlOf(run.peer.card);
    const first = await bareRpc(agent, url, 'SendMessage', audioMessage(320));
    expect(first.status).toBe(200);
    const task = first.json!.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await bareRpc(agent, url, 'SendMessage', audioMessage(320, task.id));
    expect(second.status).toBe(415);
    expect(run.ledger.get(task.id)!.state).toBe('TASK_STATE_INPUT_REQUIRED');
    run.end();
  });

  it('completes one complete payload', async () => {
    const run = fx.start(scenario('neg-live-input/bufferable-audio').peer);
    const url = rpcUrlOf(run.peer.card);
    const sent = await bareRpc(agent, url, 'SendMessage', { ...audioMessage(4 * 320), configuration: { returnImmediately: false } });
    expect(sent.json!.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    run.end();
  });

  it('versions per §3.6: no header reads as 0.3 and gets -32009; 1.0.1 is 1.0; 1.1 is refused; the query parameter counts', async () => {
    const run = fx.start(scenario('neg-live-input/text-task-on-audio-card').peer);
    const url = rpcUrlOf(run.peer.card);
    const missing = await bareRpc(agent, url, 'GetTask', { id: 'nope' }, { 'a2a-version': '' });
    expect(missing.json!.error.code).toBe(-32009);
    expect(missing.json!.error.data[0]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'VERSION_NOT_SUPPORTED',
      domain: 'a2a-protocol.org',
    });
    expect((await bareRpc(agent, url, 'GetTask', { id: 'nope' }, { 'a2a-version': '1.0.1' })).json!.error.code).toBe(-32001);
    expect((await bareRpc(agent, url, 'GetTask', { id: 'nope' }, { 'a2a-version': '1.1' })).json!.error.code).toBe(-32009);
    expect((await bareRpc(agent, url, 'GetTask', { id: 'nope' }, { 'a2a-version': '0.3' })).json!.error.code).toBe(-32009);
    const viaQuery = await bareRpc(agent, `${url}?A2A-Version=1.0`, 'GetTask', { id: 'nope' }, { 'a2a-version': '' });
    expect(viaQuery.json!.error.code).toBe(-32009); // an empty header is still the header (§3.6.2)
    const queryOnly = await request(`${url}?A2A-Version=1.0`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } }),
    });
    expect(((await queryOnly.body.json()) as { error: { code: number } }).error.code).toBe(-32001);
    const http = run.transcript.events.filter((e) => e.kind === 'http');
    expect(http.map((e) => e.kind === 'http' && (e.headers.a2aVersion ?? `query:${e.versionQuery}`))).toEqual(['', '1.0.1', '1.1', '0.3', '', 'query:1.0']);
    run.end();
  });

  it('serves the card with Cache-Control, an ETag and a 304 for If-None-Match (§8.6.1); records a digest of the body', async () => {
    const run = fx.start(scenario('neg-live-input/text-task-on-audio-card').peer);
    const first = await request(run.peer.cardUrl, { dispatcher: agent });
    const body = await first.body.text();
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toMatch(/max-age=\d+/);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await request(run.peer.cardUrl, { dispatcher: agent, headers: { 'if-none-match': etag } });
    await again.body.dump();
    expect(again.statusCode).toBe(304);
    const gets = run.transcript.events.filter((e) => e.kind === 'http');
    expect(gets[0]!.kind === 'http' && gets[0]!.bodyDigest).toBe(createHash('sha256').update(body).digest('hex'));
    expect(gets[1]!.kind === 'http' && gets[1]!.headers.ifNoneMatch).toBe(etag);
    run.end();
  });
});

describe('the A2A v1.0 JSON-RPC dialect, method by method', () => {
  const text = (t: string) => ({ message: { messageId: `m-${t}`, role: 'ROLE_USER', parts: [{ text: t }] }, configuration: { returnImmediately: true } });

  it('SendStreamingMessage answers with SSE: the task first, then events until a terminal state', async () => {
    const run = fx.start(scenario('neg-live-input/streaming-peer-control').peer);
    const res = await bareRpc(agent, rpcUrlOf(run.peer.card), 'SendStreamingMessage', text('stream'), { accept: 'text/event-stream' });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('text/event-stream');
    const events = res.text
      .split('\n\n')
      .filter((b) => b.startsWith('data: '))
      .map((b) => JSON.parse(b.slice(6)));
    expect(events[0].result.task.status.state).toBe('TASK_STATE_WORKING');
    expect(events.at(-1).result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.some((e) => e.result.artifactUpdate?.artifact.parts[0].mediaType === 'text/plain')).toBe(true);
    run.end();
  });

  it('GetTask, ListTasks, CancelTask, push config CRUD, GetExtendedAgentCard and an unknown method', async () => {
    // A long work time: the task must still be cancelable when CancelTask arrives, however loaded the machine.
    const p = scenario('neg-push-mtls/mtls-receiver').peer;
    const run = fx.start({ ...p, runtime: { ...p.runtime, workMs: 10_000 } });
    const url = rpcUrlOf(run.peer.card);
    const id = (await bareRpc(agent, url, 'SendMessage', text('crud'))).json!.result.task.id;
    expect((await bareRpc(agent, url, 'GetTask', { id })).json!.result.id).toBe(id);
    expect((await bareRpc(agent, url, 'ListTasks', {})).json!.result).toMatchObject({ tasks: [{ id }], nextPageToken: '', totalSize: 1 });
    // A webhook that is not https is refused at registration (§13.2), not accepted and never attempted.
    expect((await bareRpc(agent, url, 'CreateTaskPushNotificationConfig', { taskId: id, url: 'http://127.0.0.1:9/hook' })).json!.error.code).toBe(-32602);
    const cfg = (await bareRpc(agent, url, 'CreateTaskPushNotificationConfig', { taskId: id, url: 'https://127.0.0.1:9/hook' })).json!.result;
    expect(cfg).toMatchObject({ taskId: id, url: 'https://127.0.0.1:9/hook' });
    expect((await bareRpc(agent, url, 'GetTaskPushNotificationConfig', { taskId: id, id: cfg.id })).json!.result.id).toBe(cfg.id);
    expect((await bareRpc(agent, url, 'ListTaskPushNotificationConfigs', { taskId: id })).json!.result.configs).toHaveLength(1);
    expect((await bareRpc(agent, url, 'DeleteTaskPushNotificationConfig', { taskId: id, id: cfg.id })).json!.result).toEqual({});
    expect((await bareRpc(agent, url, 'CancelTask', { id })).json!.result.status.state).toBe('TASK_STATE_CANCELED');
    expect((await bareRpc(agent, url, 'CancelTask', { id })).json!.error.code).toBe(-32002);
    // §3.3.4: no extendedAgentCard capability → UnsupportedOperationError; declared but not configured → -32007.
    expect((await bareRpc(agent, url, 'GetExtendedAgentCard', {})).json!.error.code).toBe(-32004);
    expect((await bareRpc(agent, url, 'tasks/get', { id })).json!.error.code).toBe(-32601);
    run.end();
    const declared = fx.start({ ...p, card: { ...p.card, capabilities: { ...(p.card.capabilities as object), extendedAgentCard: true } } });
    expect((await bareRpc(agent, rpcUrlOf(declared.peer.card), 'GetExtendedAgentCard', {})).json!.error.code).toBe(-32007);
    declared.end();
  });

  it('ListTasks honours contextId, status, pageSize and a cursor page token, most recently updated first (§3.1.4); GetTask honours historyLength (§3.2.4)', async () => {
    const p = scenario('neg-push-mtls/https-receiver-polls').peer;
    const run = fx.start({ ...p, runtime: { ...p.runtime, workMs: 10_000 } });
    const url = rpcUrlOf(run.peer.card);
    const send = (ctx: string, t: string) =>
      bareRpc(agent, url, 'SendMessage', {
        message: { messageId: `m-${t}`, role: 'ROLE_USER', contextId: ctx, parts: [{ text: t }] },
        configuration: { returnImmediately: true },
      });
    const a = (await send('ctx-a', 'one')).json!.result.task.id;
    const b = (await send('ctx-a', 'two')).json!.result.task.id;
    const c = (await send('ctx-b', 'three')).json!.result.task.id;
    await bareRpc(agent, url, 'CancelTask', { id: b });
    const ids = (r: { tasks: Array<{ id: string }> }) => r.tasks.map((t) => t.id);
    const list = async (params: object) => (await bareRpc(agent, url, 'ListTasks', params)).json!.result;
    // b was updated last (canceled), then c, then a.
    expect(ids(await list({}))).toEqual([b, c, a]);
    expect(ids(await list({ contextId: 'ctx-a' }))).toEqual([b, a]);
    expect(ids(await list({ status: 'TASK_STATE_CANCELED' }))).toEqual([b]);
    const page1 = await list({ pageSize: 2 });
    expect(page1).toMatchObject({ pageSize: 2, totalSize: 3 });
    expect(ids(page1)).toEqual([b, c]);
    const page2 = await list({ pageSize: 2, pageToken: page1.nextPageToken });
    expect(ids(page2)).toEqual([a]);
    expect(page2.nextPageToken).toBe('');
    expect((await bareRpc(agent, url, 'ListTasks', { pageSize: 0 })).json!.error.code).toBe(-32602);
    expect((await bareRpc(agent, url, 'ListTasks', { pageToken: 'bogus' })).json!.error.code).toBe(-32602);
    // A follow-up message to task a: its history holds both messages; historyLength trims it.
    await bareRpc(agent, url, 'SendMessage', {
      message: { messageId: 'm-one-more', role: 'ROLE_USER', taskId: a, parts: [{ text: 'one more' }] },
      configuration: { returnImmediately: true },
    });
    const history = async (h?: number) =>
      ((await bareRpc(agent, url, 'GetTask', { id: a, ...(h === undefined ? {} : { historyLength: h }) })).json!.result.history ?? []).map(
        (m: { messageId: string }) => m.messageId,
      );
    expect(await history()).toEqual(['m-one', 'm-one-more']);
    expect(await history(1)).toEqual(['m-one-more']);
    expect(await history(0)).toEqual([]);
    run.end();
  });

  it('a blocking SendMessage waits for a terminal state within the deadline, not a fixed 0.8 s (§3.2.2)', async () => {
    const p = scenario('neg-push-mtls/https-receiver-polls').peer;
    const run = fx.start({ ...p, runtime: { ...p.runtime, workMs: 1_500 } }, { deadlineMs: 8_000 });
    const res = await bareRpc(agent, rpcUrlOf(run.peer.card), 'SendMessage', {
      message: { messageId: 'm-block', role: 'ROLE_USER', parts: [{ text: 'wait for me' }] },
    });
    expect(res.json!.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    run.end();
  });

  it("seed 001's drifting workflow: a blocking SendMessage is answered once the undecodable artifact is shown (the task stays WORKING); every send mints a task, unless the peer deduplicates by messageId (§3.3.1); the skill a message names picks its outputs", async () => {
    const drift = scenario('trust-decode/drift').peer;
    const run = fx.start(drift, { deadlineMs: 8_000 });
    const url = rpcUrlOf(run.peer.card);
    const msg = (id: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: id, role: 'ROLE_USER', parts: [{ text: 'run it' }], ...extra } });
    const first = await bareRpc(agent, url, 'SendMessage', msg('m-1'));
    expect(first.json!.result.task.status.state).toBe('TASK_STATE_WORKING');
    expect(first.json!.result.task.artifacts[0].parts[0].mediaType).toBe('application/vnd.vendorx.workflow+json;profile="v3"');
    await bareRpc(agent, url, 'SendMessage', { ...msg('m-1'), configuration: { returnImmediately: true } });
    expect(run.ledger.all()).toHaveLength(2); // no idempotency: the same messageId minted again
    run.end();
    const dedupe = fx.start(scenario('trust-decode/dedupe').peer, { deadlineMs: 8_000 });
    const durl = rpcUrlOf(dedupe.peer.card);
    const a = await bareRpc(agent, durl, 'SendMessage', { ...msg('m-1'), configuration: { returnImmediately: true } });
    const b = await bareRpc(agent, durl, 'SendMessage', { ...msg('m-1'), configuration: { returnImmediately: true } });
    expect(b.json!.result.task.id).toBe(a.json!.result.task.id);
    expect(dedupe.ledger.all()).toHaveLength(1);
    expect(dedupe.transcript.events.filter((e) => e.kind === 'http' && e.deduplicated)).toHaveLength(1);
    dedupe.end();
    const skills = fx.start(scenario('trust-uninterpretable/decodable-skill').peer, { deadlineMs: 8_000 });
    const surl = rpcUrlOf(skills.peer.card);
    const json = await bareRpc(agent, surl, 'SendMessage', msg('m-2', { metadata: { skillId: 'summary' } }));
    const plain = await bareRpc(agent, surl, 'SendMessage', msg('m-3'));
    expect(json.json!.result.task.artifacts[0].parts[0].mediaType).toBe('application/json');
    expect(plain.json!.result.task.artifacts[0].parts[0].mediaType).toBe('application/vnd.vendorx.workflow+json;profile="v3"');
    skills.end();
  });

  it('answers with a direct Message and mints no task where the runtime says so (§3.1.1)', async () => {
    const run = fx.start(scenario('wire/message-reply').peer);
    const res = await bareRpc(agent, rpcUrlOf(run.peer.card), 'SendMessage', text('hi'));
    expect(res.json!.result.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'result' }] });
    expect(res.json!.result.task).toBeUndefined();
    expect(run.ledger.all()).toEqual([]);
    const ev = run.transcript.events.find((e) => e.kind === 'http');
    expect(ev?.kind === 'http' && ev.reply).toBe('message');
    run.end();
  });

  it('refuses push methods with -32003 where push is not supported, and a media type the card does not list with -32005', async () => {
    const run = fx.start(scenario('neg-live-input/text-task-on-audio-card').peer);
    const url = rpcUrlOf(run.peer.card);
    expect((await bareRpc(agent, url, 'CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://127.0.0.1:9/h' })).json!.error.code).toBe(-32003);
    const opus = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: 'AAAA', mediaType: 'audio/opus' }] } };
    expect((await bareRpc(agent, url, 'SendMessage', opus)).json!.error.code).toBe(-32005);
    expect(run.ledger.all()).toEqual([]);
    run.end();
  });
});

describe('contoso-resubscribe-only (seed 000, invariant 3)', () => {
  it('refuses SubscribeToTask with -32004 UnsupportedOperation on a non-streaming peer', async () => {
    const run = fx.start(scenario('neg-resub-only/only-output-unreachable').peer);
    const url = rpcUrlOf(run.peer.card);
    const sent = await bareRpc(agent, url, 'SendMessage', {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: { returnImmediately: true },
    });
    const res = await bareRpc(agent, url, 'SubscribeToTask', { id: sent.json!.result.task.id });
    expect(res.status).toBe(200);
    expect(res.json!.error.code).toBe(-32004);
    expect(res.json!.error.data[0].reason).toBe('UNSUPPORTED_OPERATION');
    run.end();
  });
});

describe('contoso-mtls-push (seed 000, incident 2)', () => {
  it('demands a client certificate on the RPC listener: no certificate, no HTTP request', async () => {
    const run = fx.start(scenario('neg-push-mtls/https-receiver-wants-push').peer);
    const noCert = new Agent({ connect: { ca: fx.pki.testCa.cert } });
    await expect(bareRpc(noCert, rpcUrlOf(run.peer.card), 'ListTasks', {})).rejects.toThrow();
    await noCert.close();
    await new Promise((r) => setTimeout(r, 50));
    const tls = run.transcript.events.filter((e) => e.kind === 'tls' && !e.ok);
    expect(tls.length).toBeGreaterThan(0);
    expect(run.transcript.events.filter((e) => e.kind === 'http')).toEqual([]);
    run.end();
  });

  async function receiver(opts: { partner: boolean }) {
    const got: Array<{ cert?: string; body: string }> = [];
    const server = createServer(
      opts.partner
        ? { cert: fx.pki.partnerReceiver.cert, key: fx.pki.partnerReceiver.key, ca: fx.pki.partnerCa.cert, requestCert: true, rejectUnauthorized: true }
        : { cert: fx.pki.receiver.cert, key: fx.pki.receiver.key },
      (req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const peer = (req.socket as TLSSocket).getPeerCertificate();
          got.push({ cert: peer?.subject?.CN as string | undefined, body });
          res.writeHead(200).end();
        });
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, close: () => server.close() };
  }

  async function pushTo(url: string) {
    const run = fx.start(scenario('neg-push-mtls/mtls-receiver').peer);
    const res = await bareRpc(agent, rpcUrlOf(run.peer.card), 'SendMessage', {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'claim 1' }] },
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url } },
    });
    expect(res.json!.result.task.status.state).toBe('TASK_STATE_WORKING');
    // Wait for the dispatcher's attempts (however slow the machine), then a little for the rest.
    const until = Date.now() + 10_000;
    while (Date.now() < until && !run.transcript.events.some((e) => e.kind === 'push-attempt')) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    run.end();
    return run;
  }

  it("delivers over partner mTLS: the receiver sees the dispatcher's partner certificate", async () => {
    const r = await receiver({ partner: true });
    const run = await pushTo(r.url);
    r.close();
    expect(r.got.length).toBeGreaterThan(0);
    expect(r.got[0]!.cert).toBe('partner-dispatcher');
    expect(JSON.parse(r.got[0]!.body).statusUpdate.status.state).toBe('TASK_STATE_WORKING');
    const attempts = run.transcript.events.filter((e) => e.kind === 'push-attempt');
    expect(attempts.map((a) => a.kind === 'push-attempt' && a.outcome)).toContain('delivered');
  });

  it('a plain receiver: registration succeeds, the dispatcher records a certificate-verification error, nothing arrives, the task completes all the same', async () => {
    const r = await receiver({ partner: false });
    const run = await pushTo(r.url);
    r.close();
    expect(r.got).toEqual([]);
    const attempts = run.transcript.events.filter((e) => e.kind === 'push-attempt');
    expect(attempts.length).toBeGreaterThan(0);
    for (const a of attempts) {
      if (a.kind !== 'push-attempt') continue;
      expect(a.outcome).toBe('tls-error');
      // Verification of the receiver's test-CA certificate against the partner CA, not a refused connection.
      expect(a.error).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/);
    }
    expect(run.transcript.events.some((e) => e.kind === 'push-register')).toBe(true);
    // Seed 000: only the callback is lost; the task completes, so a client that polls recovers.
    expect(run.ledger.all()[0]!.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a session extension opted into on the first message lets the batch peer take frame after frame (NEG-ESCALATE)', async () => {
    const s = scenario('neg-escalate/known-extension');
    const ext = s.peer.runtime.input!.sessionExtension!;
    for (const how of ['header', 'message'] as const) {
      const run = fx.start(s.peer);
      const url = rpcUrlOf(run.peer.card);
      const first = audioMessage(320);
      if (how === 'message') (first.message as Record<string, unknown>).extensions = [ext];
      const res = await bareRpc(agent, url, 'SendMessage', first, how === 'header' ? { 'a2a-extensions': ext } : {});
      const task = res.json!.result.task;
      for (let i = 2; i <= 4; i++) expect((await bareRpc(agent, url, 'SendMessage', audioMessage(320, task.id))).status).toBe(200);
      const until = Date.now() + 10_000;
      while (Date.now() < until && run.ledger.get(task.id)!.state !== 'TASK_STATE_COMPLETED') await new Promise((r) => setTimeout(r, 20));
      expect(run.ledger.get(task.id)!.state).toBe('TASK_STATE_COMPLETED');
      const ev = run.transcript.events.find((e) => e.kind === 'http');
      expect(ev?.kind === 'http' && (how === 'header' ? ev.headers.a2aExtensions : ev.messageExtensions?.[0])).toBe(ext);
      run.end();
    }
    // Without the opt-in, frame 2 is refused as before.
    const run = fx.start(s.peer);
    const url = rpcUrlOf(run.peer.card);
    const task = (await bareRpc(agent, url, 'SendMessage', audioMessage(320))).json!.result.task;
    expect((await bareRpc(agent, url, 'SendMessage', audioMessage(320, task.id))).status).toBe(415);
    run.end();
  });
});

describe('peers composed from parts: a step after the card is filled, another origin, a gate before the RPC', () => {
  it('signs (here: stamps) the filled card, serves another origin, and records what a gate answered: scheme and digest, never the credential', async () => {
    const s = scenario('spec-tls-verify/valid-certificate-control');
    const run = fx.start(s.peer, {
      parts: {
        finishCard: (card) => ({ ...card, documentationUrl: `${String((card.supportedInterfaces as Array<{ url: string }>)[0]!.url)}#filled` }),
        origins: (ctx) => [http.get(`${ctx.base('mtls')}/.well-known/jwks.json`, () => HttpResponse.json({ keys: [] }))],
        gates: (_ctx, rpcUrl) => [
          http.post(rpcUrl, ({ request }) => {
            const auth = request.headers.get('authorization');
            if (auth === 'Bearer good') return undefined; // let it pass to the method table
            if (auth === 'Bearer busy') return new HttpResponse('busy', { status: 503, headers: { 'retry-after': '2' } });
            return new HttpResponse(null, { status: 401, headers: { 'www-authenticate': 'DPoP algs="ES256"' } });
          }),
        ],
      },
    });
    const url = rpcUrlOf(run.peer.card);
    expect(run.peer.card.documentationUrl).toBe(`${url}#filled`);
    expect(validateCardV1(JSON.parse(JSON.stringify(run.peer.card)))).toEqual([]);
    const jwks = await request(run.peer.cardUrl.replace(/^https:\/\/127\.0\.0\.1:\d+/, fx.host.origin('mtls')).replace('agent-card.json', 'jwks.json'), {
      dispatcher: agent,
    });
    expect(await jwks.body.json()).toEqual({ keys: [] });
    expect((await bareRpc(agent, url, 'GetTask', { id: 'x' }, { authorization: 'Bearer secret-token' })).status).toBe(401);
    expect((await bareRpc(agent, url, 'GetTask', { id: 'x' }, { authorization: 'Bearer busy' })).status).toBe(503);
    expect((await bareRpc(agent, url, 'GetTask', { id: 'x' }, { authorization: 'Bearer good' })).json!.error.code).toBe(-32001);
    const rpc = run.transcript.events.filter((e) => e.kind === 'http' && e.path.endsWith('/rpc'));
    expect(rpc.map((e) => e.kind === 'http' && e.response?.wwwAuthenticate)).toEqual(['DPoP algs="ES256"', undefined, undefined]);
    expect(rpc.map((e) => e.kind === 'http' && e.response?.retryAfter)).toEqual([undefined, '2', undefined]);
    expect(rpc.map((e) => e.kind === 'http' && e.headers.authScheme)).toEqual(['Bearer', 'Bearer', 'Bearer']);
    expect(new Set(rpc.map((e) => e.kind === 'http' && e.headers.authDigest)).size).toBe(3);
    expect(JSON.stringify(run.transcript.events)).not.toContain('secret-token');
    run.end();
  });
});

describe('bad-certificate peers (SPEC-TLS-VERIFY)', () => {
  it.each(['untrusted-ca', 'wrong-host', 'expired'])('%s: a verifying client fails the handshake; the listener records it', async (kind) => {
    const run = fx.start(scenario(`spec-tls-verify/${kind}`).peer);
    await expect(bareRpc(agent, run.peer.cardUrl, 'GetTask', {})).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    expect(run.transcript.events.some((e) => e.kind === 'tls' && !e.ok)).toBe(true);
    expect(run.transcript.events.some((e) => e.kind === 'http')).toBe(false);
    run.end();
  });
});

describe('@a2a-js/sdk 1.3.0 against the control peer: our peers speak real A2A v1.0', () => {
  it('SendMessage, GetTask and CancelTask', async () => {
    const s = scenario('spec-tls-verify/valid-certificate-control');
    const run = fx.start({ ...s.peer, runtime: { ...s.peer.runtime, workMs: 5_000 } });
    const sdkAgent = new Agent({ connect: { ca: fx.pki.testCa.cert } });
    const fetchImpl = ((url: string, init?: RequestInit) => fetch(url, { ...init, dispatcher: sdkAgent } as RequestInit)) as typeof fetch;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    const client = await factory.createFromUrl(run.peer.cardUrl, '');
    const sent = await client.sendMessage({
      tenant: '',
      metadata: {},
      configuration: { acceptedOutputModes: ['text/plain'], returnImmediately: true } as never,
      message: {
        messageId: 'sdk-1',
        role: Role.ROLE_USER,
        taskId: '',
        contextId: '',
        extensions: [],
        metadata: {},
        referenceTaskIds: [],
        parts: [{ content: { $case: 'text', value: 'hello' }, mediaType: 'text/plain', filename: '', metadata: undefined }],
      },
    } as never);
    const task = (sent as { payload?: { $case: string; value: { id: string } } }).payload?.value ?? (sent as unknown as { id: string });
    expect(task.id).toMatch(/^task-/);
    const got = await client.getTask({ tenant: '', id: task.id } as never);
    expect(got.id).toBe(task.id);
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined } as never);
    expect(String(canceled.status?.state)).toMatch(/CANCELED|5/);
    const methods = run.transcript.events.flatMap((e) => (e.kind === 'http' && e.rpc ? [e.rpc.method] : []));
    expect(methods).toEqual(['SendMessage', 'GetTask', 'CancelTask']);
    expect(run.ledger.get(task.id)!.state).toBe('TASK_STATE_CANCELED');
    await sdkAgent.close();
    run.end();
  });
});

describe('the push dispatcher', () => {
  it("a run's record waits for a delivery under way: a receiver that acts on the body before it answers still leaves its push in the transcript", async () => {
    const pki = await makePki();
    const dispatcher = new PushDispatcher(pki);
    const transcript = new Transcript(() => performance.now());
    // The receiver has the body at once (as a client that reports on a COMPLETED push), and answers 300 ms later.
    let got!: () => void;
    const received = new Promise<void>((r) => (got = r));
    const receiver = createServer({ cert: pki.receiver.cert, key: pki.receiver.key }, (req, res) => {
      req.resume();
      req.on('end', () => {
        got();
        setTimeout(() => res.writeHead(200).end(), 300);
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    try {
      const url = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/push`;
      void dispatcher.dispatch({ transcript, taskId: 't-1', url, state: 'TASK_STATE_COMPLETED', mode: 'plain', payload: { statusUpdate: {} } } as never);
      await received;
      expect(transcript.events.filter((e) => e.kind === 'push-attempt')).toEqual([]);
      await dispatcher.settled(transcript, 5000);
      expect(transcript.events.filter((e) => e.kind === 'push-attempt').map((e) => (e as { outcome: string }).outcome)).toEqual(['delivered']);
    } finally {
      receiver.close();
      await dispatcher.close();
    }
  });
});
