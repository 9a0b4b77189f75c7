/**
 * The peers' payload fixes (issue 23, item 1), each on a bare request: a file part's bytes in history
 * stay base64, fields the proto does not define are not echoed, a v0.3 call with an object id is
 * refused (-32600), v0.3's tasks/pushNotificationConfig/get takes bare TaskIdParams, HEAD on the card.
 * That every payload of every built-in scenario is valid is checked in test/full-runs.test.ts.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from 'undici';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import { audioMessage, bareRpc, clientAgent, peerFixture, rpcUrlOf, type PeerFixture } from './helpers/peer.js';

describe("the peers' payload fixes", () => {
  let fx: PeerFixture;
  let agent: Agent;
  beforeAll(async () => {
    fx = await peerFixture();
    agent = clientAgent(fx.pki);
  });
  afterAll(async () => {
    await agent.close();
    await fx.close();
  });

  const desc = (dialect: 'a2a-v1' | 'a2a-v0.3'): PeerDescription => ({
    factory: 'contoso-control',
    ...(dialect === 'a2a-v0.3' ? { dialect } : {}),
    card:
      dialect === 'a2a-v1'
        ? {
            name: 'Contoso Intake',
            description: 'Takes audio and notes.',
            supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
            version: '1.0.0',
            capabilities: { streaming: false, pushNotifications: true },
            defaultInputModes: ['audio/pcm', 'text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [{ id: 'intake', name: 'Intake', description: 'Takes input', tags: ['intake'] }],
          }
        : {
            name: 'Contoso Intake',
            description: 'Takes audio and notes.',
            url: '{{rpcUrl}}',
            preferredTransport: 'JSONRPC',
            protocolVersion: '0.3.0',
            version: '1.0.0',
            capabilities: { streaming: false, pushNotifications: true },
            defaultInputModes: ['audio/pcm', 'text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [{ id: 'intake', name: 'Intake', description: 'Takes input', tags: ['intake'] }],
          },
    runtime: {
      cardListener: 'tls',
      rpcListener: 'tls',
      workMs: 20,
      streaming: false,
      push: { supported: true, delivery: 'plain' },
      outputs: [{ mediaType: 'text/plain', channel: 'task' }],
    },
    signals: [],
  });

  it("v1.0: history keeps a file part's bytes whole and drops fields the proto does not define", async () => {
    const run = fx.start(desc('a2a-v1'));
    try {
      const url = rpcUrlOf(run.peer.card);
      const sent = audioMessage(3000);
      const msg = { ...sent.message, vendorTrace: { hop: 1 }, parts: [{ ...sent.message.parts[0]!, vendorHint: 'x' }] };
      const r = await bareRpc(agent, url, 'SendMessage', { message: msg, configuration: { returnImmediately: true } });
      const task = r.json!.result.task as { id: string; history: Array<Record<string, any>> };
      const got = await bareRpc(agent, url, 'GetTask', { id: task.id });
      const h = (got.json!.result.history as Array<Record<string, any>>)[0]!;
      expect(h.parts[0].raw).toBe(sent.message.parts[0]!.raw);
      expect(Object.keys(h).sort()).toEqual(['contextId', 'messageId', 'parts', 'role', 'taskId']);
      expect(Object.keys(h.parts[0]).sort()).toEqual(['mediaType', 'raw']);
    } finally {
      run.end();
    }
  });

  it('v0.3: an object as the JSON-RPC id is an invalid request (-32600, id null), and no task is minted', async () => {
    const run = fx.start(desc('a2a-v0.3'));
    try {
      const res = await request(run.peer.card.url as string, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: { nested: 1 },
          method: 'message/send',
          params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
        }),
      });
      const body = (await res.body.json()) as { id: unknown; error: { code: number } };
      expect(body.error.code).toBe(-32600);
      expect(body.id).toBeNull();
      expect(run.ledger.all()).toEqual([]);
    } finally {
      run.end();
    }
  });

  it("v0.3: tasks/pushNotificationConfig/get with bare TaskIdParams answers the task's config; v1.0 still requires the config id", async () => {
    const run = fx.start(desc('a2a-v0.3'));
    try {
      const url = run.peer.card.url as string;
      const call = async (method: string, params: unknown) => {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, params }),
        });
        return (await res.body.json()) as { result?: any; error?: { code: number } };
      };
      const sent = await call('message/send', {
        message: { kind: 'message', messageId: 'm2', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
        configuration: { blocking: false },
      });
      const taskId = sent.result.id as string;
      await call('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: 'https://127.0.0.1:9/hook', token: 't' } });
      const got = await call('tasks/pushNotificationConfig/get', { id: taskId });
      expect(got.error).toBeUndefined();
      expect(got.result.taskId).toBe(taskId);
      expect(got.result.pushNotificationConfig.url).toBe('https://127.0.0.1:9/hook');
    } finally {
      run.end();
    }
  });

  it("HEAD on the card answers 200 with the GET's headers and no body; other methods 405", async () => {
    const run = fx.start(desc('a2a-v1'));
    try {
      const get = await request(run.peer.cardUrl, { dispatcher: agent });
      const text = await get.body.text();
      const head = await request(run.peer.cardUrl, { method: 'HEAD', dispatcher: agent });
      expect(head.statusCode).toBe(200);
      expect(await head.body.text()).toBe('');
      expect(head.headers.etag).toBe(get.headers.etag);
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(text)));
      const del = await request(run.peer.cardUrl, { method: 'DELETE', dispatcher: agent });
      await del.body.dump();
      expect(del.statusCode).toBe(405);
    } finally {
      run.end();
    }
  });
});
