/**
 * The ports of the harness's own listeners in this process (every peer host's HTTPS and HTTP/2
 * listeners, whatever lane they serve): a push is the client's receiver's to take, so a push URL on
 * one of these is refused before any connection (a client that names the peer's own endpoint as its
 * webhook would otherwise be credited with the harness's answer).
 *
 * A port counts only while its listener listens: a closed listener's port is free for the system to
 * hand a client's receiver at once, though the listener's `close` event waits for its last connection.
 */
import type { Server } from 'node:net';

const PORTS = new Map<number, Server>();

export const ownPorts = {
  add(port: number, server: Server): void {
    PORTS.set(port, server);
    server.once('close', () => {
      if (PORTS.get(port) === server) PORTS.delete(port);
    });
  },
  has(port: number): boolean {
    return PORTS.get(port)?.listening === true;
  },
};
