/**
 * Both dialects in the field (issue 11): A2A v0.3 peers beside v1.0 ones, and the choice a client
 * makes between them. Most clients shipping today speak v0.3; a v1.0 agent may still offer a v0.3
 * interface, or have been upgraded in place. The client uses the first interface of the card in a
 * dialect it speaks (v1.0 §8.3.2), sends the matching `A2A-Version` (none for 0.3, §3.6.1), takes
 * `1.0.1` as 1.0 (§3.6), and with no interface it speaks rejects before any task.
 *
 * The profile says which dialects the client speaks (`profile.dialects`): a per-run client whose hello
 * says it takes them per run (`dialectsPerRun`) is handed the scenario's it declared, any other all it
 * declared; a scenario about a client that speaks only one dialect (`dialectPremise: 'only'`) is not
 * run for a client that declared both and cannot be narrowed; a fixed profile runs only the
 * scenarios of its dialects.
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

const skills = [{ id: 'notes', name: 'Notes', description: 'Files a note', tags: ['notes'] }];

/** A v0.3 card, as v0.3-era agents serve it (also at the legacy agent.json). */
const v03Card = {
  name: 'Contoso Notes',
  description: 'Files notes; speaks A2A v0.3 over JSON-RPC.',
  url: '{{rpcUrl}}',
  preferredTransport: 'JSONRPC',
  protocolVersion: '0.3.0',
  version: '1.4.0',
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills,
};

const v1Card = (interfaces: Array<{ url: string; protocolVersion: string }>) => ({
  name: 'Contoso Notes',
  description: 'Files notes over A2A JSON-RPC.',
  supportedInterfaces: interfaces.map((i) => ({ ...i, protocolBinding: 'JSONRPC' })),
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '2.0.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills,
});

/** Both dialects, v1.0 first: one runtime behind a v1.0 interface and a v0.3 one. */
const dualCard = v1Card([
  { url: '{{rpcUrl}}', protocolVersion: '1.0' },
  { url: '{{rpcUrl03}}', protocolVersion: '0.3' },
]);

/** Both dialects, v0.3 first: the agent's order prefers its v0.3 interface (JSON-RPC), then v1.0 (JSON-RPC, or HTTP+JSON). */
const v03FirstCard = v1Card([
  { url: '{{rpcUrl03}}', protocolVersion: '0.3' },
  { url: '{{rpcUrl}}', protocolVersion: '1.0' },
]);
const v03FirstRestCard = {
  ...v03FirstCard,
  supportedInterfaces: [
    { url: '{{rpcUrl03}}', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: '{{restUrl}}', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
};

const intent = {
  taskClass: 'async-completion' as const,
  input: { mediaType: 'text/plain', text: 'Note: the printer on floor 3 is fixed' },
  acceptedOutputModes: ['text/plain'],
  completion: 'poll' as const,
};

const spec = 'A2A v1.0.1 §8.3.2, §3.6, §3.6.1, §3.6.2; A2A v0.3.0 §5';
const versionSignal = (pointer: string) => [{ pointer, kind: 'MUST' as const, note: 'the protocol versions the card offers' }];

const scenarios: Scenario[] = [
  {
    id: 'dialect/v03-peer',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A v0.3 agent, to a client that speaks v0.3',
    description:
      'The card is a v0.3 card (url, preferredTransport, protocolVersion 0.3.0); the agent speaks v0.3 JSON-RPC (message/send, tasks/get, kind-tagged parts, kebab-case states).',
    expectation: 'Speak v0.3: message/send without A2A-Version, poll tasks/get to completed.',
    spec,
    peer: { factory: 'contoso-control', dialect: 'a2a-v0.3', card: v03Card, runtime, signals: versionSignal('/protocolVersion') },
    profileConstraints: { dialects: ['a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'dialect/both-offered-v1-first',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A card that offers v1.0 then v0.3, to a client that speaks both',
    description: 'supportedInterfaces lists JSON-RPC at 1.0, then at 0.3 on another URL; one runtime answers both.',
    expectation: 'Use the first interface it speaks (1.0), with A2A-Version: 1.0, and complete.',
    spec,
    peer: { factory: 'contoso-control', card: dualCard, runtime, signals: versionSignal('/supportedInterfaces') },
    profileConstraints: { dialects: ['a2a-v1', 'a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'dialect/both-offered-v03-first',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A card that offers v0.3 then v1.0, to a client that speaks both',
    description: 'supportedInterfaces lists JSON-RPC at 0.3 first, then JSON-RPC at 1.0 on another URL; one runtime answers both.',
    expectation:
      "Use the first interface in the card's order that the client speaks: the v0.3 one, sending no A2A-Version (0.3 is assumed, §3.6.2), and complete. Preferring the newer version over the agent's order breaks §8.3.2 rules 1 and 2.",
    spec,
    peer: { factory: 'contoso-control', card: v03FirstCard, runtime, signals: versionSignal('/supportedInterfaces') },
    profileConstraints: { dialects: ['a2a-v1', 'a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'dialect/both-offered-v03-first-rest',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A card that offers v0.3 over JSON-RPC, then v1.0 over HTTP+JSON, to a client that speaks both',
    description: 'supportedInterfaces lists JSON-RPC at 0.3 first, then HTTP+JSON at 1.0; one runtime answers both.',
    expectation:
      "Use the v0.3 JSON-RPC interface, the first in the card's order in a binding and a dialect the client speaks, and complete; the newer version on another binding is not a reason to skip it.",
    spec,
    peer: { factory: 'contoso-control', card: v03FirstRestCard, runtime, signals: versionSignal('/supportedInterfaces') },
    profileConstraints: { dialects: ['a2a-v1', 'a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'dialect/both-offered-v03-client',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'The same card, to a client that speaks only v0.3',
    description: 'As both-offered-v1-first; the client speaks v0.3 only.',
    expectation: 'Use the v0.3 interface (the first it speaks), send no A2A-Version (0.3 is assumed, §3.6.2), and complete.',
    spec,
    peer: { factory: 'contoso-control', card: dualCard, runtime, signals: versionSignal('/supportedInterfaces') },
    profileConstraints: { dialects: ['a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
    dialectPremise: 'only',
  },
  {
    id: 'dialect/upgraded-in-place',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'An agent upgraded in place to v1.0, to a client that speaks only v0.3',
    description: 'The card now offers JSON-RPC at 1.0 only; a request without A2A-Version is read as 0.3 and answered -32009 (§3.6.2).',
    expectation: 'Read the card and reject before any call: no interface it speaks.',
    spec,
    peer: {
      factory: 'contoso-control',
      card: v1Card([{ url: '{{rpcUrl}}', protocolVersion: '1.0' }]),
      runtime,
      signals: versionSignal('/supportedInterfaces'),
    },
    profileConstraints: { dialects: ['a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
    dialectPremise: 'only',
  },
  {
    id: 'dialect/v03-card-to-v1-client',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A v0.3 agent, to a client that speaks only v1.0',
    description: 'The card is a v0.3 card; the agent speaks v0.3 only (a v1.0 method name gets -32601).',
    expectation: 'Read the card and reject before any call: no interface it speaks.',
    spec,
    peer: { factory: 'contoso-control', dialect: 'a2a-v0.3', card: v03Card, runtime, signals: versionSignal('/protocolVersion') },
    profileConstraints: { dialects: ['a2a-v1'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
    dialectPremise: 'only',
  },
  {
    id: 'dialect/patch-version',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A card whose interface says 1.0.1 (a patch number)',
    description: 'supportedInterfaces declares protocolVersion "1.0.1"; patch numbers "MUST not be considered" (§3.6), so it is 1.0.',
    expectation: 'Proceed on it with A2A-Version: 1.0 and complete; rejecting it is over-rejection.',
    spec,
    peer: {
      factory: 'contoso-control',
      card: v1Card([{ url: '{{rpcUrl}}', protocolVersion: '1.0.1' }]),
      runtime,
      signals: versionSignal('/supportedInterfaces'),
    },
    profileConstraints: { dialects: ['a2a-v1'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'dialect/claims-1.0-speaks-0.3',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A card that declares 1.0 for an endpoint that speaks only v0.3',
    description:
      'supportedInterfaces declares JSON-RPC at 1.0, and the endpoint there speaks v0.3 only (runtime.speaks): SendMessage gets -32601, message/send works. A gateway that rewrote its card before its wire.',
    expectation:
      'Call the interface the card declares (§8.3.2), then report the refusal with no task; a client that also speaks v0.3 may re-send there as message/send and complete. Never a success from the refusal.',
    spec,
    peer: {
      factory: 'contoso-control',
      card: v1Card([{ url: '{{rpcUrl}}', protocolVersion: '1.0' }]),
      runtime: { ...runtime, speaks: 'a2a-v0.3' },
      signals: versionSignal('/supportedInterfaces'),
    },
    profileConstraints: { dialects: ['a2a-v1'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'dialect/claims-0.3-speaks-1.0',
    rule: 'SPEC-INTERFACE-SELECTION',
    title: 'A v0.3 card for an endpoint that speaks only v1.0',
    description:
      'The card is a v0.3 card (protocolVersion 0.3.0), and its endpoint speaks v1.0 only (runtime.speaks): message/send without A2A-Version is read as 0.3 and answered -32009 (§3.6.2), SendMessage with A2A-Version 1.0 works. An agent whose SDK put an old default in its card.',
    expectation:
      'Call the interface the card declares, then report the refusal with no task; a client that also speaks v1.0 may re-send as SendMessage and complete. Never a success from the refusal.',
    spec,
    peer: {
      factory: 'contoso-control',
      dialect: 'a2a-v0.3',
      card: v03Card,
      runtime: { ...runtime, speaks: 'a2a-v1' },
      signals: versionSignal('/protocolVersion'),
    },
    profileConstraints: { dialects: ['a2a-v0.3'] },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
];

export default defineScenarios(scenarios);
