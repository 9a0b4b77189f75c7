/**
 * What a listener records of a connection and of a request as it arrives, the same for every
 * listener of the peer host (HTTP/1.1 in ./peer-host.ts, HTTP/2 gRPC in peers/wires/grpc-v1/host.ts, a binding's transport): a client
 * certificate's subject, a request's path with credentials in its query redacted, and its event
 * with the headers that matter (a credential by scheme and digest only).
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { ListenerKind } from '../core/scenario/runtime.js';
import type { HttpEvent, TlsEvent, Transcript } from '../core/transcript.js';
import { redactQuery } from '../core/body.js';

export { redactQuery };

/** A request as it arrived on a listener: an HTTP/1.1 IncomingMessage, or an HTTP/2 stream's headers and its session's socket. */
export interface ArrivedRequest {
  method?: string | undefined;
  headers: IncomingHttpHeaders;
  socket: object;
}

/** What a connection's client presented, read once per connection: its handshake is over, so it cannot change, and parsing it is a measurable share of a property run's CPU. */
const presented = new WeakMap<object, { presented: boolean; subject?: string }>();

export function certSubject(socket: TLSSocket): { presented: boolean; subject?: string } {
  let known = presented.get(socket);
  if (!known) {
    known = readCertSubject(socket);
    presented.set(socket, known);
  }
  // A copy for each event that records it.
  return { ...known };
}

function readCertSubject(socket: TLSSocket): { presented: boolean; subject?: string } {
  // Not `socket.authorized`: a resumed TLS 1.3 session can report authorized without a certificate.
  const peer = socket.getPeerCertificate?.();
  if (!peer || Object.keys(peer).length === 0 || !peer.raw) return { presented: false };
  const cn = peer.subject?.CN;
  return { presented: true, subject: (Array.isArray(cn) ? cn.join(',') : cn) ?? peer.subjectaltname };
}

/** Records a request on its run's transcript as it arrives: the headers that matter (a credential by scheme and digest only), before its body is read. */
export function recordRequest(transcript: Transcript, kind: ListenerKind, origin: string, req: ArrivedRequest, path: string): HttpEvent {
  const header = (n: string) => {
    const v = req.headers[n];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const auth = header('authorization');
  let versionQuery: string | undefined;
  try {
    versionQuery = new URL(path, origin).searchParams.get('A2A-Version') ?? undefined;
  } catch {
    versionQuery = undefined;
  }
  return transcript.record<Omit<HttpEvent, 'seq' | 't'>>({
    kind: 'http',
    listener: kind,
    origin,
    method: req.method ?? 'GET',
    path,
    headers: {
      ...(header('a2a-version') !== undefined ? { a2aVersion: header('a2a-version') } : {}),
      ...(header('content-type') ? { contentType: header('content-type') } : {}),
      ...(header('accept') ? { accept: header('accept') } : {}),
      // The scheme and a digest, never the credential itself.
      ...(auth
        ? {
            authorization: true,
            authScheme: auth.trim().split(/\s+/)[0]!.slice(0, 40),
            authDigest: createHash('sha256').update(auth).digest('hex').slice(0, 12),
          }
        : {}),
      // v0.3 names the same opt-in X-A2A-Extensions: recorded as the one header it is.
      ...((header('a2a-extensions') ?? header('x-a2a-extensions'))
        ? { a2aExtensions: (header('a2a-extensions') ?? header('x-a2a-extensions'))!.slice(0, 2000) }
        : {}),
      ...(header('if-none-match') ? { ifNoneMatch: header('if-none-match')!.slice(0, 200) } : {}),
    },
    ...(versionQuery !== undefined ? { versionQuery: versionQuery.slice(0, 40) } : {}),
    clientCert: certSubject(req.socket as TLSSocket),
  });
}

/**
 * The `tls` event of a connection whose handshake is on record in another run (`reused`: kept alive
 * across runs by the client) or in none (made while no run was active), recorded by the run that
 * uses it, once, before its first request there.
 */
export function connectionEvent(kind: ListenerKind, socket: TLSSocket, reused: boolean): Omit<TlsEvent, 'seq' | 't'> {
  const cert = certSubject(socket);
  return {
    kind: 'tls',
    listener: kind,
    ok: true,
    ...(reused ? { reused: true } : {}),
    clientCert: cert.presented,
    ...(cert.subject ? { clientCertSubject: cert.subject } : {}),
  };
}
