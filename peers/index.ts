/**
 * The scripted vendor peers. Each is a factory over a runtime description (plain data, written in
 * the scenario file), spoken in the dialect the description names (peers/wires/: A2A v1.0 or v0.3
 * JSON-RPC). Behaviour comes from the runtime description (peers/runtime/); a factory only names a
 * story and checks its description. A factory checks that the description has what its story
 * needs, so a scenario cannot quietly describe another peer.
 */
import type { PeerDescription } from '../harness/core/scenario/scenario.js';
import { BAD_CERT_LISTENERS } from '../harness/core/scenario/runtime.js';
import type { PeerInstance, PeerParts, PeerRunContext } from './runtime/context.js';
import { composeLive } from './live.js';
import { composePeer } from './peer.js';

/** The factory of a live agent behind the recording proxy (`proxy`, peers/live.ts): not among those a scenario file may name. */
export const LIVE_FACTORY = 'live';
import { signingParts } from './runtime/signing.js';
import { dialectOf } from './wires/index.js';

export type { PeerInstance, PeerParts, PeerRunContext } from './runtime/context.js';

interface PeerEntry {
  summary: string;
  /** The description fields its check insists on (docs/peers.md); every runtime field is read by every factory. */
  requires: string[];
  /** Returns a problem with the description, or undefined. */
  check(desc: PeerDescription): string | undefined;
}

const PEERS: Record<string, PeerEntry> = {
  generated: {
    requires: [],
    summary: "A peer of a property family's generated case (harness/properties): its card and runtime description are the whole story, drifts included.",
    check: () => undefined,
  },
  'contoso-control': {
    requires: [],
    summary: 'A well-behaved peer: what its card says is what its runtime does.',
    check: () => undefined,
  },
  'contoso-audio-batch': {
    requires: ['runtime.input'],
    summary:
      'Takes audio/pcm only as one complete payload under a ceiling the card never shows; a second frame gets HTTP 415 (docs/duties.md §1, its incident).',
    check: (d) => (d.runtime.input ? undefined : 'runtime.input is required'),
  },
  'contoso-mtls-push': {
    requires: ['runtime.push.supported: true'],
    summary:
      "RPC listener demands a client certificate; push registration succeeds for any https URL; delivery over partner mTLS (or plain HTTPS with the client's authentication), a failed one logged as dispatched and lost while the task completes all the same (docs/duties.md §2, its incident).",
    check: (d) => (d.runtime.push.supported ? undefined : 'runtime.push must be supported'),
  },
  'contoso-resubscribe-only': {
    requires: ['runtime.outputs: a subscribe-only mode'],
    summary: 'Emits an output mode only on SubscribeToTask, which it refuses with -32004 (docs/duties.md §3).',
    check: (d) => (d.runtime.outputs.some((o) => o.channel === 'subscribe-only') ? undefined : 'runtime.outputs needs a subscribe-only mode'),
  },
  'contoso-extension': {
    requires: ['runtime.input.sessionExtension'],
    summary:
      'A contradictory card for live audio with a vendor extension, declared in capabilities.extensions, that opens a live session when a message opts into it (docs/duties.md §4).',
    check: (d) => (d.runtime.input?.sessionExtension ? undefined : 'runtime.input.sessionExtension is required'),
  },
  'vendorx-workflow': {
    requires: ['signing: key "published", no breaker, no tamper'],
    summary:
      "Signs its card with the vendor's current key (the kid resolves through a JWKS on another vendor's origin); emits what its runtime says (the workflow of docs/duties.md §7: a profiled media type) whatever acceptedOutputModes asks; a skill with outputs of its own emits those for tasks that name it (Message.metadata.skillId).",
    check: (d) =>
      !d.signing
        ? 'signing is required'
        : d.signing.key !== 'published' || d.signing.breaker || d.signing.tamper
          ? 'signing must be sound (key "published", no breaker, no tamper)'
          : undefined,
  },
  'vendorx-drift': {
    requires: ['runtime.idempotency: not "message-id"'],
    summary:
      'The card lists decodable output modes; the runtime emits a profiled type instead, while the task stays WORKING; every send mints a new task (docs/duties.md §7).',
    check: (d) => (d.runtime.idempotency === 'message-id' ? 'runtime.idempotency must be "none" (vendorx-dedupe deduplicates)' : undefined),
  },
  'vendorx-dedupe': {
    requires: ['runtime.idempotency: "message-id"'],
    summary: 'As vendorx-drift, but a send whose messageId it has seen returns the task that messageId minted (A2A §3.3.1).',
    check: (d) => (d.runtime.idempotency === 'message-id' ? undefined : 'runtime.idempotency must be "message-id"'),
  },
  'vendorx-trust-breaker': {
    requires: ['signing: broken one way'],
    summary:
      'Serves a card whose signature cannot be trusted: tampered after signing, an unknown or expired kid, a jku to keys on its own origin, alg none, or HMAC keyed with the public key (A2A v1.0.1 §8.4, TRUST-*).',
    check: (d) =>
      !d.signing
        ? 'signing is required'
        : d.signing.key === 'published' && !d.signing.breaker && !d.signing.tamper
          ? 'signing must be broken one way (a key other than "published", a breaker, or a tamper)'
          : undefined,
  },
  'contoso-skill-override': {
    requires: ['runtime.skillInputModes'],
    summary:
      "A skill declares input modes narrower than the card's defaults, and the runtime honours the skill: the excluded default mode sent to it gets -32005 (docs/duties.md §8). A message names its skill in Message.metadata.skillId; the runtime may route unnamed messages to a skill too.",
    check: (d) =>
      d.runtime.skillInputModes && Object.keys(d.runtime.skillInputModes).length > 0 ? undefined : 'runtime.skillInputModes must name at least one skill',
  },
  'contoso-split-auth': {
    requires: ['runtime.auth'],
    summary:
      'The card advertises OAuth 2.0 client credentials with a real token endpoint on the peer over TLS; the task endpoint takes Bearer tokens from it, or challenges with a scheme the card never lists (DPoP), or lets tokens expire mid-task (docs/duties.md §9); the token endpoint beside the RPC or on an identity provider’s origin of its own.',
    check: (d) => (d.runtime.auth ? undefined : 'runtime.auth is required'),
  },
  'contoso-aspirational-push': {
    requires: ['card.capabilities.pushNotifications: true'],
    summary:
      'The card says pushNotifications: true; the push methods answer -32003, or do not exist (-32601, an inline config silently dropped), or (the control) work (docs/duties.md §10).',
    check: (d) => {
      const caps = d.card.capabilities as { pushNotifications?: unknown } | undefined;
      return caps?.pushNotifications === true ? undefined : 'the card must say capabilities.pushNotifications: true';
    },
  },
  'contoso-cdn-stale': {
    requires: ['runtime.cardListener: "cdn"', 'runtime.rpcListener: not "cdn"'],
    summary:
      "The card is served from a CDN origin of its own, the RPC from another; after a redeploy the CDN's copy may be stale, the runtime refusing what it still offers, while GetExtendedAgentCard (where declared) serves the runtime's own card (docs/duties.md §11).",
    check: (d) =>
      d.runtime.cardListener !== 'cdn'
        ? 'runtime.cardListener must be "cdn"'
        : d.runtime.rpcListener === 'cdn'
          ? 'runtime.rpcListener must not be "cdn"'
          : undefined,
  },
  'contoso-bad-cert': {
    requires: ['runtime.cardListener or runtime.rpcListener: a bad-certificate listener'],
    summary: 'Serves its card, or the RPC interface its card names, over TLS with a certificate from an untrusted CA, for the wrong host, or expired.',
    check: (d) =>
      BAD_CERT_LISTENERS.has(d.runtime.cardListener) || BAD_CERT_LISTENERS.has(d.runtime.rpcListener)
        ? undefined
        : 'runtime.cardListener or runtime.rpcListener must be a bad-certificate listener',
  },
};

export const PEER_NAMES = Object.keys(PEERS);

/** What a peer of the description's dialect cannot script, said where a scenario asks for it. */
function dialectProblem(desc: PeerDescription): string | undefined {
  if (desc.signing && !dialectOf(desc.dialect).signedCards) return 'signing is defined for v1.0 cards only (v0.3.0 specifies no canonical form to sign)';
  return undefined;
}

/** Each factory: its name, what it serves, and what its check insists on (docs/peers.md). */
export const peerCatalogue = () => Object.entries(PEERS).map(([name, e]) => ({ name, summary: e.summary, requires: e.requires }));

export function peerSummary(name: string): string | undefined {
  return PEERS[name]?.summary;
}

/** What is wrong with a peer description, as `field: what` (checked when a scenario file loads), or undefined. */
export function peerProblem(desc: PeerDescription): string | undefined {
  if (desc.factory === LIVE_FACTORY || desc.live)
    return desc.factory === LIVE_FACTORY && desc.live ? undefined : "peer: a live peer is the proxy's own (`proxy --upstream`)";
  if (!Object.hasOwn(PEERS, desc.factory)) return `peer.factory: unknown peer factory "${desc.factory}" (known: ${PEER_NAMES.join(', ')})`;
  const problem = PEERS[desc.factory]!.check(desc) ?? dialectProblem(desc);
  return problem ? `peer (factory "${desc.factory}"): ${problem}` : undefined;
}

/** Makes a peer for one run. `parts` add to the factory's own (a signing step, another origin, a gate). */
export const createPeer = (desc: PeerDescription, ctx: PeerRunContext, parts: PeerParts = {}): PeerInstance => {
  const problem = peerProblem(desc);
  if (problem) throw new Error(`[harness] ${problem}`);
  if (desc.live) return composeLive(desc.live, ctx);
  return composePeer(desc, ctx, desc.signing ? composeParts(parts, signingParts(desc.signing, ctx, desc.runtime.cardListener)) : parts);
};

/** Two sets of parts as one: `a`'s card step runs first, then `b`'s (the signature comes last). */
function composeParts(a: PeerParts, b: PeerParts): PeerParts {
  return {
    finishCard: (card, ctx) => {
      const first = a.finishCard ? a.finishCard(card, ctx) : card;
      return b.finishCard ? b.finishCard(first, ctx) : first;
    },
    origins: (ctx, card) => [...(a.origins?.(ctx, card) ?? []), ...(b.origins?.(ctx, card) ?? [])],
    gates: (ctx, url, record, routes) => [...(a.gates?.(ctx, url, record, routes) ?? []), ...(b.gates?.(ctx, url, record, routes) ?? [])],
    jwks: (ctx) => [...(a.jwks?.(ctx) ?? []), ...(b.jwks?.(ctx) ?? [])],
  };
}
