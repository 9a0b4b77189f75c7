/**
 * A binding's own transport, beside the peer host's HTTP/1.1 listeners: what a binding whose requests
 * cannot come through `https` (gRPC over HTTP/2; a test's line-based toy) brings in its folder
 * (peers/wires/<binding>/) and registers with its wire (peers/wires/index.ts). The peer host starts
 * each registered transport with its own listeners and lends it the same hooks its own listeners use:
 * the active run, the TLS watch that counts connections and records handshakes, and the filter of
 * connections that are not the lane's client's. What a transport records of a request is
 * ./request-record.ts's, so the oracle reads one shape of evidence from every listener.
 */
import type { Server as TlsServer, TLSSocket } from 'node:tls';
import type { RequestHandler } from 'msw';
import type { ListenerKind } from '../core/scenario/runtime.js';
import type { Transcript } from '../core/transcript.js';
import type { Pki } from '../pki/index.js';

/** What a call needs of a run: its key, its transcript and its peers' handlers. */
export interface HostRun {
  key: string;
  transcript: Transcript;
  handlers: RequestHandler[];
}

/** What the peer host lends a transport's listeners. */
export interface TransportHooks<R extends HostRun> {
  /** The run active on the host now (a transport whose paths cannot name a run attributes a call to it). */
  active(): R | undefined;
  /** Counts a listener's connections and records its handshakes (failed ones too), as the host's own listeners'. */
  watchTls(kind: ListenerKind, server: TlsServer): void;
  /** Whether a connection came from another process than the lane's client. */
  isForeign(socket: TLSSocket): boolean;
}

/** A transport's listeners, once started. */
export interface TransportListeners<R extends HostRun> {
  /** The origin (`<scheme>://127.0.0.1:<port>`) of its listener of a TLS kind; undefined for a kind it has none of. */
  origin(kind: ListenerKind): string | undefined;
  /** Ends what a run still has open (its streams), as the host closes its own when the run ends. */
  endRun(run: R): void;
  /** Closes its listeners, every connection destroyed. */
  close(): Promise<void>;
}

/**
 * A binding's transport: its name (unique among the registered) and how to start its listeners on the
 * run's PKI. A start that fails closes whatever listeners it did start before it throws: the peer host
 * closes only what a start returned.
 */
export interface Transport {
  readonly name: string;
  start<R extends HostRun>(pki: Pki, hooks: TransportHooks<R>): Promise<TransportListeners<R>>;
}
