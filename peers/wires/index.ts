/**
 * The wires, registered in one place: each dialect a peer description may name, with the wire that
 * speaks it and what its cards look like. A peer serves its card's main interface (`{{rpcUrl}}`) in
 * its own dialect; a v1.0 card may offer the same runtime behind other wires' interfaces too, each
 * at its own placeholder (`{{rpcUrl03}}`: v0.3 JSON-RPC), served where the card lists it at the
 * wire's version.
 *
 * To add a wire: a folder under peers/wires/ implementing `Wire` (./wire.ts says how HTTP+JSON and
 * gRPC would), and its entry here.
 */
import type { Dialect } from '../../harness/core/vocabulary/types.js';
import { jsonRpcV03, LEGACY_CARD_PATH, readCard as readCardV03 } from './jsonrpc-v03/index.js';
import { jsonRpcV1 } from './jsonrpc-v1/index.js';
import type { Wire } from './wire.js';

export type { Wire, WireCall, WireRequest } from './wire.js';

export interface DialectEntry {
  wire: Wire;
  /** Where a peer of this dialect serves its card: the well-known path first (the card's URL), then others. */
  cardPaths: readonly string[];
  /** The card as the runtime reads it (v1.0's shape). */
  readCard(card: Record<string, unknown>): Record<string, unknown>;
  /** Whether its cards carry signatures (v1.0 §8.4; v0.3.0 specifies no canonical form to sign). */
  signedCards: boolean;
  /** A second interface of a card of another dialect, served by this wire: the card placeholder of its URL and its path under the run's base. */
  alsoAt?: { placeholder: string; path: string };
}

const WELL_KNOWN = '/.well-known/agent-card.json';

export const WIRES: Readonly<Record<Dialect, DialectEntry>> = {
  'a2a-v1': { wire: jsonRpcV1, cardPaths: [WELL_KNOWN], readCard: (card) => card, signedCards: true },
  'a2a-v0.3': {
    wire: jsonRpcV03,
    cardPaths: [WELL_KNOWN, LEGACY_CARD_PATH],
    readCard: readCardV03,
    signedCards: false,
    alsoAt: { placeholder: 'rpcUrl03', path: '/rpc03' },
  },
};

/** The entry of a dialect (a description without one is v1.0's). */
export const dialectOf = (dialect: Dialect | undefined): DialectEntry => WIRES[dialect ?? 'a2a-v1'];
