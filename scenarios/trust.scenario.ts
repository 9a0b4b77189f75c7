/**
 * Trust is not negotiability (docs/duties.md §6–7; A2A v1.0.1 §8.4), in two parts.
 *
 * The trust gate: a card is verified before anything else, against keys the client already trusts
 * (A2A §8.4.3). The vendor publishes its keys in a JWKS on another vendor's origin, each with an x5c
 * certificate that says when it may be used. Every way the trust can be broken gets a peer: a card
 * changed after signing, an unknown kid, no trust anchor, an expired or not-yet-valid key, a jku to
 * keys on the peer's own origin, alg "none", HMAC keyed with the public key.
 *
 * Trust is not interpretability: a card whose signature verifies can still describe outputs the
 * client cannot decode. The client verifies first, then refuses (or downgrades to a skill it can
 * decode) before any task; a decode failure after a task is terminal for that task, never a reason
 * to re-send. A2A v1.0 has `acceptedOutputModes`, which the drifting peer of docs/duties.md §7 ignores, and `messageId`,
 * which a peer MAY deduplicate by (§3.3.1).
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { CardSigning } from '../harness/core/scenario/card.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const WORKFLOW = 'application/vnd.vendorx.workflow+json;profile="v3"';
const WORKFLOW_BARE = 'application/vnd.vendorx.workflow+json';

const card = {
  name: 'VendorX Workflow Engine',
  description: 'Runs approval workflows and returns their state as workflow documents.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'VendorX', url: 'https://vendorx.example' },
  version: '3.2.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: [WORKFLOW],
  skills: [{ id: 'workflow', name: 'Workflow', description: 'Run an approval workflow', tags: ['workflow'] }],
};

const withSummary = {
  ...card,
  skills: [
    ...card.skills,
    {
      id: 'summary',
      name: 'Workflow summary',
      description: 'Run the workflow and return a JSON summary of its outcome',
      tags: ['workflow'],
      outputModes: ['application/json'],
    },
  ],
};

const signing: CardSigning = { key: 'published' };

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 100,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: WORKFLOW, channel: 'task' }],
};

/** The client's decoder registry: the workflow type without its profile (docs/duties.md §7). */
const registry = ['text/plain', 'application/json', WORKFLOW_BARE];
const trusting = { requireSignedCards: true, trustedJwks: ['{{vendorJwksUrl}}'], mediaTypes: registry };

const intent = {
  taskClass: 'artifact' as const,
  input: { mediaType: 'text/plain', text: 'Run the Q4 vendor approval workflow' },
  acceptedOutputModes: [WORKFLOW_BARE],
  completion: 'poll' as const,
};

const signals = [
  { pointer: '/signatures/0', kind: 'security' as const, note: "signed with the vendor key published on another vendor's origin" },
  { pointer: '/defaultOutputModes', kind: 'field' as const, note: `${WORKFLOW}: the registry has the type without its profile` },
];

const spec = 'docs/duties.md §7; A2A v1.0.1 §8.4';

const mediaScenarios: Scenario[] = [
  {
    id: 'trust-uninterpretable/profiled-output',
    rule: 'TRUST-SIGNED-UNINTERPRETABLE',
    title: 'A trusted card whose only output the client cannot decode',
    description: `The card verifies against the vendor's JWKS on another origin; its only output is ${WORKFLOW}. The client's registry has ${WORKFLOW_BARE} without the profile. The peer ignores acceptedOutputModes.`,
    expectation: 'Fetch the JWKS over TLS and verify the card, then refuse before any task: the output is undecodable with parameters significant.',
    spec,
    peer: { factory: 'vendorx-workflow', card, runtime, signals, signing },
    profileConstraints: trusting,
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-uninterpretable/decodable-skill',
    rule: 'TRUST-SIGNED-UNINTERPRETABLE',
    title: 'A second skill emits what the client can decode (downgrade)',
    description: `As above, but a skill "summary" lists application/json, and the runtime emits JSON for tasks that name it (Message.metadata.skillId). The application accepts the workflow type or JSON.`,
    expectation:
      'Verify, then send the task to the summary skill with acceptedOutputModes application/json, and see it complete; refusing before any task is allowed too (docs/duties.md §7 lets a client stop with a final negotiation error). A task on the workflow path is NON_STRICT.',
    spec,
    peer: {
      factory: 'vendorx-workflow',
      card: withSummary,
      runtime: {
        ...runtime,
        outputs: [
          { mediaType: WORKFLOW, channel: 'task' },
          { mediaType: 'application/json', channel: 'task', skill: 'summary' },
        ],
      },
      signals: [...signals, { pointer: '/skills/1/outputModes', kind: 'MUST', note: 'skill summary emits application/json' }],
      signing,
    },
    profileConstraints: trusting,
    intent: { ...intent, acceptedOutputModes: [WORKFLOW_BARE, 'application/json'] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-uninterpretable/status-only',
    rule: 'TRUST-SIGNED-UNINTERPRETABLE',
    title: 'A status-only consumer of the same card (rule does not stop it)',
    description: 'The client reads task status and never decodes artifacts (consumesArtifacts false); the card and runtime are as in profiled-output.',
    expectation: 'Verify, proceed and poll to completion: undecodable artifacts cost a status-only consumer nothing.',
    spec,
    peer: { factory: 'vendorx-workflow', card, runtime, signals, signing },
    profileConstraints: { ...trusting, consumesArtifacts: false },
    intent: { ...intent, taskClass: 'async-completion', acceptedOutputModes: [] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-uninterpretable/status-only-accepting',
    rule: 'TRUST-SIGNED-UNINTERPRETABLE',
    title: 'A status-only consumer whose application still names an output type the card lacks',
    description: `As status-only, but the application lists ${WORKFLOW_BARE} as the output it accepts, which the card offers only with its profile. Found by the trust property family: the reference client refused, reading the accepted modes as if it consumed artifacts.`,
    expectation:
      'Verify, proceed and poll to completion: a client that never decodes an artifact has nothing to refuse (docs/duties.md §7: a client that only follows the status of a task and ignores its artifacts can proceed).',
    spec,
    peer: { factory: 'vendorx-workflow', card, runtime, signals, signing },
    profileConstraints: { ...trusting, consumesArtifacts: false },
    intent: { ...intent, taskClass: 'async-completion' },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-decode/drift',
    rule: 'TRUST-NO-RETRY-ON-DECODE',
    title: 'The runtime emits a profiled type the card never listed; every send mints a task',
    description: `The signed card lists application/json; the runtime shows a ${WORKFLOW} artifact while the task stays WORKING, and mints a new task for every send (no idempotency).`,
    expectation: 'Proceed; on the undecodable artifact, treat the failure as terminal for the task: cancel it, never re-send.',
    spec: 'docs/duties.md §7',
    peer: {
      factory: 'vendorx-drift',
      card: { ...card, defaultOutputModes: ['application/json'] },
      runtime: { ...runtime, staysWorking: true },
      signals: [signals[0]!, { pointer: '/defaultOutputModes', kind: 'MUST', note: 'lists application/json; the runtime drifts' }],
      signing,
    },
    profileConstraints: trusting,
    intent: { ...intent, acceptedOutputModes: ['application/json'] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-decode/drift-streamed',
    rule: 'TRUST-NO-RETRY-ON-DECODE',
    title: 'The same drift, on a streaming peer the client streams from',
    description: `As drift, but the card and the runtime stream: the ${WORKFLOW} artifact arrives as an artifact update on SendStreamingMessage while the task stays WORKING, and the stream stays open.`,
    expectation: 'On the undecodable artifact update, close the stream and cancel the task; never re-send, never wait on the open stream to the deadline.',
    spec: 'docs/duties.md §7',
    peer: {
      factory: 'vendorx-drift',
      card: { ...card, capabilities: { streaming: true, pushNotifications: false }, defaultOutputModes: ['application/json'] },
      runtime: { ...runtime, streaming: true, staysWorking: true },
      signals: [signals[0]!, { pointer: '/defaultOutputModes', kind: 'MUST', note: 'lists application/json; the runtime drifts' }],
      signing,
    },
    profileConstraints: trusting,
    intent: { ...intent, acceptedOutputModes: ['application/json'], completion: 'stream' },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-decode/dedupe',
    rule: 'TRUST-NO-RETRY-ON-DECODE',
    title: 'The same drift, on a peer that deduplicates by messageId',
    description:
      'As drift, but a send whose messageId the peer has seen returns the task it minted (A2A §3.3.1): a resend with the same messageId adds no task.',
    expectation:
      'The same as drift: cancel, never re-send. A client that re-sends with the same messageId does no harm here (NON_STRICT); with a new messageId it mints tasks (FAIL).',
    spec: 'docs/duties.md §7; A2A v1.0.1 §3.3.1',
    peer: {
      factory: 'vendorx-dedupe',
      card: { ...card, defaultOutputModes: ['application/json'] },
      runtime: { ...runtime, staysWorking: true, idempotency: 'message-id' },
      signals: [signals[0]!, { pointer: '/defaultOutputModes', kind: 'MUST', note: 'lists application/json; the runtime drifts' }],
      signing,
    },
    profileConstraints: trusting,
    intent: { ...intent, acceptedOutputModes: ['application/json'] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-decode/honest-runtime',
    rule: 'TRUST-NO-RETRY-ON-DECODE',
    title: 'The runtime emits what the card lists (control)',
    description: 'The same signed card listing application/json; the runtime emits application/json and completes.',
    expectation: 'Proceed and complete: nothing to refuse, nothing to retry.',
    spec: 'docs/duties.md §7',
    peer: {
      factory: 'vendorx-drift',
      card: { ...card, defaultOutputModes: ['application/json'] },
      runtime: { ...runtime, outputs: [{ mediaType: 'application/json', channel: 'task' }] },
      signals: [signals[0]!],
      signing,
    },
    profileConstraints: trusting,
    intent: { ...intent, acceptedOutputModes: ['application/json'] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-param/profile-differs',
    rule: 'TRUST-PARAM-MATCH',
    title: 'The offered type matches the registry only with its profile stripped',
    description: `An unsigned card offers only ${WORKFLOW}; the client's registry and the application have ${WORKFLOW_BARE}. A matcher that lets the offered type carry extra parameters takes it for a match (docs/duties.md §7).`,
    expectation: 'Compare with parameters: no match, so refuse before any task.',
    spec: 'docs/duties.md §7',
    peer: { factory: 'contoso-control', card, runtime, signals: [signals[1]!] },
    profileConstraints: { mediaTypes: registry },
    intent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-param/decodable-skill',
    rule: 'TRUST-PARAM-MATCH',
    title: 'A second skill emits exactly what the client decodes (downgrade)',
    description: `As profile-differs, but a skill "summary" lists application/json, and the runtime emits JSON for tasks that name it (Message.metadata.skillId). The application accepts ${WORKFLOW_BARE} or JSON. Found by the trust property family: the rule graded this downgrade as a task on the loose match.`,
    expectation: 'Send the task to the summary skill and see it complete, or refuse before any task; a task on the default outputs is NON_STRICT.',
    spec: 'docs/duties.md §7',
    peer: {
      factory: 'contoso-control',
      card: withSummary,
      runtime: {
        ...runtime,
        outputs: [
          { mediaType: WORKFLOW, channel: 'task' },
          { mediaType: 'application/json', channel: 'task', skill: 'summary' },
        ],
      },
      signals: [signals[1]!, { pointer: '/skills/1/outputModes', kind: 'MUST', note: 'skill summary emits application/json' }],
    },
    profileConstraints: { mediaTypes: registry },
    intent: { ...intent, acceptedOutputModes: [WORKFLOW_BARE, 'application/json'] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'trust-param/case-differs',
    rule: 'TRUST-PARAM-MATCH',
    title: 'The same type spelled in another case, with a charset in upper case (rule says proceed)',
    description:
      'The card offers Application/JSON and text/plain;charset=UTF-8; the client has application/json and text/plain;charset=utf-8. RFC 9110 makes them the same types.',
    expectation: 'Match them case-insensitively where RFC 9110 says so, proceed and complete.',
    spec: 'RFC 9110 §8.3.1, §8.3.2',
    peer: {
      factory: 'contoso-control',
      card: { ...card, defaultOutputModes: ['Application/JSON', 'text/plain;charset=UTF-8'] },
      runtime: { ...runtime, outputs: [{ mediaType: 'text/plain;charset=UTF-8', channel: 'task' }] },
      signals: [],
    },
    profileConstraints: { mediaTypes: ['text/plain;charset=utf-8', 'application/json'] },
    intent: { ...intent, acceptedOutputModes: ['text/plain;charset=utf-8'] },
    deadlineMs: 3000,
    expect: 'PASS',
  },
];

/** The signature scenarios: every way the card's trust can be broken, and its controls. */
function signatureScenarios(): Scenario[] {
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
  const spec = 'A2A v1.0.1 §8.4.3; docs/duties.md §7';

  interface Case {
    id: string;
    rule: string;
    title: string;
    description: string;
    signing: CardSigning;
    profile?: Record<string, unknown>;
    expectation?: string;
    /** The card, where it is not the invoices card: a shape whose canonical form the published readings disagree on. */
    card?: Record<string, unknown>;
    runtime?: PeerRuntime;
    spec?: string;
    /** Where the key store asks for a wait: room for it, the verification and the task. */
    deadlineMs?: number;
  }

  // Sound signatures over cards whose canonical form the published readings of §8.4.1 disagree on
  // (A2A #2122): the harness keeps a set message that is empty; @a2a-js/sdk 1.3.0 and a2a-python
  // remove every empty object. A verifier that follows either reading refuses these cards.
  const contested = 'A2A v1.0.1 §8.4.1, §5.7; A2A #2122 (the readings of the canonical form disagree)';
  const mtlsCard = {
    ...card,
    securitySchemes: { partnerMtls: { mtlsSecurityScheme: { description: 'Mutual TLS with partner certificates' } } },
    // A scheme required with no scopes: StringList is a message, set and empty.
    securityRequirements: [{ schemes: { partnerMtls: {} } }],
  };

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
      id: 'trust-jku/names-trusted-jwks',
      rule: 'TRUST-UNTRUSTED-JKU',
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
      id: 'trust-signature/tampered-key-store-busy',
      rule: 'TRUST-BAD-SIGNATURE',
      title: 'A tampered card, while its key store is briefly down',
      description:
        "As tampered; the vendor's JWKS answers its first fetch 503 with Retry-After: 1, then the keys. A resolver that cached the card before verifying it hands it back on its retry.",
      signing: { key: 'published', tamper: { pointer: '/description', value: 'Summarises invoices and approves payments.' }, jwksBusy: 1 },
      deadlineMs: 6000,
      expectation:
        'Wait the second the key store asks for, fetch the keys and verify: the card stays refused. A card that failed verification is refused on every retry; no cache may hand it back unverified.',
    },
    {
      id: 'trust-signature/key-store-busy',
      rule: 'TRUST-BAD-SIGNATURE',
      title: 'A sound card, while its key store is briefly down (control)',
      description: "Signed with the vendor's current key; the JWKS answers its first fetch 503 with Retry-After: 1, then the keys.",
      signing: { key: 'published', jwksBusy: 1 },
      deadlineMs: 6000,
      expectation: 'Wait the second the key store asks for, verify, proceed and complete: a key store that is down for a second is no reason to refuse.',
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
      id: 'trust-kid/listed-key',
      rule: 'TRUST-UNKNOWN-KID',
      title: 'The kid is listed in the trusted JWKS, its certificate valid now (control)',
      description: "Signed with the vendor's current key, which the trusted JWKS lists with an x5c certificate valid today.",
      signing: { key: 'published' },
      expectation: 'Verify, proceed and complete.',
    },
    {
      id: 'trust-kid/expired',
      rule: 'TRUST-UNKNOWN-KID',
      title: "The key's certificate in the trusted JWKS has expired",
      description: 'Signed with a vendor key whose x5c certificate in the JWKS expired before the run.',
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
      id: 'trust-alg/es256',
      rule: 'TRUST-ALG',
      title: 'ES256, an algorithm the verifier allows (control)',
      description: "Signed with ES256 by the vendor's current key, the algorithm its JWK names.",
      signing: { key: 'published' },
      expectation: 'Verify, proceed and complete.',
    },
    {
      id: 'trust-canonical/empty-scope-requirement',
      rule: 'TRUST-BAD-SIGNATURE',
      title: 'A sound signature over a security requirement with no scopes (contested canonical form)',
      description:
        'Soundly signed by the trusted key. The card requires mTLS with `securityRequirements: [{"schemes":{"partnerMtls":{}}}]`: the harness signs that requirement; the clean-empty reading of @a2a-js/sdk 1.3.0 and a2a-python removes it (A2A #2122).',
      signing: { key: 'published' },
      card: mtlsCard,
      runtime: { ...runtime, rpcListener: 'mtls' },
      spec: contested,
      expectation:
        'Verify, proceed over mTLS and complete. A verifier that follows the clean-empty reading refuses it: NON_STRICT, with the divergence named, never FAIL.',
    },
    {
      id: 'trust-canonical/empty-capabilities',
      rule: 'TRUST-BAD-SIGNATURE',
      title: 'A sound signature over `capabilities: {}` (contested canonical form)',
      description:
        'Soundly signed by the trusted key; the REQUIRED `capabilities` is set and empty. The harness signs it; the clean-empty reading removes it (A2A #2122).',
      signing: { key: 'published' },
      card: { ...card, capabilities: {} },
      spec: contested,
      expectation:
        'Verify, proceed and complete. A verifier that follows the clean-empty reading refuses it: NON_STRICT, with the divergence named, never FAIL.',
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
      description:
        "The signature is HS256 whose secret is the vendor key's public PEM: it verifies only for a client that takes the algorithm from the header.",
      signing: { key: 'published', breaker: 'hmac-public-key' },
    },
  ];

  return cases.map(
    (c): Scenario => ({
      id: c.id,
      rule: c.rule,
      title: c.title,
      description: c.description,
      expectation: c.expectation ?? 'Refuse before any task: the signature cannot be trusted.',
      spec: c.spec ?? spec,
      peer: {
        factory: c.signing.key === 'published' && !c.signing.breaker && !c.signing.tamper ? 'vendorx-workflow' : 'vendorx-trust-breaker',
        card: c.card ?? card,
        runtime: c.runtime ?? runtime,
        signals: [{ pointer: '/signatures/0', kind: 'security', note: c.title }],
        signing: c.signing,
      },
      profileConstraints: c.profile ?? trusting,
      intent,
      deadlineMs: c.deadlineMs ?? 3000,
      expect: 'PASS',
    }),
  );
}

export default defineScenarios(bothDialects([...mediaScenarios, ...signatureScenarios()]));
