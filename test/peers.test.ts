/**
 * Peer contract tests: bare undici requests (not our reference client) against the scripted peers
 * over real TLS/mTLS, plus the real @a2a-js/sdk 1.3.0 client against the control peer.
 */
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role } from '@a2a-js/sdk';
import { validateCardV1 } from '../harness/core/card-validator.js';
import { fillCard } from '../harness/core/scenario.js';
import { audioMessage, bareRpc, peerFixture, rpcUrlOf, type PeerFixture } from './helpers/peer.js';
import { ALL_SCENARIOS, scenario } from './helpers/scenarios.js';

let fx: PeerFixture;
let agent: Agent; // trusts the test CA, presents the client certificate
beforeAll(async () => {
  fx = await peerFixture();
  agent = new Agent({ connect: { ca: fx.pki.testCa.cert, cert: fx.pki.client.cert, key: fx.pki.client.key } });
});
afterAll(async () => {
  await agent.close();
  await fx.close();
});

describe('every card a peer serves is a structurally valid A2A v1.0 card', () => {
  it.each(ALL_SCENARIOS.map((s) => [s.id, s] as const))('%s', (_id, s) => {
    const card = fillCard(s.peer.card, { rpcUrl: 'https://127.0.0.1:1/t/x/rpc', negotiationUrl: 'https://127.0.0.1:1/t/x/negotiate' });
    expect(validateCardV1(JSON.parse(JSON.stringify(card)))).toEqual([]);
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

  it('accepts a missing A2A-Version header and records its absence', async () => {
    const run = fx.start(scenario('neg-live-input/text-task-on-audio-card').peer);
    const res = await bareRpc(agent, rpcUrlOf(run.peer.card), 'GetTask', { id: 'nope' }, { 'a2a-version': '' });
    expect(res.json!.error.code).toBe(-32001);
    expect(res.json!.error.data[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });
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
    const events = res.text.split('\n\n').filter((b) => b.startsWith('data: ')).map((b) => JSON.parse(b.slice(6)));
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
    const cfg = (await bareRpc(agent, url, 'CreateTaskPushNotificationConfig', { taskId: id, url: 'https://127.0.0.1:9/hook' })).json!.result;
    expect(cfg).toMatchObject({ taskId: id, url: 'https://127.0.0.1:9/hook' });
    expect((await bareRpc(agent, url, 'GetTaskPushNotificationConfig', { taskId: id, id: cfg.id })).json!.result.id).toBe(cfg.id);
    expect((await bareRpc(agent, url, 'ListTaskPushNotificationConfigs', { taskId: id })).json!.result.configs).toHaveLength(1);
    expect((await bareRpc(agent, url, 'DeleteTaskPushNotificationConfig', { taskId: id, id: cfg.id })).json!.result).toEqual({});
    expect((await bareRpc(agent, url, 'CancelTask', { id })).json!.result.status.state).toBe('TASK_STATE_CANCELED');
    expect((await bareRpc(agent, url, 'CancelTask', { id })).json!.error.code).toBe(-32002);
    expect((await bareRpc(agent, url, 'GetExtendedAgentCard', {})).json!.error.code).toBe(-32007);
    expect((await bareRpc(agent, url, 'tasks/get', { id })).json!.error.code).toBe(-32601);
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
    const sent = await bareRpc(agent, url, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, configuration: { returnImmediately: true } });
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

  it('delivers over partner mTLS: the receiver sees the dispatcher\'s partner certificate', async () => {
    const r = await receiver({ partner: true });
    const run = await pushTo(r.url);
    r.close();
    expect(r.got.length).toBeGreaterThan(0);
    expect(r.got[0]!.cert).toBe('partner-dispatcher');
    expect(JSON.parse(r.got[0]!.body).statusUpdate.status.state).toBe('TASK_STATE_WORKING');
    const attempts = run.transcript.events.filter((e) => e.kind === 'push-attempt');
    expect(attempts.map((a) => a.kind === 'push-attempt' && a.outcome)).toContain('delivered');
  });

  it('a plain receiver: registration succeeds, the dispatcher records a certificate-verification error, nothing arrives, the task stays working', async () => {
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
    expect(run.ledger.all()[0]!.state).toBe('TASK_STATE_WORKING');
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
      message: { messageId: 'sdk-1', role: Role.ROLE_USER, taskId: '', contextId: '', extensions: [], metadata: {}, referenceTaskIds: [], parts: [{ content: { $case: 'text', value: 'hello' }, mediaType: 'text/plain', filename: '', metadata: undefined }] },
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
