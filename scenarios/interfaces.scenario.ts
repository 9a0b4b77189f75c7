/**
 * Choosing an interface among bindings (issue 26): A2A v1.0 has three standard protocol bindings
 * (JSON-RPC §9, gRPC §10, HTTP+JSON §11) and a card lists its interfaces in the agent's order of
 * preference. The client uses the first one in a binding and a version it speaks (§8.3.2 rules 1–3),
 * sends every request there with that interface's `tenant` (rule 4), stays on it when it answers with
 * a temporary error (a 503 with Retry-After there is no licence to try the next one), and declines, before any task, a card that offers only bindings it lacks.
 *
 * Which bindings a client speaks is its hello's `bindings` (none declared: JSON-RPC), handed back in
 * each run's `profile.bindings`; the rule grades by them, so each scenario here binds every client:
 * one that speaks only JSON-RPC must use the JSON-RPC interface wherever the card lists it.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 150,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
};

type Iface = { url: string; protocolBinding: string; protocolVersion?: string; tenant?: string };

const card = (interfaces: Iface[], description: string) => ({
  name: 'Contoso Ledger',
  description,
  supportedInterfaces: interfaces.map((i) => ({ protocolVersion: '1.0', ...i })),
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '3.1.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'ledger', name: 'Ledger', description: 'Books an entry', tags: ['ledger'] }],
});

const grpc: Iface = { url: '{{grpcUrl}}', protocolBinding: 'GRPC' };
const jsonRpc: Iface = { url: '{{rpcUrl}}', protocolBinding: 'JSONRPC' };
const rest: Iface = { url: '{{restUrl}}', protocolBinding: 'HTTP+JSON' };
/** A binding of Contoso's own (§12: custom bindings), at a URL that serves nothing. */
const custom: Iface = { url: '{{rpcUrl}}/mq', protocolBinding: 'CONTOSO-MQ' };

const intent = {
  taskClass: 'async-completion' as const,
  input: { mediaType: 'text/plain', text: 'Book 40 EUR to cost centre 7' },
  acceptedOutputModes: ['text/plain'],
  completion: 'poll' as const,
};

const spec = 'A2A v1.0.1 §8.3.2, §5.8, §9, §10, §11, §12';
const order = [{ pointer: '/supportedInterfaces', kind: 'MUST' as const, note: "the card's interfaces, in the agent's order" }];

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expectation'> & { card: Record<string, unknown>; rt?: Partial<PeerRuntime> },
): Scenario => ({
  id: s.id,
  rule: 'SPEC-INTERFACE-SELECTION',
  title: s.title,
  description: s.description,
  expectation: s.expectation,
  spec,
  peer: { factory: 'contoso-control', card: s.card, runtime: { ...runtime, ...s.rt }, signals: order },
  profileConstraints: {},
  intent,
  deadlineMs: 6000,
  expect: 'PASS',
});

const scenarios: Scenario[] = [
  scenario({
    id: 'interface/grpc-first',
    title: 'gRPC first, then JSON-RPC, then HTTP+JSON',
    description: 'The card lists one agent behind three interfaces: gRPC first, JSON-RPC second, HTTP+JSON third. All three answer alike.',
    expectation: 'Use the first interface whose binding it speaks (gRPC for a client that speaks it), for every call, and complete the task there.',
    card: card([grpc, jsonRpc, rest], 'Books ledger entries; prefers gRPC.'),
  }),
  scenario({
    id: 'interface/rest-first',
    title: 'HTTP+JSON first, then JSON-RPC',
    description: 'The card lists HTTP+JSON first and JSON-RPC second, one agent behind both.',
    expectation: 'Use HTTP+JSON where it speaks it (JSON-RPC otherwise) for every call, and complete the task.',
    card: card([rest, jsonRpc], 'Books ledger entries over REST or JSON-RPC.'),
  }),
  scenario({
    id: 'interface/jsonrpc-first',
    title: 'JSON-RPC first, then gRPC',
    description: "The card lists JSON-RPC first and gRPC second: the card's order and a JSON-RPC favourite agree.",
    expectation: 'Use JSON-RPC for every call and complete the task.',
    card: card([jsonRpc, grpc], 'Books ledger entries over JSON-RPC or gRPC.'),
  }),
  scenario({
    id: 'interface/custom-binding-first',
    title: "A binding of the agent's own first, then JSON-RPC",
    description: 'The card lists a custom binding (CONTOSO-MQ, §12) first and JSON-RPC second. No client here speaks CONTOSO-MQ.',
    expectation: 'Skip the binding it does not speak and use JSON-RPC: declining the card is over-rejection.',
    card: card([custom, jsonRpc], "Books ledger entries over Contoso's queue or JSON-RPC."),
  }),
  scenario({
    id: 'interface/custom-binding-only',
    title: "Only a binding of the agent's own",
    description: 'The card lists one interface, in a custom binding (CONTOSO-MQ, §12) that no client here speaks.',
    expectation:
      'Decline after reading the card, before any call: it offers no interface the client can use. Calling the JSON-RPC endpoint the URL happens to sit under is a call to an interface the card does not offer.',
    card: card([custom], "Books ledger entries over Contoso's queue."),
  }),
  scenario({
    id: 'interface/first-busy-once',
    title: 'The first interface is busy once; the second is not',
    description:
      'The card lists gRPC first and JSON-RPC second. The gRPC interface answers the first SendMessage with 503 (gRPC: UNAVAILABLE) and Retry-After: 1; every later call, and every call on JSON-RPC, is served.',
    expectation:
      'Stay on the interface it selected: wait the second Retry-After asks and send again there, or give up and say so. Switching to JSON-RPC after the error is a call to an interface it did not select.',
    card: card([grpc, jsonRpc], 'Books ledger entries; prefers gRPC.'),
    rt: { unavailable: { status: 503, retryAfterSeconds: 1, calls: 1, method: 'SendMessage', binding: 'GRPC' } },
  }),
  scenario({
    id: 'interface/tenant',
    title: 'An interface that names its tenant',
    description: "The card's one interface sets tenant contoso-eu: several agents are served behind one endpoint (§4.4.6).",
    expectation:
      'Put tenant "contoso-eu" in every request (SendMessage, GetTask…), exactly as the interface declares it (§8.3.2 rule 4), and complete the task.',
    card: card([{ ...jsonRpc, tenant: 'contoso-eu' }], 'Books ledger entries for the EU tenant.'),
  }),
];

export default defineScenarios(scenarios);
