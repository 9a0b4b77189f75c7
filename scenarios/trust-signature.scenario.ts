/**
 * Seed 001's trust gate: a card is verified before anything else, against keys the client already
 * trusts (A2A §8.4.3). The vendor publishes its keys in a JWKS on another vendor's origin, each with
 * an x5c certificate that says when it may be used. Every way the trust can be broken gets a peer:
 * a card changed after signing, an unknown kid, no trust anchor, an expired or not-yet-valid key, a
 * jku to keys on the peer's own origin, alg "none", HMAC keyed with the public key.
 */
import { defineScenarios } from '../harness/runner/define.js';
import type { CardSigning, PeerRuntime, Scenario } from '../harness/core/scenario.js';

const card = {
  name: 'VendorX Invoices',
  description: 'Summarises invoices.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'VendorX', url: 'https://vendorx.example' },
  version: '2.0.1',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'invoices', name: 'Invoices', description: 'Summarise an invoice', tags: ['finance'] }],
};

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 80,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
};

const intent = {
  taskClass: 'text' as const,
  input: { mediaType: 'text/plain', text: 'Summarise invoice 2026-114' },
  acceptedOutputModes: ['text/plain'],
  completion: 'poll' as const,
};

const trusting = { requireSignedCards: true, trustedJwks: ['{{vendorJwksUrl}}'] };
const spec = 'A2A v1.0.1 §8.4.3; seed 001 §Decision Boundary';

interface Case {
  id: string;
  rule: string;
  title: string;
  description: string;
  signing: CardSigning;
  profile?: Record<string, unknown>;
  expectation?: string;
}

const cases: Case[] = [
  {
    id: 'trust-signature/valid',
    rule: 'TRUST-BAD-SIGNATURE',
    title: 'A soundly signed card from a trusted key (control)',
    description: "Signed with the vendor's current key; its kid resolves in the JWKS on another vendor's origin, which the client trusts.",
    signing: { key: 'published' },
    expectation: 'Fetch the JWKS over TLS, verify, proceed and complete.',
  },
  {
    id: 'trust-signature/valid-with-jku',
    rule: 'TRUST-BAD-SIGNATURE',
    title: 'A sound signature whose jku names the trusted JWKS (control)',
    description: 'As valid, with a jku header naming the JWKS the client already trusts.',
    signing: { key: 'published', jku: true },
    expectation: 'Verify, proceed and complete: a jku that names a trusted JWKS is fine.',
  },
  {
    id: 'trust-signature/tampered',
    rule: 'TRUST-BAD-SIGNATURE',
    title: 'The card was changed after it was signed',
    description: 'Signed with the trusted key, then its description was changed: the signature no longer verifies.',
    signing: { key: 'published', tamper: { pointer: '/description', value: 'Summarises invoices and approves payments.' } },
  },
  {
    id: 'trust-signature/tampered-not-required',
    rule: 'TRUST-BAD-SIGNATURE',
    title: 'A tampered card, to a client that does not require signed cards',
    description: 'As tampered; the profile does not require signed cards but trusts the vendor JWKS.',
    signing: { key: 'published', tamper: { pointer: '/description', value: 'Summarises invoices and approves payments.' } },
    profile: { requireSignedCards: false, trustedJwks: ['{{vendorJwksUrl}}'] },
    expectation: 'A card whose signature fails is not trusted (§8.4.3 SHOULD): refuse. Proceeding is NON_STRICT here.',
  },
  {
    id: 'trust-kid/unknown',
    rule: 'TRUST-UNKNOWN-KID',
    title: 'The kid is in no trusted JWKS',
    description: 'Signed with a key the vendor JWKS does not list.',
    signing: { key: 'unlisted' },
  },
  {
    id: 'trust-kid/no-anchor',
    rule: 'TRUST-UNKNOWN-KID',
    title: 'A sound signature, but the client trusts no JWKS for this vendor',
    description: "Signed with the vendor's current key; the profile requires signed cards and trusts no JWKS.",
    signing: { key: 'published' },
    profile: { requireSignedCards: true, trustedJwks: [] },
    expectation: 'With no trust anchor there is no trusted key: refuse before any task.',
  },
  {
    id: 'trust-kid/expired',
    rule: 'TRUST-UNKNOWN-KID',
    title: "The key's certificate in the trusted JWKS has expired",
    description: "Signed with a vendor key whose x5c certificate in the JWKS expired before the run.",
    signing: { key: 'expired' },
  },
  {
    id: 'trust-kid/not-yet-valid',
    rule: 'TRUST-UNKNOWN-KID',
    title: "The key's certificate in the trusted JWKS is not valid yet",
    description: 'Signed with a vendor key whose x5c certificate only becomes valid in 30 days.',
    signing: { key: 'not-yet-valid' },
  },
  {
    id: 'trust-jku/own-origin',
    rule: 'TRUST-UNTRUSTED-JKU',
    title: "The jku names keys on the peer's own origin",
    description: "Signed with a key published only in a JWKS on the peer's own origin, which the protected header's jku names.",
    signing: { key: 'own-origin' },
  },
  {
    id: 'trust-alg/none',
    rule: 'TRUST-ALG',
    title: 'alg "none"',
    description: 'The signature is an Unsecured JWS: alg "none", an empty signature.',
    signing: { key: 'published', breaker: 'alg-none' },
  },
  {
    id: 'trust-alg/hmac-public-key',
    rule: 'TRUST-ALG',
    title: 'HS256 keyed with the public key',
    description: "The signature is HS256 whose secret is the vendor key's public PEM: it verifies only for a client that takes the algorithm from the header.",
    signing: { key: 'published', breaker: 'hmac-public-key' },
  },
];

export default defineScenarios(
  cases.map(
    (c): Scenario => ({
      id: c.id,
      rule: c.rule,
      title: c.title,
      description: c.description,
      expectation: c.expectation ?? 'Refuse before any task: the signature cannot be trusted.',
      spec,
      peer: {
        factory: c.signing.key === 'published' && !c.signing.breaker && !c.signing.tamper ? 'vendorx-workflow' : 'vendorx-trust-breaker',
        card,
        runtime,
        signals: [{ pointer: '/signatures/0', kind: 'security', note: c.title }],
        signing: c.signing,
      },
      profileConstraints: c.profile ?? trusting,
      intent,
      deadlineMs: 3000,
      expect: 'PASS',
    }),
  ),
);
