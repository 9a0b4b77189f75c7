/**
 * What a peer factory gets for one scenario run: where it is reachable, the recorder and ledger
 * of the run, the push dispatcher and a timer that dies with the run. Injected by the runner, so
 * peers depend on core only. And the parts a peer is composed of besides its runtime and wires.
 */
import type { RequestHandler } from 'msw';
import type { CardSigners } from '../../harness/core/scenario/card.js';
import type { ListenerKind } from '../../harness/core/scenario/runtime.js';
import type { PushOrder } from '../../harness/core/push.js';
import type { HttpEvent, PushAttemptEvent, TaskLedger, Transcript } from '../../harness/core/transcript.js';
import type { ClientCredentials } from '../../harness/core/protocol/types.js';

export type { PushOrder };

export interface PeerRunContext {
  /** Short key of this run, unique on its host. */
  key: string;
  transcript: Transcript;
  ledger: TaskLedger;
  /** Base URL of this run on a listener: `https://127.0.0.1:<port>/t/<key>`. */
  base(kind: ListenerKind): string;
  /**
   * The origin (`https://127.0.0.1:<port>`) of a binding's own transport's listener of a TLS kind
   * ('tls', 'mtls'): gRPC's HTTP/2 listener (transport `grpc`); undefined for a kind without one, or
   * where the host runs no such transport.
   */
  transportOrigin?(name: string, kind: ListenerKind): string | undefined;
  push(order: PushOrder): Promise<PushAttemptEvent>;
  /** Runs `fn` after `ms` unless the run has ended. */
  later(ms: number, fn: () => void): void;
  /** The scenario's deadline: the longest a blocking call (SendMessage without returnImmediately) waits. */
  deadlineMs: number;
  /** Runs `fn` when the run ends (at once if it has): a blocking call stops waiting then. */
  onEnd(fn: () => void): void;
  /** The vendor's card-signing keys of this run (PEM; A2A v1.0.1 §8.4, docs/duties.md §7). */
  signers: CardSigners;
  /**
   * How many finished tasks the peer keeps (the oldest finished are forgotten first: `serve`, which
   * runs for hours). Absent: all, for a scenario run is short and its input bounded.
   */
  retainFinished?: number;
}

export interface PeerInstance {
  /** The card as served in this run. */
  card: Record<string, unknown>;
  cardUrl: string;
  handlers: RequestHandler[];
  /** The JWKS documents this peer publishes (a signing peer), by URL: what the harness verifies the card against. */
  jwks?: Array<{ url: string; keys: Array<Record<string, unknown>> }>;
  /** Credentials the runner hands the client for this run (a peer with a token endpoint). */
  credentials?: ClientCredentials[];
  /** Work to finish after the client's run and before the ledger is read (a live peer's last read of its tasks). */
  settle?(): Promise<void>;
}

/**
 * Records on its event the call a request makes, as the endpoint in front of it would (the interface's
 * wire reads it): a gate that answers in the endpoint's place keeps the call as evidence all the same.
 */
export type RecordRequest = (ev: HttpEvent, request: Request) => Promise<void>;

export interface PeerParts {
  /** Runs on the card once its placeholders are filled: sign it, or change it as the peer's story needs. */
  finishCard?(card: Record<string, unknown>, ctx: PeerRunContext): Record<string, unknown>;
  /** Handlers on other origins of the same peer (another listener, another vendor's certificate). */
  origins?(ctx: PeerRunContext, card: Record<string, unknown>): RequestHandler[];
  /**
   * Handlers in front of an interface's endpoint: answer to stop a request, return nothing to let it pass. `record` keeps the call a gate answers.
   * `routes`: where the interface's endpoint listens (its wire's): POST at `rpcUrl` ('exact', absent), or any method at paths under it ('below').
   */
  gates?(ctx: PeerRunContext, rpcUrl: string, record?: RecordRequest, routes?: 'exact' | 'below'): RequestHandler[];
  /** The JWKS documents the parts publish, by URL (for the harness's own check of the signature). */
  jwks?(ctx: PeerRunContext): Array<{ url: string; keys: Array<Record<string, unknown>> }>;
}
