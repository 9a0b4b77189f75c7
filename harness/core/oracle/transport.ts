/**
 * Transport rules: the server's identity (A2A §7.2 with RFC 9110 §4.3.4) and the protocol version
 * every request names (A2A §3.6).
 */
import { BAD_CERT_LISTENERS, type ListenerKind, type PeerRuntime } from '../scenario.js';
import { upFrontMissFails, weakest, type Level } from '../sources.js';
import type { HttpEvent } from '../transcript.js';
import { absentEvidence, verdict, wireEvidence, type EvidenceRef } from '../verdict.js';
import { dialectOfVersion, readCard } from '../vocabulary/card-view.js';
import { https, rpcCalls, situationOf, tlsEvents, wireTrail } from './evidence.js';
import { creditRejection, mustComplete } from './negotiation.js';
import { binds, harm, informational, met, notBinding, signal, timeout, upFrontMiss, type Binding, type Rule, type Situation } from './rule.js';

/** The listener with a certificate a client must refuse, where the peer serves its card or its RPC on one. */
function badListener(rt: Pick<PeerRuntime, 'cardListener' | 'rpcListener'>): ListenerKind | undefined {
  return BAD_CERT_LISTENERS.has(rt.cardListener) ? rt.cardListener : BAD_CERT_LISTENERS.has(rt.rpcListener) ? rt.rpcListener : undefined;
}

const WHAT: Record<string, string> = {
  'untrusted-ca': 'from a CA the client does not trust',
  'wrong-host': 'issued for another host name',
  expired: 'expired',
};

export const SPEC_TLS_VERIFY: Rule = {
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

/** `Major.Minor` of a version string, and whether it carried more (a patch number). */
function versionOf(v: string): { majorMinor?: string; patch: boolean } {
  const m = /^(\d+)\.(\d+)(\.\d+)?$/.exec(v.trim());
  return m ? { majorMinor: `${m[1]}.${m[2]}`, patch: !!m[3] } : { patch: false };
}

export const SPEC_A2A_VERSION: Rule = {
  id: 'SPEC-A2A-VERSION',
  title: 'Every A2A request names, in A2A-Version, a version the interface declares',
  family: 'transport',
  scope: 'always',
  sources: [
    {
      doc: 'A2A v1.0.1',
      section: '3.6.1',
      quote:
        'Clients MUST send the `A2A-Version` header with each request to maintain compatibility after an agent upgrades to a new version of the protocol (except for 0.3 Clients - 0.3 will be assumed for empty header).',
      level: 'MUST',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.6',
      quote:
        'Patch version numbers SHOULD NOT be used in requests, responses and Agent Cards, and MUST not be considered when clients and servers negotiate protocol versions.',
      level: 'SHOULD',
    },
  ],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.6.1', quote: 'Clients MAY provide the `A2A-Version` as a request parameter instead of a header.' },
    { doc: 'A2A v1.0.1', section: '3.6.2', quote: 'Agents MUST interpret empty value as 0.3 version.' },
    { doc: 'A2A v1.0.1', section: '3.6.2', quote: 'If the version is not supported by the interface, agents MUST return a VersionNotSupportedError.' },
  ],
  grades: [
    {
      when: 'a JSON-RPC request without A2A-Version (header or query parameter) to an interface that is not 0.3, or naming a Major.Minor the interface it went to does not declare',
      verdict: 'FAIL (MUST; a v1.0 peer answers -32009, so the break is on the wire)',
    },
    { when: 'a request to a 0.3 interface without A2A-Version', verdict: 'PASS (§3.6.1: "0.3 will be assumed for empty header")' },
    { when: 'the right Major.Minor with a patch number (`1.0.1`)', verdict: 'NON_STRICT (SHOULD NOT, §3.6; the peer accepts it)' },
    { when: 'the card GET', verdict: 'not graded: discovery is not an A2A operation (recorded in the transcript all the same)' },
  ],
  notBinding: ['no JSON-RPC request reached a peer: INFORMATIONAL'],
  applies() {
    return binds('every A2A request carries A2A-Version', ['proceed', 'downgrade', 'reject', 'escalate']);
  },
  grade(_b, x) {
    const calls = rpcCalls(x);
    if (calls.length === 0) return informational('no A2A request reached a peer');
    // Each call is held to the interface it went to (by URL); a v0.3 card's interfaces are 0.3 (CardView reads both dialects).
    const interfaces = readCard(x.card).interfaces.map((i) => ({ url: i.url, v: versionOf(i.protocolVersion).majorMinor }));
    const all = new Set(interfaces.map((i) => i.v).filter((v): v is string => !!v));
    const declaredFor = (e: HttpEvent) => {
      const at = `${e.origin}${e.path.split('?')[0]}`;
      const here = interfaces.filter((i) => i.url === at && i.v).map((i) => i.v!);
      return here.length ? new Set(here) : all;
    };
    const misses: Array<{ level: Level; ev: EvidenceRef }> = [];
    let empty = 0;
    for (const e of calls) {
      const sent = e.headers.a2aVersion ?? e.versionQuery;
      const how = e.headers.a2aVersion !== undefined ? 'header' : e.versionQuery !== undefined ? 'query parameter' : '';
      // §3.6.1: "except for 0.3 Clients - 0.3 will be assumed for empty header" (a wrong method name is not a version question).
      if ((sent === undefined || sent.trim() === '') && declaredFor(e).has('0.3')) {
        empty++;
        continue;
      }
      if (sent === undefined || sent.trim() === '') {
        misses.push({
          level: 'MUST',
          ev: wireEvidence(e.seq, `${e.rpc?.method} without A2A-Version (read as 0.3, §3.6.2)${e.rpcError ? ` → ${e.rpcError.code}` : ''}`),
        });
        continue;
      }
      const v = versionOf(sent);
      if (!v.majorMinor || !declaredFor(e).has(v.majorMinor))
        misses.push({
          level: 'MUST',
          ev: wireEvidence(
            e.seq,
            `${e.rpc?.method} with A2A-Version ${JSON.stringify(sent)} (${how}); the interface declares ${[...declaredFor(e)].join(', ') || 'none'}${e.rpcError ? ` → ${e.rpcError.code}` : ''}`,
          ),
        });
      else if (v.patch)
        misses.push({ level: 'SHOULD', ev: wireEvidence(e.seq, `${e.rpc?.method} with A2A-Version ${JSON.stringify(sent)}: a patch number (§3.6)`) });
    }
    if (misses.length === 0) {
      const named = calls.length - empty;
      const what = [named ? `${named} named a version the interface declares` : '', empty ? `${empty} to a 0.3 interface sent none (read as 0.3, §3.6.2)` : '']
        .filter(Boolean)
        .join('; ');
      return met(`of ${calls.length} A2A request(s), ${what}`, [
        wireEvidence(
          calls[0]!.seq,
          `${calls[0]!.rpc?.wireMethod ?? calls[0]!.rpc?.method} A2A-Version ${calls[0]!.headers.a2aVersion ?? calls[0]!.versionQuery ?? 'none'}`,
        ),
      ]);
    }
    const level = weakest(misses.some((m) => m.level === 'MUST') ? ['MUST'] : misses.map((m) => m.level)) ?? 'MUST';
    const worst = misses.filter((m) => m.level === level);
    return verdict(
      upFrontMissFails(level) ? 'FAIL' : 'NON_STRICT',
      `${worst.length} of ${calls.length} A2A request(s) ${level === 'MUST' ? 'without an A2A-Version the interface declares (§3.6.1 MUST)' : 'named a patch version (§3.6 SHOULD NOT)'}`,
      worst.slice(0, 5).map((m) => m.ev),
      { basis: 'duty', level },
    );
  },
};

// --- SPEC-INTERFACE-SELECTION -----------------------------------------------------------------

/** The JSON-RPC interfaces of a card, in its order, with the dialect each speaks. */
const jsonRpcInterfaces = (s: Situation) =>
  s.card.interfaces.filter((i) => i.protocolBinding === 'JSONRPC').map((i) => ({ ...i, dialect: dialectOfVersion(i.protocolVersion) }));

const urlOf = (e: HttpEvent) => `${e.origin}${e.path.split('?')[0]}`;

export const SPEC_INTERFACE_SELECTION: Rule = {
  id: 'SPEC-INTERFACE-SELECTION',
  title: 'The client uses the first interface of the card in a dialect it speaks, and rejects a card that offers none before any task',
  family: 'transport',
  scope: 'own',
  sources: [
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Parse supportedInterfaces if present, and select the first supported transport', level: 'MUST' },
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Prefer earlier entries in the ordered list when multiple options are supported', level: 'MUST' },
    {
      doc: 'A2A v1.0.1',
      section: '3.6',
      quote:
        'Patch version numbers SHOULD NOT be used in requests, responses and Agent Cards, and MUST not be considered when clients and servers negotiate protocol versions.',
      level: 'MUST',
    },
    {
      doc: 'A2A v0.3.0',
      section: '5.6.3',
      quote: 'Parse transport declarations: Extract available transports from both the main url/preferredTransport combination and all additionalInterfaces.',
      level: 'MUST',
    },
    {
      doc: 'A2A v0.3.0',
      section: '5.6.3',
      quote: 'URL-transport matching: Clients MUST use the correct URL for the selected transport protocol as declared in the AgentCard.',
      level: 'MUST',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.6.1',
      quote:
        'Clients MUST send the `A2A-Version` header with each request to maintain compatibility after an agent upgrades to a new version of the protocol (except for 0.3 Clients - 0.3 will be assumed for empty header).',
    },
    { doc: 'A2A v1.0.1', section: '3.6.2', quote: 'Agents MUST interpret empty value as 0.3 version.' },
    { doc: 'A2A v0.3.0', section: '5.6.3', quote: 'Prefer declared preference: If the client supports the preferredTransport, it SHOULD use the main url.' },
  ],
  grades: [
    {
      when: "a client that speaks v1.0 is graded by v1.0.1 §8.3.2; one that speaks only v0.3 by v0.3.0 §5.6.3 (url, preferredTransport, additionalInterfaces), which gives it no way to read a card in v1.0's format",
      verdict: 'the source that grades what follows',
    },
    {
      when: 'no interface in a dialect the client speaks (a v1.0-only card to a v0.3-only client, the reverse, a peer upgraded in place): any A2A call',
      verdict: 'FAIL (MUST: the wire shows the call the interface cannot take: -32009 or -32601)',
    },
    { when: 'the same: no call, after the card was read', verdict: 'PASS' },
    {
      when: "a card in v1.0's format that lists a 0.3 interface, to a client that speaks only v0.3: declined after reading it (a card it cannot read), or the 0.3 interface used and the task completed",
      verdict: 'PASS',
    },
    { when: 'the same: a call to a URL the card does not declare at 0.3', verdict: 'FAIL (MUST, v0.3.0 §5.6.3: the URL of the selected transport)' },
    {
      when: "an interface it speaks exists (the dialects of the run's profile): an A2A call goes elsewhere than the first such interface in the card's order",
      verdict: 'FAIL (MUST, §8.3.2)',
    },
    {
      when: 'the same, on the right interface: no task completed',
      verdict: 'FAIL (over-rejection; a card whose version carries a patch number, `1.0.1`, is 1.0)',
    },
  ],
  notBinding: ["a card with no JSON-RPC interface at all (not this rule's question)"],
  applies(s) {
    const ifaces = jsonRpcInterfaces(s);
    if (ifaces.length === 0) return notBinding('the card offers no JSON-RPC interface');
    const spoken = s.profile.dialects ?? ['a2a-v1'];
    const first = ifaces.find((i) => i.dialect && spoken.includes(i.dialect));
    const offered = ifaces.map((i) => `${i.protocolVersion}${i.dialect ? '' : ' (unknown)'}`).join(', ');
    const pointer = s.card.dialect === 'a2a-v0.3' ? '/protocolVersion' : '/supportedInterfaces';
    const by = spoken.includes('a2a-v1') ? 'v1.0.1 §8.3.2' : 'v0.3.0 §5.6.3 (the client speaks only v0.3)';
    if (!first)
      return binds(
        `the card offers JSON-RPC at ${offered}; the client speaks ${spoken.join(', ')}: no interface it can use (${by})`,
        ['reject'],
        [signal(s, pointer, 'MUST', `protocol versions ${offered}`)],
      );
    const index = ifaces.indexOf(first);
    // v0.3.0 §5.6.3 reads a card's url, preferredTransport and additionalInterfaces: a card in v1.0's format has none of them,
    // so a client that speaks only v0.3 may decline it as unreadable; if it proceeds, only on the 0.3 interface.
    if (!spoken.includes('a2a-v1') && s.card.dialect !== 'a2a-v0.3')
      return binds(
        `the card is in v1.0's format (supportedInterfaces, no url or preferredTransport), to a client that speaks only v0.3, graded by v0.3.0 §5.6.3 (v1.0.1 §8.3.2 binds v1.0 clients): declining a card it cannot read is not over-rejection; proceeding is right only on #${index} of the card's JSON-RPC interfaces, at ${first.protocolVersion}`,
        ['proceed', 'reject'],
        [signal(s, pointer, 'MUST', `protocol versions ${offered}`)],
      );
    return binds(`the first interface in a dialect the client speaks is #${index} of the card's JSON-RPC interfaces, at ${first.protocolVersion} (${by})`, [
      'proceed',
    ]);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const s = situationOf(x);
    const calls = rpcCalls(x);
    const spoken = s.profile.dialects ?? ['a2a-v1'];
    if (b.acceptable.includes('reject') && b.acceptable.includes('proceed')) {
      if (calls.length === 0)
        return creditRejection(x, "declined before any call a card in v1.0's format, which v0.3.0 §5.6.3 gives a client that speaks only v0.3 no way to read");
      const at = jsonRpcInterfaces(s).find((i) => i.dialect && spoken.includes(i.dialect))!;
      const wrong = calls.find((e) => urlOf(e) !== at.url);
      if (wrong)
        return upFrontMiss(
          this,
          b as Binding,
          `called ${urlOf(wrong)} at #${wrong.seq}, which the card does not declare at ${at.protocolVersion} (v0.3.0 §5.6.3: the URL of the selected transport)`,
          [wireEvidence(wrong.seq, `${wrong.rpc!.wireMethod ?? wrong.rpc!.method} → ${wrong.rpcError ? wrong.rpcError.code : wrong.status}`)],
        );
      return mustComplete(x, b.reason);
    }
    if (b.acceptable.includes('reject')) {
      if (calls.length > 0)
        return upFrontMiss(
          this,
          b as Binding,
          `called an interface in a dialect the client does not speak (${calls.length} call(s))`,
          calls
            .slice(0, 3)
            .map((e) => wireEvidence(e.seq, `${e.rpc!.wireMethod ?? e.rpc!.method} to ${e.path.split('?')[0]} → ${e.rpcError ? e.rpcError.code : e.status}`)),
        );
      return creditRejection(x, 'declined before any call: no interface in a dialect the client speaks');
    }
    const first = jsonRpcInterfaces(s).find((i) => i.dialect && (s.profile.dialects ?? ['a2a-v1']).includes(i.dialect))!;
    const wrong = calls.find((e) => urlOf(e) !== first.url);
    if (wrong)
      return upFrontMiss(
        this,
        b as Binding,
        `called ${urlOf(wrong)} at #${wrong.seq}, not the first interface the client speaks (${first.url}, ${first.protocolVersion})`,
        [wireEvidence(wrong.seq, `${wrong.rpc!.wireMethod ?? wrong.rpc!.method} → ${wrong.rpcError ? wrong.rpcError.code : wrong.status}`)],
      );
    const done = mustComplete(x, b.reason);
    return done.kind === 'PASS' && calls[0]
      ? {
          ...done,
          evidence: [
            wireEvidence(
              calls[0].seq,
              `${calls[0].rpc!.wireMethod ?? calls[0].rpc!.method} to ${first.url} (${first.protocolVersion}), A2A-Version ${calls[0].headers.a2aVersion ?? calls[0].versionQuery ?? 'none (0.3)'}`,
            ),
            ...done.evidence,
          ],
        }
      : done;
  },
};

export const TRANSPORT_RULES: Rule[] = [SPEC_TLS_VERIFY, SPEC_A2A_VERSION, SPEC_INTERFACE_SELECTION];
