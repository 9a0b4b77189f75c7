/**
 * CREDENTIAL-SCOPE (transport): Credentials go only where a scheme of the card accepts them.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * Where the run provisions client credentials (runtime.auth), every request a peer's listener takes
 * is on record with the scheme and a digest of its Authorization. The client secret (HTTP Basic, RFC
 * 6749 §2.3.1) belongs to the token endpoint the card names; the token it gets there belongs to the
 * card's interfaces (and the endpoint that issued it). A credential on any other origin — the CDN
 * that serves the card, another vendor's host — went to a party the card never named: harm, whatever
 * the form. Read from the wire alone; the same credentials on every binding are read the same way.
 */
import type { Source } from '../../../sources.js';
import type { HttpEvent } from '../../../transcript.js';
import { verdict, wireEvidence } from '../../../verdict.js';
import { httpAuthSchemes, readCard } from '../../../protocol/card-view.js';
import { https, type GradeInput } from '../../evidence.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';

const BEARER_LEAK: Source = {
  doc: 'RFC 6750',
  section: '5.3',
  quote:
    'Client implementations MUST ensure that bearer tokens are not leaked to unintended parties, as they will be able to use them to gain access to protected resources.',
  level: 'security',
  role: 'harm',
};

const SECRETS: Source = {
  doc: 'A2A v1.0.1',
  section: '13.4',
  quote: 'API keys, tokens, and other credentials MUST be treated as secrets',
  level: 'security',
  role: 'harm',
};

/** The token endpoint URLs a card names (any `tokenUrl` under its security schemes, in either dialect). */
function tokenUrls(card: unknown): URL[] {
  const out: URL[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    for (const [k, w] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'tokenUrl' && typeof w === 'string') {
        const u = urlOf(w);
        if (u) out.push(u);
      } else walk(w, depth + 1);
    }
  };
  walk((card as { securitySchemes?: unknown } | undefined)?.securitySchemes, 0);
  return out;
}

function urlOf(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    return undefined;
  }
}

/**
 * Where each kind of credential may go: HTTP Basic (the client secret) to the token endpoints, and to
 * the card's interfaces where the card lists an HTTP Basic scheme; any other Authorization to the
 * interfaces and the token endpoints' origins.
 */
function accepting(x: GradeInput): { secret: URL[]; basicAtInterfaces: boolean; interfaces: Set<string>; token: Set<string> } {
  const secret = tokenUrls(x.card);
  const view = readCard(x.card);
  const interfaces = view.interfaces.flatMap((i) => {
    const u = urlOf(i.url);
    return u ? [u.origin] : [];
  });
  const basicAtInterfaces = Object.values(httpAuthSchemes(view)).some((s) => s.toLowerCase() === 'basic');
  return { secret, basicAtInterfaces, interfaces: new Set(interfaces), token: new Set([...interfaces, ...secret.map((u) => u.origin)]) };
}

/** Why a credentialed request went where it should not, or undefined where it was accepted there. */
function misplaced(e: HttpEvent, a: ReturnType<typeof accepting>): string | undefined {
  const scheme = e.headers.authScheme ?? '';
  const path = e.path.split('?')[0]!;
  if (/^basic$/i.test(scheme))
    return a.secret.some((u) => u.origin === e.origin && u.pathname === path) || (a.basicAtInterfaces && a.interfaces.has(e.origin))
      ? undefined
      : `HTTP Basic credentials (the client secret) sent to ${e.origin}${path}, which is not the token endpoint the card names`;
  return a.token.has(e.origin)
    ? undefined
    : `${scheme || 'an Authorization'} credential sent to ${e.origin}${path}, an origin no interface or token endpoint of the card is on`;
}

export const CREDENTIAL_SCOPE: RuleOf<'CREDENTIAL-SCOPE'> = {
  id: 'CREDENTIAL-SCOPE',
  title: 'Credentials go only where a scheme of the card accepts them',
  family: 'transport',
  scope: 'always',
  sources: [BEARER_LEAK, SECRETS],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '7.3',
      quote: 'Credential Transmission: The client includes these credentials in protocol-appropriate headers or metadata for every A2A request.',
    },
  ],
  grades: [
    {
      when: 'an Authorization header on a request to an origin that is neither an interface of the card nor its token endpoint (the CDN serving the card, another vendor’s host), or HTTP Basic (the client secret) anywhere but the token endpoint (or an interface whose card lists HTTP Basic)',
      verdict: 'FAIL (harm: a credential given to a party the card never named)',
    },
    { when: 'every credential on record went to the token endpoint (the secret) or to the card’s interfaces (the token)', verdict: 'PASS' },
    { when: 'the client presented no credential at all', verdict: 'INFORMATIONAL' },
  ],
  motivatedBy: ['google/agents-cli#46'],
  notBinding: ['the run provisions no credentials (a peer without auth)'],
  applies(s) {
    const auth = s.truth.runtime.auth;
    if (!auth) return notBinding('the run provisions no credentials');
    const where = auth.tokenListener && auth.tokenListener !== s.truth.runtime.rpcListener ? 'on an origin of its own' : 'beside the RPC';
    return binds(
      `the run provisions client credentials for the card's token endpoint (${where}): the secret goes only there, the token only to the card's interfaces`,
      ['proceed', 'downgrade', 'reject', 'escalate'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const sent = https(x).filter((e) => e.headers.authorization);
    if (sent.length === 0) return informational('the client presented no credential on any request');
    const a = accepting(x);
    const leaks = sent.flatMap((e) => {
      const why = misplaced(e, a);
      return why ? [{ e, why }] : [];
    });
    if (leaks.length > 0)
      return verdict(
        'FAIL',
        `${leaks[0]!.why} (#${leaks[0]!.e.seq}${leaks.length > 1 ? `, and ${leaks.length - 1} more` : ''}): a credential given to a party the card never named`,
        leaks.slice(0, 5).map(({ e, why }) => wireEvidence(e.seq, `${e.method} ${e.path.split('?')[0]} on ${e.listener}: ${why}`)),
        { basis: 'harm' },
      );
    const secret = sent.filter((e) => /^basic$/i.test(e.headers.authScheme ?? ''));
    const origins = [...new Set(sent.filter((e) => !secret.includes(e)).map((e) => e.origin))];
    return met(
      `${sent.length} request(s) carried credentials, each where the card accepts it: ${secret.length ? `the secret to the token endpoint (#${secret.map((e) => e.seq).join(', #')})` : 'no secret'}, ${origins.length ? `the token to ${origins.join(', ')}` : 'no token'}`,
      sent.slice(0, 3).map((e) => wireEvidence(e.seq, `${e.headers.authScheme} on ${e.method} ${e.path.split('?')[0]} (${e.listener})`)),
    );
  },
};
