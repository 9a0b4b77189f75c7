/**
 * The HTTP+JSON wire (A2A v1.0 §11) of the scripted peers, with bare undici requests over real TLS
 * (the run's test CA): a card offering `{{restUrl}}` gets the interface served beside the JSON-RPC
 * one, over the same runtime; every route of §11.3 (and under a `/{tenant}` prefix), SSE of bare
 * StreamResponse objects, google.rpc.Status errors with §5.4's HTTP column; and the transcript
 * keeping the neutral operation, params and error code whatever the binding.
 */
import { type Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import type { HttpEvent, Transcript } from '../harness/core/transcript.js';
import { bareRpc, sharedPeer } from './helpers/peer.js';

const desc: PeerDescription = {
  factory: 'contoso-control',
  card: {
    name: 'Contoso Notes (REST)',
    description: 'Files notes; speaks A2A 1.0 over JSON-RPC and HTTP+JSON.',
    supportedInterfaces: [
      { url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: '{{restUrl}}', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    version: '1.4.0',
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'notes', name: 'Notes', description: 'Files a note', tags: ['notes'] }],
  },
  runtime: {
    cardListener: 'tls',
    rpcListener: 'tls',
    // Long enough that no task finishes on its own during a test: each one ends by a cancel, or with the run.
    workMs: 600_000,
    streaming: true,
    push: { supported: true, delivery: 'plain' },
    outputs: [{ mediaType: 'text/plain', channel: 'task' }],
    extendedCard: { name: 'Contoso Notes (extended)', description: 'for callers who authenticated', version: '1.4.0' },
  },
  signals: [],
};

const peer = sharedPeer();
type Json = Record<string, any>;

/** A bare HTTP+JSON call: no client of ours in the way. */
async function rest(agent: Agent, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: method as 'GET',
    dispatcher: agent,
    headers: { 'a2a-version': '1.0', ...(body !== undefined ? { 'content-type': 'application/a2a+json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** The first `n` SSE events of a stream (the `data:` of each, parsed), and the rest of the stream after `then` ran. */
async function sse(agent: Agent, method: 'GET' | 'POST', url: string, body: unknown, then: (first: Json[]) => Promise<unknown>, n = 1) {
  const res = await request(url, {
    method,
    dispatcher: agent,
    headers: { 'a2a-version': '1.0', accept: 'text/event-stream', ...(body !== undefined ? { 'content-type': 'application/a2a+json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const events: Json[] = [];
  const raw: string[] = [];
  let buf = '';
  let ran = false;
  for await (const chunk of res.body) {
    buf += chunk.toString();
    let at = buf.indexOf('\n\n');
    while (at >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      raw.push(frame);
      events.push(JSON.parse(frame.replace(/^data: /, '')));
      at = buf.indexOf('\n\n');
    }
    if (!ran && events.length >= n) {
      ran = true;
      await then(events.slice());
    }
  }
  return { status: res.statusCode, type: String(res.headers['content-type']), events, raw };
}

const message = (text: string, extra: Json = {}) => ({
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text, mediaType: 'text/plain' }], ...extra },
  configuration: { returnImmediately: true },
});

function start() {
  const run = peer.fx.start(desc);
  const interfaces = run.peer.card.supportedInterfaces as Array<{ url: string; protocolBinding: string }>;
  const rpcUrl = interfaces[0]!.url;
  const restUrl = interfaces[1]!.url;
  return { run, rpcUrl, restUrl };
}

/** The http event that answered the last request to `path` (below the run's base). */
function lastAt(transcript: Transcript, suffix: string): HttpEvent {
  const evs = transcript.events.filter((e): e is HttpEvent => e.kind === 'http' && e.path.split('?')[0]!.endsWith(suffix));
  expect(evs.length, `an http event at …${suffix}`).toBeGreaterThan(0);
  return evs.at(-1)!;
}

async function newTask(agent: Agent, restUrl: string, text = 'note'): Promise<Json> {
  const sent = await rest(agent, 'POST', `${restUrl}/message:send`, message(text));
  expect(sent.status).toBe(200);
  return sent.json!.task;
}

describe('the HTTP+JSON wire (A2A v1.0 §11)', () => {
  it('a card offering {{restUrl}} gets it served; SendMessage over POST /message:send creates a task in the one ledger', async () => {
    const { run, restUrl } = start();
    expect(restUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/t\/[^/]+\/rest$/);
    const sent = await rest(peer.agent, 'POST', `${restUrl}/message:send`, message('hello'));
    expect(sent.status).toBe(200);
    expect(String(sent.headers['content-type'])).toContain('application/a2a+json');
    expect(sent.json!.jsonrpc).toBeUndefined();
    const task = sent.json!.task;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(run.ledger.get(task.id)?.state).toBe('TASK_STATE_WORKING');
    const ev = lastAt(run.transcript, '/rest/message:send');
    expect(ev.rpc).toMatchObject({ method: 'SendMessage', id: null, wireMethod: 'POST /message:send' });
    expect((ev.rpc!.params as Json).message.parts).toEqual([{ text: 'hello', mediaType: 'text/plain' }]);
    expect(ev).toMatchObject({ binding: 'HTTP+JSON', interfaceUrl: restUrl, reply: 'task', taskId: task.id });
    run.end();
  });

  it('GetTask reads historyLength from the query (a number), ListTasks its typed filters; a malformed number is a 400', async () => {
    const { run, restUrl } = start();
    const a = await newTask(peer.agent, restUrl, 'first');
    const b = await newTask(peer.agent, restUrl, 'second');
    const got = await rest(peer.agent, 'GET', `${restUrl}/tasks/${encodeURIComponent(a.id)}?historyLength=0`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ id: a.id, status: { state: 'TASK_STATE_WORKING' } });
    expect(got.json!.history ?? []).toEqual([]);
    const ev = lastAt(run.transcript, `/tasks/${a.id}`);
    expect(ev.rpc).toMatchObject({ method: 'GetTask', params: { id: a.id, historyLength: 0 }, wireMethod: 'GET /tasks/{id}' });

    const listed = await rest(
      peer.agent,
      'GET',
      `${restUrl}/tasks?contextId=${encodeURIComponent(b.contextId)}&pageSize=5&includeArtifacts=true&status=TASK_STATE_WORKING`,
    );
    expect(listed.status).toBe(200);
    expect(listed.json!.tasks.map((t: Json) => t.id)).toEqual([b.id]);
    expect(lastAt(run.transcript, '/rest/tasks').rpc).toMatchObject({
      method: 'ListTasks',
      params: { contextId: b.contextId, pageSize: 5, includeArtifacts: true, status: 'TASK_STATE_WORKING' },
      wireMethod: 'GET /tasks',
    });
    const all = await rest(peer.agent, 'GET', `${restUrl}/tasks?pageSize=1`);
    expect(all.json!.tasks).toHaveLength(1);
    expect(all.json!.nextPageToken).not.toBe('');
    // Paging: the next page by the peer's own pageToken (a query name with "token" in it reaches the peer as sent;
    // only the transcript's copy of the path is redacted), and an empty pageToken is the first page.
    const next = await rest(peer.agent, 'GET', `${restUrl}/tasks?pageSize=1&pageToken=${encodeURIComponent(all.json!.nextPageToken)}`);
    expect(next.status, next.text).toBe(200);
    expect(next.json!.tasks).toHaveLength(1);
    expect([...all.json!.tasks, ...next.json!.tasks].map((t: Json) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect(lastAt(run.transcript, '/rest/tasks').path).toMatch(/pageToken=REDACTED/);
    const first = await rest(peer.agent, 'GET', `${restUrl}/tasks?pageSize=1&pageToken=`);
    expect(first.status, first.text).toBe(200);
    expect(first.json!.tasks.map((t: Json) => t.id)).toEqual(all.json!.tasks.map((t: Json) => t.id));

    const bad = await rest(peer.agent, 'GET', `${restUrl}/tasks/${a.id}?historyLength=ten`);
    expect(bad.status).toBe(400);
    expect(bad.json!.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(lastAt(run.transcript, `/tasks/${a.id}`).rpcError?.code).toBe(-32602);
    const badBool = await rest(peer.agent, 'GET', `${restUrl}/tasks?includeArtifacts=yes`);
    expect(badBool.status).toBe(400);
    run.end();
  });

  it('CancelTask (POST /tasks/{id}:cancel, no body) cancels; again, it is 400 TASK_NOT_CANCELABLE', async () => {
    const { run, restUrl } = start();
    const t = await newTask(peer.agent, restUrl);
    const canceled = await rest(peer.agent, 'POST', `${restUrl}/tasks/${t.id}:cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.json!.status.state).toBe('TASK_STATE_CANCELED');
    expect(run.ledger.get(t.id)?.state).toBe('TASK_STATE_CANCELED');
    expect(lastAt(run.transcript, `/tasks/${t.id}:cancel`).rpc).toMatchObject({
      method: 'CancelTask',
      params: { id: t.id },
      wireMethod: 'POST /tasks/{id}:cancel',
    });
    const again = await rest(peer.agent, 'POST', `${restUrl}/tasks/${t.id}:cancel`, { metadata: { why: 'twice' } });
    expect(again.status).toBe(400);
    expect(again.json!.error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION' });
    expect(again.json!.error.details[0]).toMatchObject({ reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' });
    expect(lastAt(run.transcript, `/tasks/${t.id}:cancel`)).toMatchObject({ rpcError: { code: -32002 }, status: 400 });
    run.end();
  });

  it.each(['GET', 'POST'] as const)('SubscribeToTask by %s: SSE of bare StreamResponse objects, the Task first, closed at the cancel', async (verb) => {
    const { run, restUrl } = start();
    const t = await newTask(peer.agent, restUrl);
    const got = await sse(peer.agent, verb, `${restUrl}/tasks/${t.id}:subscribe`, undefined, () => rest(peer.agent, 'POST', `${restUrl}/tasks/${t.id}:cancel`));
    expect(got.status).toBe(200);
    expect(got.type).toContain('text/event-stream');
    expect(got.raw.every((f) => f.startsWith('data: '))).toBe(true);
    expect(got.events[0]!.task.id).toBe(t.id);
    expect(got.events.every((e) => e.jsonrpc === undefined && e.result === undefined)).toBe(true);
    expect(got.events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    expect(lastAt(run.transcript, `/tasks/${t.id}:subscribe`).rpc).toMatchObject({ method: 'SubscribeToTask', wireMethod: `${verb} /tasks/{id}:subscribe` });
    run.end();
  });

  it('SendStreamingMessage over POST /message:stream: the Task first', async () => {
    const { run, restUrl } = start();
    let id = '';
    const got = await sse(peer.agent, 'POST', `${restUrl}/message:stream`, message('stream me'), async (first) => {
      id = first[0]!.task.id;
      await rest(peer.agent, 'POST', `${restUrl}/tasks/${id}:cancel`);
    });
    expect(got.status).toBe(200);
    expect(got.events[0]!.task.status.state).toBe('TASK_STATE_WORKING');
    expect(got.events.at(-1)!.statusUpdate).toMatchObject({ taskId: id, status: { state: 'TASK_STATE_CANCELED' } });
    run.end();
  });

  it('push configs: create (the body is the config, taskId from the path), get, list, delete', async () => {
    const { run, restUrl } = start();
    const t = await newTask(peer.agent, restUrl);
    const base = `${restUrl}/tasks/${t.id}/pushNotificationConfigs`;
    const created = await rest(peer.agent, 'POST', base, { url: 'https://127.0.0.1:9/hook', token: 'tok-1' });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ taskId: t.id, url: 'https://127.0.0.1:9/hook', token: 'tok-1' });
    const configId = created.json!.id as string;
    expect(configId).toBeTruthy();
    expect(lastAt(run.transcript, '/pushNotificationConfigs').rpc).toMatchObject({
      method: 'CreateTaskPushNotificationConfig',
      params: { taskId: t.id, url: 'https://127.0.0.1:9/hook' },
      wireMethod: 'POST /tasks/{taskId}/pushNotificationConfigs',
    });
    const one = await rest(peer.agent, 'GET', `${base}/${configId}`);
    expect(one.json).toMatchObject({ id: configId, taskId: t.id });
    expect(lastAt(run.transcript, `/${configId}`).rpc).toMatchObject({ method: 'GetTaskPushNotificationConfig', params: { taskId: t.id, id: configId } });
    const list = await rest(peer.agent, 'GET', base);
    expect(list.json!.configs.map((c: Json) => c.id)).toEqual([configId]);
    const deleted = await rest(peer.agent, 'DELETE', `${base}/${configId}`);
    expect(deleted.status).toBe(200);
    expect(lastAt(run.transcript, `/${configId}`).rpc).toMatchObject({
      method: 'DeleteTaskPushNotificationConfig',
      wireMethod: 'DELETE /tasks/{taskId}/pushNotificationConfigs/{id}',
    });
    expect((await rest(peer.agent, 'GET', base)).json!.configs).toEqual([]);
    const gone = await rest(peer.agent, 'GET', `${base}/${configId}`);
    expect(gone.status).toBe(404);
    // An id the peer gave once is never given again, deletes included.
    const again = await rest(peer.agent, 'POST', base, { url: 'https://127.0.0.1:9/hook' });
    expect(again.json!.id).not.toBe(configId);
    run.end();
  });

  it('push configs keep the id the client chose: get and delete by it; the same id again replaces the config', async () => {
    const { run, restUrl } = start();
    const t = await newTask(peer.agent, restUrl);
    const base = `${restUrl}/tasks/${t.id}/pushNotificationConfigs`;
    const mine = 'cfg-7f3a';
    const created = await rest(peer.agent, 'POST', base, { id: mine, url: 'https://127.0.0.1:9/hook', token: 'tok-1' });
    expect(created.json).toMatchObject({ id: mine, taskId: t.id });
    expect((await rest(peer.agent, 'GET', `${base}/${mine}`)).json).toMatchObject({ id: mine, token: 'tok-1' });
    const replaced = await rest(peer.agent, 'POST', base, { id: mine, url: 'https://127.0.0.1:9/other', token: 'tok-2' });
    expect(replaced.json).toMatchObject({ id: mine, url: 'https://127.0.0.1:9/other' });
    expect((await rest(peer.agent, 'GET', base)).json!.configs.map((c: Json) => [c.id, c.token])).toEqual([[mine, 'tok-2']]);
    expect((await rest(peer.agent, 'DELETE', `${base}/${mine}`)).status).toBe(200);
    expect((await rest(peer.agent, 'GET', `${base}/${mine}`)).status).toBe(404);
    run.end();
  });

  it('GetExtendedAgentCard over GET /extendedAgentCard', async () => {
    const { run, restUrl } = start();
    const got = await rest(peer.agent, 'GET', `${restUrl}/extendedAgentCard`);
    expect(got.status).toBe(200);
    expect(got.json!.name).toBe('Contoso Notes (extended)');
    expect(lastAt(run.transcript, '/extendedAgentCard').rpc).toMatchObject({ method: 'GetExtendedAgentCard', wireMethod: 'GET /extendedAgentCard' });
    run.end();
  });

  it('an unknown task is 404 with a google.rpc.Status and ErrorInfo TASK_NOT_FOUND; the transcript keeps -32001, the binding and the interface', async () => {
    const { run, restUrl } = start();
    const got = await rest(peer.agent, 'GET', `${restUrl}/tasks/no-such-task`);
    expect(got.status).toBe(404);
    expect(String(got.headers['content-type'])).toContain('application/a2a+json');
    expect(got.json!.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(got.json!.error.message).toContain('Task not found');
    expect(got.json!.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'no-such-task' } },
    ]);
    const ev = lastAt(run.transcript, '/tasks/no-such-task');
    expect(ev).toMatchObject({ status: 404, binding: 'HTTP+JSON', interfaceUrl: restUrl, rpc: { method: 'GetTask', params: { id: 'no-such-task' } } });
    expect(ev.rpcError?.code).toBe(-32001);
    run.end();
  });

  it('A2A-Version 2.0 is 400 VERSION_NOT_SUPPORTED (-32009); the query parameter is read as on JSON-RPC', async () => {
    const { run, restUrl } = start();
    const got = await rest(peer.agent, 'GET', `${restUrl}/tasks`, undefined, { 'a2a-version': '2.0' });
    expect(got.status).toBe(400);
    expect(got.json!.error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION', details: [{ reason: 'VERSION_NOT_SUPPORTED' }] });
    expect(lastAt(run.transcript, '/rest/tasks').rpcError?.code).toBe(-32009);
    const res = await request(`${restUrl}/tasks?A2A-Version=1.0`, { dispatcher: peer.agent });
    await res.body.text();
    expect(res.statusCode).toBe(200);
    run.end();
  });

  it('a path with no operation is 404, a known path with another verb 405 with Allow; both recorded with a note', async () => {
    const { run, restUrl } = start();
    const unknown = await rest(peer.agent, 'GET', `${restUrl}/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(unknown.json!.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const ev = lastAt(run.transcript, '/no/such/route');
    expect(ev).toMatchObject({ status: 404, binding: 'HTTP+JSON', rpcError: { code: -32601 } });
    expect(ev.note).toContain('/no/such/route');
    expect(ev.rpc).toBeUndefined();
    const wrong = await rest(peer.agent, 'DELETE', `${restUrl}/message:send`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
    expect(lastAt(run.transcript, '/message:send').note).toContain('DELETE');
    const put = await rest(peer.agent, 'PUT', `${restUrl}/tasks/x/pushNotificationConfigs`, {});
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('POST, GET');
    // The interface URL itself names no operation (a JSON-RPC request sent to it, say); a longer word is not below it.
    const bare = await bareRpc(peer.agent, restUrl, 'GetTask', { id: 't-1' });
    expect(bare.status).toBe(404);
    expect(bare.json!.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(lastAt(run.transcript, '/rest')).toMatchObject({ binding: 'HTTP+JSON', interfaceUrl: restUrl, rpcError: { code: -32601 } });
    const longer = await rest(peer.agent, 'GET', `${restUrl}ful/tasks`);
    expect(longer.status).toBe(404);
    expect(lastAt(run.transcript, '/restful/tasks').binding).toBeUndefined();
    // A colon ends a path in a custom verb only where it is one (`:cancel`); an id may hold one.
    const getCancel = await rest(peer.agent, 'GET', `${restUrl}/tasks/t-1:cancel`);
    expect(getCancel.status).toBe(405);
    expect(getCancel.headers.allow).toBe('POST');
    const urn = await rest(peer.agent, 'GET', `${restUrl}/tasks/urn:task%2F7`);
    expect(urn.status).toBe(404);
    expect(lastAt(run.transcript, '/tasks/urn:task%2F7')).toMatchObject({
      rpc: { method: 'GetTask', params: { id: 'urn:task/7' } },
      rpcError: { code: -32001 },
    });
    run.end();
  });

  it('a body that is not JSON is 400 INVALID_ARGUMENT, the call kept as far as read', async () => {
    const { run, restUrl } = start();
    const got = await rest(peer.agent, 'POST', `${restUrl}/message:send`, '{"message": ');
    expect(got.status).toBe(400);
    expect(got.json!.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(lastAt(run.transcript, '/message:send')).toMatchObject({ rpc: { method: 'SendMessage' }, rpcError: { code: -32700 } });
    run.end();
  });

  it('a /{tenant} prefix sets params.tenant; a body naming another tenant is refused', async () => {
    const { run, restUrl } = start();
    const sent = await rest(peer.agent, 'POST', `${restUrl}/acme/message:send`, message('tenant'));
    expect(sent.status).toBe(200);
    const t = sent.json!.task;
    expect(lastAt(run.transcript, '/acme/message:send').rpc).toMatchObject({
      method: 'SendMessage',
      params: { tenant: 'acme' },
      wireMethod: 'POST /{tenant}/message:send',
    });
    const got = await rest(peer.agent, 'GET', `${restUrl}/acme/tasks/${t.id}`);
    expect(got.status).toBe(200);
    expect(lastAt(run.transcript, `/acme/tasks/${t.id}`).rpc).toMatchObject({
      method: 'GetTask',
      params: { tenant: 'acme', id: t.id },
      wireMethod: 'GET /{tenant}/tasks/{id}',
    });
    const twice = await rest(peer.agent, 'POST', `${restUrl}/acme/message:send`, { ...message('x'), tenant: 'globex' });
    expect(twice.status).toBe(400);
    expect(lastAt(run.transcript, '/acme/message:send')).toMatchObject({ rpc: { method: 'SendMessage' }, rpcError: { code: -32602 } });
    run.end();
  });
});

describe('the auth gate in front of an HTTP+JSON interface', () => {
  it('guards every route below it: no token is 401 (the call kept as the wire reads it), a token of the peer passes', async () => {
    const run = peer.fx.start({ ...desc, runtime: { ...desc.runtime, auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300 } } });
    const restUrl = (run.peer.card.supportedInterfaces as Array<{ url: string }>)[1]!.url;
    const denied = await rest(peer.agent, 'GET', `${restUrl}/acme/tasks/t-1?historyLength=2`);
    expect(denied.status).toBe(401);
    expect(String(denied.headers['www-authenticate'])).toMatch(/^Bearer /);
    expect(lastAt(run.transcript, '/acme/tasks/t-1')).toMatchObject({
      status: 401,
      binding: 'HTTP+JSON',
      interfaceUrl: restUrl,
      rpc: { method: 'GetTask', params: { tenant: 'acme', id: 't-1', historyLength: 2 }, wireMethod: 'GET /{tenant}/tasks/{id}' },
    });
    const c = run.peer.credentials![0]!;
    const res = await request(c.tokenUrl, {
      method: 'POST',
      dispatcher: peer.agent,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret }).toString(),
    });
    const token = ((await res.body.json()) as Json).access_token as string;
    const sent = await rest(peer.agent, 'POST', `${restUrl}/message:send`, message('with a token'), { authorization: `Bearer ${token}` });
    expect(sent.status).toBe(200);
    expect(sent.json!.task.id).toBeTruthy();
    run.end();
  });
});

describe('the same story over JSON-RPC and over HTTP+JSON: the same neutral operation, params and error code', () => {
  const SAME_MESSAGE = { message: { messageId: 'm-same', role: 'ROLE_USER', parts: [{ text: 'same' }] }, configuration: { returnImmediately: true } };
  type Story = { name: string; rpc: [string, (id: string) => Json]; rest: [string, (id: string) => string, unknown?]; code?: number };
  const stories: Story[] = [
    { name: 'GetTask with historyLength', rpc: ['GetTask', (id) => ({ id, historyLength: 1 })], rest: ['GET', (id) => `/tasks/${id}?historyLength=1`] },
    {
      name: 'SendMessage',
      rpc: ['SendMessage', () => SAME_MESSAGE],
      rest: ['POST', () => '/message:send', SAME_MESSAGE],
    },
    { name: 'CancelTask of an unknown task', rpc: ['CancelTask', () => ({ id: 'nope' })], rest: ['POST', () => '/tasks/nope:cancel'], code: -32001 },
    { name: 'GetTask of an unknown task', rpc: ['GetTask', () => ({ id: 'nope' })], rest: ['GET', () => '/tasks/nope'], code: -32001 },
    { name: 'ListTasks with a bad pageSize', rpc: ['ListTasks', () => ({ pageSize: 0 })], rest: ['GET', () => '/tasks?pageSize=0'], code: -32602 },
    {
      name: 'a push config of another id',
      rpc: ['GetTaskPushNotificationConfig', (id) => ({ taskId: id, id: 'push-9' })],
      rest: ['GET', (id) => `/tasks/${id}/pushNotificationConfigs/push-9`],
      code: -32001,
    },
    {
      name: 'a push config over http',
      rpc: ['CreateTaskPushNotificationConfig', (id) => ({ taskId: id, url: 'http://127.0.0.1:9/hook' })],
      rest: ['POST', (id) => `/tasks/${id}/pushNotificationConfigs`, { url: 'http://127.0.0.1:9/hook' }],
      code: -32602,
    },
    { name: 'the extended card', rpc: ['GetExtendedAgentCard', () => ({})], rest: ['GET', () => '/extendedAgentCard'] },
  ];

  it.each(stories.map((s) => [s.name, s] as const))('%s', async (_name, s) => {
    const { run, rpcUrl, restUrl } = start();
    const t = await newTask(peer.agent, restUrl);
    await bareRpc(peer.agent, rpcUrl, s.rpc[0], s.rpc[1](t.id));
    const [verb, path, body] = s.rest;
    await rest(peer.agent, verb, `${restUrl}${path(t.id)}`, body);
    const [viaRpc, viaRest] = run.transcript.events.filter((e): e is HttpEvent => e.kind === 'http').slice(-2);
    expect(viaRpc!.binding).toBe('JSONRPC');
    expect(viaRest!.binding).toBe('HTTP+JSON');
    expect(viaRest!.rpc!.method).toBe(viaRpc!.rpc!.method);
    expect(viaRest!.rpc!.params).toEqual(viaRpc!.rpc!.params);
    expect(viaRest!.rpcError?.code).toBe(s.code);
    expect(viaRpc!.rpcError?.code).toBe(s.code);
    run.end();
  });
});
