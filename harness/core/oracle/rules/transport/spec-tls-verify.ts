/**
 * SPEC-TLS-VERIFY (transport): A peer certificate from an untrusted CA, for the wrong host, or expired is refused.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { BAD_CERT_LISTENERS, type ListenerKind, type PeerRuntime } from '../../../scenario/runtime.js';
import { absentEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { https, tlsEvents, wireTrail } from '../../evidence.js';
import { mustComplete } from '../../graders.js';
import { binds, harm, informational, met, timeout, type RuleOf } from '../../rule.js';

/** The listener with a certificate a client must refuse, where the peer serves its card or its RPC on one. */
function badListener(rt: Pick<PeerRuntime, 'cardListener' | 'rpcListener'>): ListenerKind | undefined {
  return BAD_CERT_LISTENERS.has(rt.cardListener) ? rt.cardListener : BAD_CERT_LISTENERS.has(rt.rpcListener) ? rt.rpcListener : undefined;
}

const WHAT: Record<string, string> = {
  'untrusted-ca': 'from a CA the client does not trust',
  'wrong-host': 'issued for another host name',
  expired: 'expired',
};

export const SPEC_TLS_VERIFY: RuleOf<'SPEC-TLS-VERIFY'> = {
  id: 'SPEC-TLS-VERIFY',
  title: 'A peer certificate from an untrusted CA, for the wrong host, or expired is refused',
  family: 'transport',
  scope: 'own',
  sources: [
    {
      doc: 'A2A v1.0.1',
      section: '7.2',
      quote:
        "A2A Clients SHOULD verify the A2A Server's identity by validating its TLS certificate against trusted certificate authorities (CAs) during the TLS handshake.",
      level: 'security',
    },
    {
      doc: 'RFC 9110',
      section: '4.3.4',
      quote:
        "To establish a secured connection to dereference a URI, a client MUST verify that the service's identity is an acceptable match for the URI's origin server.",
      level: 'security',
    },
  ],
  limits: [
    { doc: 'A2A v1.0.1', section: '7.1', quote: 'Production deployments MUST use encrypted communication (HTTPS for HTTP-based bindings, TLS for gRPC).' },
  ],
  grades: [
    { when: 'an HTTP request arrived over a connection whose certificate should have been refused', verdict: 'FAIL (harm)' },
    {
      when: 'the handshake failed at the listener, or completed and was followed by no request at all (a client that pins after the handshake)',
      verdict: 'PASS',
    },
    { when: 'no handshake with the bad listener at all', verdict: 'FAIL (nothing shows the client refused the certificate; TIMEOUT at the deadline)' },
    { when: 'the valid-certificate control not completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['a valid certificate (the control): must proceed and complete'],
  applies(s) {
    const rt = s.truth.runtime;
    const bad = badListener(rt);
    if (!bad) return binds('the peer certificate is valid for 127.0.0.1 and chains to the trusted CA', ['proceed', 'downgrade']);
    return binds(
      `the peer's certificate is ${WHAT[bad] ?? bad}`,
      ['reject'],
      [{ pointer: `(TLS certificate of the ${bad} listener)`, level: 'security', note: WHAT[bad] ?? bad }],
    );
  },
  grade(b, x) {
    const bad = badListener(x.scenario.peer.runtime);
    if (!b.binds || !bad) return b.binds ? mustComplete(x, b.reason) : informational(b.reason);
    const reqs = https(x).filter((e) => e.listener === bad);
    if (reqs.length > 0)
      return harm(
        `HTTP requests arrived over TLS on the ${bad} listener, whose certificate the client should have refused (${WHAT[bad] ?? bad})`,
        reqs.slice(0, 5).map((e) => wireEvidence(e.seq, `${e.method} ${e.path}`)),
      );
    const tls = tlsEvents(x).filter((e) => e.listener === bad);
    const refused = tls.filter((e) => !e.ok);
    if (refused.length > 0)
      return met(
        `the handshake with the ${bad} listener failed and no HTTP request reached it`,
        refused.map((e) => wireEvidence(e.seq, `handshake failed at the listener: ${e.error ?? 'closed'}`)),
      );
    const completed = tls.filter((e) => e.ok);
    if (completed.length > 0)
      return met(
        `the handshake with the ${bad} listener completed but no request followed (the client refused the certificate after the handshake)`,
        completed.map((e) => wireEvidence(e.seq, 'handshake completed; no request on it')),
      );
    if (x.outcome.kind === 'timeout') return timeout(`the client never tried the ${bad} peer before the deadline`);
    return verdict(
      'FAIL',
      `the client never attempted a handshake with the ${bad} peer, so nothing shows it refused the certificate`,
      [absentEvidence('wire', `no TLS handshake recorded at the ${bad} listener`), ...wireTrail(x)],
      { basis: 'no-credit' },
    );
  },
};
