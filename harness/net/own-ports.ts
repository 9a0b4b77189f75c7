/**
 * The ports of the harness's own listeners in this process (every peer host's HTTPS and HTTP/2
 * listeners, whatever lane they serve): a push is the client's receiver's to take, so a push URL on
 * one of these is refused before any connection (a client that names the peer's own endpoint as its
 * webhook would otherwise be credited with the harness's answer).
 */
const PORTS = new Set<number>();

export const ownPorts = {
  add(port: number): void {
    PORTS.add(port);
  },
  delete(port: number): void {
    PORTS.delete(port);
  },
  has(port: number): boolean {
    return PORTS.has(port);
  },
};
