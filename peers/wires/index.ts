/**
 * The wires, registered in one place.
 *
 * - `DIALECT_WIRES`: each dialect a peer description may name (`peer.dialect`), with the wire of the
 *   card's main interface (`{{rpcUrl}}`) and what its cards look like.
 * - `SECOND_INTERFACES`: wires a card may offer beside its main interface, each at its own card
 *   placeholder and path: the same runtime behind another wire (`{{rpcUrl03}}`: v0.3 JSON-RPC on a
 *   v1.0 card; `{{restUrl}}`: HTTP+JSON v1.0), served where the card lists that URL at the wire's version.
 *
 * To add a wire: a folder under peers/wires/ implementing `Wire` (./wire.ts says what each binding's
 * wire does), and its entry here: in `SECOND_INTERFACES` for another binding of a dialect the peers
 * speak (as HTTP+JSON v1.0 at `{{restUrl}}` and `/rest`; gRPC v1.0 at `{{grpcUrl}}`, the origin of
 * the run's HTTP/2 listener), in `DIALECT_WIRES` as well for a new dialect (after its name in
 * harness/core/protocol/types.ts's DIALECTS, which makes this
 * table incomplete until it has its entry).
 */
import type { Dialect } from '../../harness/core/protocol/types.js';
import type { Transport } from '../../harness/net/transport.js';
import { grpcTransport } from './grpc-v1/host.js';
import { grpcV1 } from './grpc-v1/index.js';
import { jsonRpcV03, LEGACY_CARD_PATH, readCard as readCardV03 } from './jsonrpc-v03/index.js';
import { httpJsonV1 } from './httpjson-v1/index.js';
import { jsonRpcV1 } from './jsonrpc-v1/index.js';
import type { Wire } from './wire.js';

export type { Wire, WireCall, WireRequest } from './wire.js';

export interface DialectEntry {
  /** The wire of the card's main interface. */
  wire: Wire;
  /** Where a peer of this dialect serves its card: the well-known path first (the card's URL), then others. */
  cardPaths: readonly string[];
  /** The card as the runtime reads it (v1.0's shape). */
  readCard(card: Record<string, unknown>): Record<string, unknown>;
  /** Whether its cards carry signatures (v1.0 §8.4; v0.3.0 specifies no canonical form to sign). */
  signedCards: boolean;
}

export interface SecondInterface {
  wire: Wire;
  /** The card placeholder of its URL, and its path under the run's base on the RPC listener. */
  placeholder: string;
  path: string;
  /**
   * A binding whose requests need listeners of its own (gRPC's HTTP/2; harness/net/transport.ts): the
   * peer host starts it beside its HTTP/1.1 listeners, and the interface's URL is the origin of its
   * listener of the RPC listener's TLS kind (none: not served in this run, the placeholder left as it is).
   * `path` is then unused.
   */
  transport?: Transport;
}

const WELL_KNOWN = '/.well-known/agent-card.json';

export const DIALECT_WIRES: Readonly<Record<Dialect, DialectEntry>> = {
  'a2a-v1': { wire: jsonRpcV1, cardPaths: [WELL_KNOWN], readCard: (card) => card, signedCards: true },
  'a2a-v0.3': { wire: jsonRpcV03, cardPaths: [WELL_KNOWN, LEGACY_CARD_PATH], readCard: readCardV03, signedCards: false },
};

export const SECOND_INTERFACES: readonly SecondInterface[] = [
  { wire: jsonRpcV03, placeholder: 'rpcUrl03', path: '/rpc03' },
  { wire: httpJsonV1, placeholder: 'restUrl', path: '/rest' },
  // gRPC's paths are the service's own (`/lf.a2a.v1.A2AService/…`): its URL is the origin of its transport's HTTP/2 listener of the RPC listener's TLS kind.
  { wire: grpcV1, placeholder: 'grpcUrl', path: '', transport: grpcTransport },
];

/** Wires added from outside this folder (a test's toy wire, docs/architecture.md "Add a wire"), served beside the registered ones. */
const added: SecondInterface[] = [];

/**
 * Serves one more wire's interface beside the registered ones, at its placeholder, until the returned
 * function removes it: how a wire outside the package (a test's toy wire) plugs in without an edit of
 * this registry or of the runtime.
 */
export function addInterface(entry: SecondInterface): () => void {
  added.push(entry);
  return () => {
    const at = added.indexOf(entry);
    if (at >= 0) added.splice(at, 1);
  };
}

/** The interfaces a card may offer beside its main one: the registered, then any added. */
export const secondInterfaces = (): readonly SecondInterface[] => [...SECOND_INTERFACES, ...added];

/** The transports of the interfaces registered and added (gRPC's): what the runner hands the peer host to start beside its listeners. */
export const transports = (): readonly Transport[] => [...new Set(secondInterfaces().flatMap((e) => (e.transport ? [e.transport] : [])))];

/** The transports a card's placeholders ask for (`{{grpcUrl}}`: gRPC's), by name: what `serve` reserves a peer's own listeners of. */
export const transportsNamedIn = (card: unknown): string[] => {
  const text = JSON.stringify(card);
  return secondInterfaces().flatMap((e) => (e.transport && text.includes(`{{${e.placeholder}}}`) ? [e.transport.name] : []));
};

/** Every wire registered. */
export const ALL_WIRES: readonly Wire[] = [...new Set([...Object.values(DIALECT_WIRES).map((e) => e.wire), ...SECOND_INTERFACES.map((e) => e.wire)])];

/** The entry of a dialect (a description without one is v1.0's). */
export const dialectOf = (dialect: Dialect | undefined): DialectEntry => DIALECT_WIRES[dialect ?? 'a2a-v1'];
