/**
 * Bindings without a wire: the reference client's HTTP+JSON routes and error reading, its reading of
 * gRPC outcomes, the choice of an interface by the card's order and the client's bindings, and a
 * scenario told over another binding (harness/core/card-binding.ts), with the runner's default.
 */
import { describe, expect, it } from 'vitest';
import { fromGrpc } from '../clients/common/binding-grpc.js';
import { restError, restRequest } from '../clients/common/binding-rest.js';
import { readClientCard } from '../clients/common/card.js';
import { negotiate } from '../clients/common/negotiate.js';
import { bindingProblem, scenarioBinding, scenarioOverBinding, tellOver, untellable } from '../harness/core/card-binding.js';
import { DEFAULT_PROFILE, type Binding } from '../harness/core/protocol/types.js';
import { runBindings } from '../harness/runner/engine/run.js';
import { UsageError } from '../harness/faults.js';
import { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue } from '../harness/runner/load/catalogue.js';

describe('the reference client over HTTP+JSON (§11)', () => {
  it('maps each operation to its verb and path below the interface URL, the tenant as the first segment', () => {
    expect(restRequest('SendMessage', { tenant: 'eu', message: { messageId: 'm' } })).toEqual({
      verb: 'POST',
      path: '/eu/message:send',
      body: { message: { messageId: 'm' } },
      stream: false,
    });
    expect(restRequest('SendStreamingMessage', { message: {} })).toMatchObject({ verb: 'POST', path: '/message:stream', stream: true });
    expect(restRequest('GetTask', { id: 't/1', historyLength: 3 })).toMatchObject({ verb: 'GET', path: '/tasks/t%2F1?historyLength=3' });
    expect(restRequest('ListTasks', { pageSize: 100, pageToken: 'a b', status: 'TASK_STATE_WORKING' })?.path).toBe(
      '/tasks?status=TASK_STATE_WORKING&pageSize=100&pageToken=a+b',
    );
    expect(restRequest('CancelTask', { id: 't1' })).toMatchObject({ verb: 'POST', path: '/tasks/t1:cancel', body: {} });
    expect(restRequest('SubscribeToTask', { id: 't1' })).toMatchObject({ verb: 'POST', path: '/tasks/t1:subscribe', stream: true });
    expect(restRequest('CreateTaskPushNotificationConfig', { taskId: 't1', url: 'https://cb' })).toMatchObject({
      verb: 'POST',
      path: '/tasks/t1/pushNotificationConfigs',
      body: { taskId: 't1', url: 'https://cb' },
    });
    expect(restRequest('DeleteTaskPushNotificationConfig', { taskId: 't1', id: 'c1' })).toMatchObject({
      verb: 'DELETE',
      path: '/tasks/t1/pushNotificationConfigs/c1',
    });
    expect(restRequest('GetExtendedAgentCard', {})).toMatchObject({ verb: 'GET', path: '/extendedAgentCard' });
    expect(restRequest('NoSuchOperation', {})).toBeUndefined();
  });

  it('reads the A2A error of a google.rpc.Status by its ErrorInfo, and nothing from a body that names none', () => {
    const body = (reason: string, domain = 'a2a-protocol.org') =>
      JSON.stringify({
        error: { code: 400, status: 'FAILED_PRECONDITION', message: 'no', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain }] },
      });
    expect(restError(body('UNSUPPORTED_OPERATION'))).toEqual({ code: -32004, message: 'no' });
    expect(restError(body('TASK_NOT_FOUND'))).toEqual({ code: -32001, message: 'no' });
    expect(restError(body('TASK_NOT_FOUND', 'example.com'))).toBeUndefined();
    expect(restError('Unauthorized')).toBeUndefined();
    expect(restError(JSON.stringify({ error: { message: 'x' } }))).toBeUndefined();
  });
});

describe('the reference client over gRPC (§10)', () => {
  const fail = (code: number, message: string, extra: { reason?: string; metadata?: Record<string, string> } = {}) =>
    fromGrpc({ ok: false, code, message, metadata: extra.metadata ?? {}, ...(extra.reason ? { reason: extra.reason } : {}) });

  it('an A2A error by its reason; UNAUTHENTICATED as a 401 with its challenge; UNAVAILABLE with Retry-After as a 503 to wait on', () => {
    expect(fail(9, 'not now', { reason: 'UNSUPPORTED_OPERATION' })).toEqual({ ok: false, kind: 'rpc', code: -32004, message: 'not now' });
    expect(fail(16, 'who', { metadata: { 'www-authenticate': 'Bearer realm="x"' } })).toEqual({
      ok: false,
      kind: 'http',
      status: 401,
      text: 'who',
      challenge: 'Bearer realm="x"',
    });
    expect(fail(14, 'busy', { metadata: { 'retry-after': '2' } })).toMatchObject({ kind: 'http', status: 503, retryAfterMs: 2000 });
    expect(fail(14, 'No connection established')).toMatchObject({ kind: 'network', code: 'GRPC_14' });
    expect(fail(13, 'Received RST_STREAM with code 2')).toMatchObject({ kind: 'cut' });
    expect(fail(12, 'unknown method')).toMatchObject({ kind: 'rpc', code: -32601 });
  });
});

describe("choosing an interface: the card's order among the bindings the client speaks (§8.3.2)", () => {
  const card = (ifaces: Array<[string, string, string?]>) =>
    readClientCard({
      supportedInterfaces: ifaces.map(([url, protocolBinding, tenant]) => ({ url, protocolBinding, protocolVersion: '1.0', ...(tenant ? { tenant } : {}) })),
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    });
  const intent = {
    taskClass: 'text' as const,
    input: { mediaType: 'text/plain', text: 'hi' },
    acceptedOutputModes: ['text/plain'],
    completion: 'poll' as const,
  };
  const plan = (c: ReturnType<typeof card>, bindings?: Binding[], ignoresInterfaceOrder = false) =>
    negotiate(c, { ...DEFAULT_PROFILE, ...(bindings ? { bindings } : {}) }, intent, { ignoresInterfaceOrder });
  const three = card([
    ['https://a/grpc', 'GRPC'],
    ['https://a/rpc', 'JSONRPC', 'eu'],
    ['https://a/rest', 'HTTP+JSON'],
  ]);

  it('the first interface in a binding the client speaks, with its tenant', () => {
    expect(plan(three, ['JSONRPC', 'HTTP+JSON', 'GRPC'])).toMatchObject({ action: 'proceed', binding: 'GRPC', rpcUrl: 'https://a/grpc' });
    expect(plan(three, ['HTTP+JSON', 'JSONRPC'])).toMatchObject({ action: 'proceed', binding: 'JSONRPC', rpcUrl: 'https://a/rpc', tenant: 'eu' });
    expect(plan(three)).toMatchObject({ action: 'proceed', binding: 'JSONRPC' });
  });

  it('declines a card of bindings it lacks; the naive mistake takes its own favourite', () => {
    expect(plan(card([['https://a/mq', 'CONTOSO-MQ']]), ['JSONRPC', 'GRPC'])).toMatchObject({ action: 'reject', errorClass: 'unnegotiable-card' });
    expect(plan(three, ['JSONRPC', 'HTTP+JSON', 'GRPC'], true)).toMatchObject({ action: 'proceed', binding: 'JSONRPC' });
  });
});

describe('a scenario told over another binding', async () => {
  const catalogue = await loadCatalogue(await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT));
  const byId = (id: string) => catalogue.find((e) => e.scenario.id === id)!.scenario;

  it("its one JSON-RPC interface becomes the binding's, at the same place; the id and title say so", () => {
    const s = byId('interface/tenant');
    const told = scenarioOverBinding(s, 'GRPC');
    expect(told.id).toBe('interface/tenant.grpc');
    expect(told.binding).toBe('GRPC');
    expect(told.peer.card.supportedInterfaces).toEqual([{ url: '{{grpcUrl}}', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'contoso-eu' }]);
    expect(scenarioBinding(told)).toBe('GRPC');
    expect(scenarioBinding(s)).toBe('JSONRPC');
    expect(scenarioOverBinding(s, 'HTTP+JSON').id).toBe('interface/tenant.rest');
  });

  it('scenarios about the choice between interfaces, v0.3 peers and other certificates keep their telling, with the reason', () => {
    expect(untellable(byId('interface/grpc-first'), 'GRPC')).toMatch(/choice between interfaces/);
    expect(untellable(byId('dialect/v03-peer'), 'HTTP+JSON')).toMatch(/v0\.3/);
    // An RPC interface on a listener with no gRPC counterpart (a card origin's kind) keeps its telling.
    const control = byId('spec-tls-verify/valid-certificate-control');
    const onCdn = { ...control, peer: { ...control.peer, runtime: { ...control.peer.runtime, rpcListener: 'cdn' as const } } };
    expect(untellable(onCdn, 'GRPC')).toMatch(/cdn listener, which has no gRPC counterpart/);
    // A bad certificate on the RPC interface has one: the RPC channel is verified over gRPC too.
    expect(untellable(byId('spec-tls-verify/rpc-expired'), 'GRPC')).toBeUndefined();
  });

  it('tellOver: each tellable scenario once per binding asked, JSON-RPC kept only where asked; told twice, the same', () => {
    const grpcOnly = tellOver(catalogue, ['GRPC']);
    expect(grpcOnly.length).toBe(catalogue.length);
    expect(grpcOnly.filter((e) => e.scenario.binding === 'GRPC').length).toBeGreaterThan(60);
    const both = tellOver(catalogue, ['JSONRPC', 'GRPC', 'HTTP+JSON']);
    expect(both.length).toBeGreaterThan(catalogue.length * 2);
    expect(tellOver(grpcOnly, ['GRPC']).map((e) => e.scenario.id)).toEqual(grpcOnly.map((e) => e.scenario.id));
    expect(new Set(both.map((e) => e.scenario.id)).size).toBe(both.length);
    // The CLI tells the catalogue for --grep, and the run tells it again after hello: every id once.
    expect(tellOver(both, ['JSONRPC', 'GRPC', 'HTTP+JSON']).map((e) => e.scenario.id)).toEqual(both.map((e) => e.scenario.id));
  });

  it('a client runs what its bindings reach: a telling it declares, a card with a binding it speaks or none it could', () => {
    expect(bindingProblem(['JSONRPC'], scenarioOverBinding(byId('interface/tenant'), 'GRPC'))).toMatch(/told over GRPC; the client declares JSONRPC/);
    expect(bindingProblem(undefined, byId('interface/grpc-first'))).toBeUndefined();
    expect(bindingProblem(['GRPC'], byId('dialect/v03-peer'))).toMatch(/the card offers JSONRPC; the client declares GRPC/);
    expect(bindingProblem(['GRPC'], byId('interface/custom-binding-only'))).toBeUndefined();
  });

  it('the run tells over JSON-RPC by default, else the first binding declared; asking for one it lacks is a usage error', () => {
    expect(runBindings({ profile: null }, undefined)).toEqual(['JSONRPC']);
    expect(runBindings({ profile: null, bindings: ['GRPC', 'JSONRPC'] }, undefined)).toEqual(['JSONRPC']);
    expect(runBindings({ profile: null, bindings: ['HTTP+JSON', 'GRPC'] }, undefined)).toEqual(['HTTP+JSON']);
    expect(runBindings({ profile: null, bindings: ['JSONRPC', 'GRPC'] }, ['GRPC', 'GRPC'])).toEqual(['GRPC']);
    expect(() => runBindings({ profile: null }, ['GRPC'])).toThrow(UsageError);
  });
});
