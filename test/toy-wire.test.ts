/**
 * docs/architecture.md's "Add a wire", followed by a wire that lives here in test/ and nowhere else:
 * a line-based toy binding (`TOY-LINES`: one request line `<Operation> <params JSON>`, answers
 * `ok <JSON>` or `error <code> <message>`, streams as SSE). It implements `Wire` and nothing more, is
 * served through `addInterface` (no edit of the registry, the endpoint, the peer or the runtime), and
 * passes the checks every real wire passes: a task minted on the ledger, the neutral call kept,
 * errors by their neutral id, the version check, a stream that starts with the Task, the same call
 * kept alike over JSON-RPC.
 */
import { HttpResponse } from 'msw';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import type { HttpEvent, Transcript } from '../harness/core/transcript.js';
import { JSONRPC_CODES } from '../peers/wires/error-map.js';
import { addInterface } from '../peers/wires/index.js';
import type { Wire } from '../peers/wires/wire.js';
import { bareRpc, sharedPeer } from './helpers/peer.js';

type Json = Record<string, any>;

/** The toy binding: everything a wire is, in one object. */
const toyWire: Wire = {
  dialect: 'a2a-v1',
  binding: 'TOY-LINES',
  protocolVersion: '1.0',
  routes: 'exact',
  decode(req) {
    const space = req.body.indexOf(' ');
    const op = space < 0 ? req.body.trim() : req.body.slice(0, space);
    let params: unknown;
    try {
      params = space < 0 ? {} : JSON.parse(req.body.slice(space + 1));
    } catch {
      params = undefined;
    }
    if (!op || typeof params !== 'object' || params === null || Array.isArray(params))
      return { refusal: { response: new HttpResponse('error -32700 not a toy line', { status: 400 }), recorded: { code: -32700, message: 'not a toy line' } } };
    return { call: { op, params: params as Json, id: null, version: req.headers.get('a2a-version'), extensions: [] } };
  },
  describe(req) {
    const op = req.body.split(' ')[0];
    return op ? { method: op, id: null, params: {} } : undefined;
  },
  result: (_call, _op, result) => new HttpResponse(`ok ${JSON.stringify(result)}`, { headers: { 'content-type': 'text/plain' } }),
  error(_call, err) {
    const code = JSONRPC_CODES[err.kind];
    return { response: new HttpResponse(`error ${code} ${err.text}`, { headers: { 'content-type': 'text/plain' } }), recorded: { code, message: err.text } };
  },
  frame: (_call, event) => `data: ${JSON.stringify(event)}\n\n`,
  stream: (_call, body) => new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } }),
  pushBody: (event) => event,
};

const remove = addInterface({ wire: toyWire, placeholder: 'toyUrl', path: '/toy' });
afterAll(() => remove());

const desc: PeerDescription = {
  factory: 'contoso-control',
  card: {
    name: 'Contoso Toys',
    description: 'Answers over a toy binding and JSON-RPC.',
    supportedInterfaces: [
      { url: '{{toyUrl}}', protocolBinding: 'TOY-LINES', protocolVersion: '1.0' },
      { url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'toys', name: 'Toys', description: 'Plays', tags: ['toys'] }],
  },
  runtime: {
    cardListener: 'tls',
    rpcListener: 'tls',
    workMs: 100,
    streaming: true,
    push: { supported: false, delivery: 'plain' },
    outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  },
  signals: [],
};

const peer = sharedPeer();
const message = (text: string) => ({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately: true } });

async function toy(url: string, line: string, version = '1.0') {
  const res = await request(url, { method: 'POST', dispatcher: peer.agent, headers: { 'content-type': 'text/plain', 'a2a-version': version }, body: line });
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), text: await res.body.text() };
}

const calls = (t: Transcript) => t.events.filter((e): e is HttpEvent => e.kind === 'http' && !!e.rpc);

describe('a toy wire from test/, added by addInterface (docs/architecture.md, "Add a wire")', () => {
  it('is offered where the card lists it: SendMessage mints a task, kept under its neutral operation and the toy binding', async () => {
    const run = peer.fx.start(desc);
    try {
      const url = (run.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url;
      expect(url).toMatch(/\/toy$/);
      const sent = await toy(url, `SendMessage ${JSON.stringify(message('hi'))}`);
      expect(sent.status).toBe(200);
      expect(sent.text).toMatch(/^ok /);
      const task = JSON.parse(sent.text.slice(3)).task as Json;
      expect(run.ledger.get(task.id)).toBeDefined();
      const got = await toy(url, `GetTask ${JSON.stringify({ id: task.id })}`);
      expect(JSON.parse(got.text.slice(3)).id).toBe(task.id);
      const [send, get] = calls(run.transcript);
      expect(send).toMatchObject({ binding: 'TOY-LINES', interfaceUrl: url, rpc: { method: 'SendMessage' } });
      expect(get).toMatchObject({ binding: 'TOY-LINES', rpc: { method: 'GetTask', params: { id: task.id } } });
    } finally {
      run.end();
    }
  });

  it('errors by their neutral id, the version check, a line it cannot read', async () => {
    const run = peer.fx.start(desc);
    try {
      const url = (run.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url;
      expect((await toy(url, 'GetTask {"id":"nope"}')).text).toMatch(/^error -32001 /);
      expect((await toy(url, 'GetTask {"id":"nope"}', '0.3')).text).toMatch(/^error -32009 /);
      expect(await toy(url, 'SendMessage [1')).toMatchObject({ status: 400 });
      const codes = calls(run.transcript).map((e) => e.rpcError?.code);
      expect(codes).toEqual([-32001, -32009]);
      expect(run.transcript.events.some((e) => e.kind === 'http' && e.rpcError?.code === -32700)).toBe(true);
    } finally {
      run.end();
    }
  });

  it('streams as the runtime streams: the Task first, then its updates to the end', async () => {
    const run = peer.fx.start(desc);
    try {
      const url = (run.peer.card.supportedInterfaces as Array<{ url: string }>)[0]!.url;
      const res = await toy(url, `SendStreamingMessage ${JSON.stringify({ message: message('go').message })}`);
      expect(res.type).toMatch(/^text\/event-stream/);
      const events = res.text
        .split('\n\n')
        .filter((f) => f.startsWith('data: '))
        .map((f) => JSON.parse(f.slice(6)) as Json);
      expect(Object.keys(events[0]!)).toEqual(['task']);
      expect(events.at(-1)!.statusUpdate?.status?.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      run.end();
    }
  });

  it('keeps the same call alike over JSON-RPC: operation, params and their digest', async () => {
    const run = peer.fx.start(desc);
    try {
      const [toyUrl, rpcUrl] = (run.peer.card.supportedInterfaces as Array<{ url: string }>).map((i) => i.url);
      await toy(toyUrl!, `ListTasks ${JSON.stringify({ pageSize: 5 })}`);
      await bareRpc(peer.agent, rpcUrl!, 'ListTasks', { pageSize: 5 });
      const [a, b] = calls(run.transcript);
      expect([a!.binding, b!.binding]).toEqual(['TOY-LINES', 'JSONRPC']);
      expect(a!.rpc!.method).toBe(b!.rpc!.method);
      expect(a!.rpc!.params).toEqual(b!.rpc!.params);
      expect(a!.paramsDigest).toBe(b!.paramsDigest);
    } finally {
      run.end();
    }
  });
});
