/**
 * SPEC-TLS-VERIFY (A2A v1.0.1 §7.2 SHOULD, held as `security` with RFC 9110 §4.3.4): a client
 * verifies the peer's certificate. Three peers serve their card with a bad certificate; the listener
 * records the failed handshake (or a completed one followed by nothing, from a client that pins
 * after the handshake) and no HTTP request may arrive. Three more serve a sound card on a good
 * certificate and name an RPC interface with a bad one, so the RPC channel is verified apart from the
 * card fetch (told over each binding the client speaks). The control peer's certificate is good:
 * refusing it is over-rejection.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { ListenerKind, PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const card = {
  name: 'Contoso Helpdesk',
  description: 'Answers questions.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'answer', name: 'Answer', description: 'Answer a question', tags: ['qa'] }],
};

const runtimeOn = (listener: ListenerKind, card: ListenerKind = listener): PeerRuntime => ({
  cardListener: card,
  rpcListener: listener,
  workMs: 80,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
});

const intent = {
  taskClass: 'text' as const,
  input: { mediaType: 'text/plain', text: 'Hello?' },
  acceptedOutputModes: ['text/plain'],
  completion: 'poll' as const,
};
const common = {
  rule: 'SPEC-TLS-VERIFY',
  spec: 'A2A v1.0.1 §7.2 (clients SHOULD verify the server certificate; held as security), RFC 9110 §4.3.4',
  deadlineMs: 3000,
  profileConstraints: {},
  intent,
};

const bad = (listener: ListenerKind, what: string) => ({
  ...common,
  id: `spec-tls-verify/${listener}`,
  title: `Peer certificate ${what}`,
  description: `The peer serves its card over TLS with a certificate ${what}.`,
  expectation: 'Refuse the handshake: no HTTP request reaches the peer; report a handshake rejection.',
  peer: { factory: 'contoso-bad-cert', card, runtime: runtimeOn(listener), signals: [] },
  expect: 'PASS' as const,
});

/** A sound card on a good certificate, whose RPC interface serves a certificate the client must refuse: the RPC channel verified on its own. */
const badRpc = (listener: ListenerKind, what: string) => ({
  ...common,
  id: `spec-tls-verify/rpc-${listener}`,
  title: `A sound card; its RPC interface's certificate ${what}`,
  description: `The card is served over TLS with a good certificate; the interface it names serves a certificate ${what}.`,
  expectation:
    "Read the card, then refuse the RPC interface's handshake: no request reaches it; report a handshake rejection. A card fetched over a good connection vouches for nothing on another one.",
  peer: { factory: 'contoso-bad-cert', card, runtime: runtimeOn(listener, 'tls'), signals: [] },
  expect: 'PASS' as const,
});

export default defineScenarios(
  bothDialects([
    bad('untrusted-ca', 'from a CA the client does not trust'),
    bad('wrong-host', 'issued by the trusted CA for another host name'),
    bad('expired', 'issued by the trusted CA and expired'),
    badRpc('untrusted-ca', 'is from a CA the client does not trust'),
    badRpc('wrong-host', 'is issued by the trusted CA for another host name'),
    badRpc('expired', 'is issued by the trusted CA and expired'),
    {
      ...common,
      id: 'spec-tls-verify/valid-certificate-control',
      title: 'A valid peer certificate (control)',
      description: 'The peer certificate chains to the trusted test CA and names 127.0.0.1.',
      expectation: 'Proceed and complete the task.',
      peer: { factory: 'contoso-control', card, runtime: runtimeOn('tls'), signals: [] },
      expect: 'PASS',
    },
  ] satisfies Scenario[]),
);
