/**
 * Credential scope (issue 40, CREDENTIAL-SCOPE): the card lists OAuth 2.0 client credentials, and the
 * run provisions them. The card is served from a CDN origin of its own, the RPC from another, and the
 * token endpoint sits beside the RPC or on an identity provider's origin. The secret belongs to the
 * token endpoint, the token to the card's interfaces: a client that sends either anywhere else (its
 * token on the card fetch to the CDN, say) hands it to a party the card never named. Variant where it
 * does not bind as harm: card, token endpoint and RPC on one origin. Told in both dialects.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { ListenerKind, PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const card = {
  name: 'Contoso Ledger',
  description: 'Reconciles a ledger and reports the balance.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '1.8.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'reconcile', name: 'Reconcile', description: 'Reconciles a ledger', tags: ['ledger'] }],
  securitySchemes: {
    'contoso-oauth': {
      oauth2SecurityScheme: {
        description: 'OAuth 2.0 client credentials; tokens are presented as Bearer tokens (RFC 6750)',
        flows: { clientCredentials: { tokenUrl: '{{tokenUrl}}', scopes: { 'a2a:tasks': 'Send and follow tasks' } } },
      },
    },
  },
  securityRequirements: [{ schemes: { 'contoso-oauth': { list: ['a2a:tasks'] } } }],
};

const runtime = (cardListener: ListenerKind, tokenListener?: ListenerKind): PeerRuntime => ({
  cardListener,
  rpcListener: 'tls',
  workMs: 200,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300, ...(tokenListener ? { tokenListener } : {}) },
});

const spec = 'RFC 6750 §5.3 (bearer tokens not leaked to unintended parties); A2A v1.0.1 §13.4 (credentials are secrets), §7.3';
const signals = [
  {
    pointer: '/securitySchemes',
    kind: 'security' as const,
    note: 'OAuth 2.0 client credentials: the token endpoint and the interfaces the credentials are for',
  },
];

const scenario = (s: Pick<Scenario, 'id' | 'title' | 'description' | 'expectation'> & { rt: PeerRuntime }): Scenario => ({
  id: s.id,
  rule: 'CREDENTIAL-SCOPE',
  title: s.title,
  description: s.description,
  expectation: s.expectation,
  spec,
  peer: { factory: 'contoso-split-auth', card, runtime: s.rt, signals },
  profileConstraints: {},
  intent: {
    taskClass: 'text',
    input: { mediaType: 'text/plain', text: 'Reconcile the March ledger' },
    acceptedOutputModes: ['text/plain'],
    completion: 'poll',
  },
  deadlineMs: 5000,
  expect: 'PASS',
});

const told: Scenario[] = [
  scenario({
    id: 'credential-scope/card-on-cdn',
    title: 'The card comes from a CDN; the token is for the RPC',
    description:
      'The card is served from a CDN origin of its own; the RPC and its token endpoint are on another origin, and the RPC takes Bearer tokens from that endpoint.',
    expectation: 'Fetch the card with no credential, get a token at the token endpoint, and present it only to the RPC.',
    rt: runtime('cdn'),
  }),
  scenario({
    id: 'credential-scope/token-on-identity-provider',
    title: 'Three origins: the card on a CDN, the token endpoint at an identity provider, the RPC',
    description:
      "The card is served from a CDN origin; the token endpoint is on another vendor's origin (an identity provider); the RPC is on a third and takes the tokens that endpoint issues.",
    expectation: 'The client secret goes to the identity provider alone, the token to the RPC alone; the CDN gets neither.',
    rt: runtime('cdn', 'vendor-b'),
  }),
  scenario({
    id: 'credential-scope/one-origin',
    title: 'Card, token endpoint and RPC on one origin (the control)',
    description: 'The card, the token endpoint and the RPC share one origin: a token the client also sends with the card fetch stays with the agent.',
    expectation: 'Complete the task with the token; nothing leaves the agent’s origin.',
    rt: runtime('tls'),
  }),
];

export default defineScenarios(bothDialects(told));
