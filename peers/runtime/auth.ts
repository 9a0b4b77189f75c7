/**
 * The auth parts of a peer (docs/duties.md §9: the card's security schemes can describe where
 * the card is served, not where tasks are):
 *
 * - a real OAuth 2.0 token endpoint on the RPC listener (or the one `tokenListener` names: an
 *   identity provider on an origin of its own), over TLS, for the client credentials grant
 *   (RFC 6749 §4.4): the client authenticates with the id and secret the run handed it (HTTP Basic,
 *   §2.3.1, or in the body), and gets a Bearer token (RFC 6750) that lives `tokenTtlSeconds`;
 * - a gate in front of the RPC endpoint that lets a request through only with a live token when the
 *   runtime's task scheme is `Bearer`, and answers 401 with a `WWW-Authenticate` challenge otherwise
 *   (RFC 9110 §11.6.1). With the task scheme `DPoP` (a scheme the card never lists) every request gets
 *   `WWW-Authenticate: DPoP …`, whatever it carries: the card describes the discovery surface, not
 *   the task surface.
 *
 * The transcript keeps the scheme and a digest of each Authorization value (the listener's), never a
 * secret or a token. The token endpoint notes the digest a client's `Bearer <token>` will have, so
 * evidence can say which issued token a request presented.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { http, HttpResponse, type RequestHandler } from 'msw';
import type { PeerRuntime } from '../../harness/core/scenario/runtime.js';
import type { ClientCredentials } from '../../harness/core/protocol/types.js';
import type { PeerParts, PeerRunContext, RecordRequest } from './context.js';
import { atOrBelow, eventOf, exactly } from './event.js';

/** Where the token endpoint lives under a run's base URL on the RPC listener. */
export const TOKEN_PATH = '/oauth/token';
/** The scope the card's scheme lists and the endpoint grants. */
export const TASK_SCOPE = 'a2a:tasks';
const REALM = 'contoso';

const digestOf = (authorization: string) => createHash('sha256').update(authorization).digest('hex').slice(0, 12);

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The client's id and secret from HTTP Basic (RFC 6749 §2.3.1: form-urlencoded, then base64) or from the body. */
function clientOf(request: Request, form: URLSearchParams): { id: string; secret: string; via: 'basic' | 'body' } | undefined {
  const auth = request.headers.get('authorization') ?? '';
  const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth);
  if (m) {
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    try {
      return {
        id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
        secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
        via: 'basic',
      };
    } catch {
      return undefined;
    }
  }
  const id = form.get('client_id');
  const secret = form.get('client_secret');
  return id !== null && secret !== null ? { id, secret, via: 'body' } : undefined;
}

const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  HttpResponse.json({ error, error_description: description }, { status, headers: { 'cache-control': 'no-store', ...headers } });

type Auth = NonNullable<PeerRuntime['auth']>;

/** The OAuth 2.0 token endpoint (RFC 6749 §4.4): a Bearer token for the run's client, noted with the digest its Authorization will have. */
function tokenEndpoint(auth: Auth, ctx: PeerRunContext, credentials: ClientCredentials, issued: Map<string, number>): RequestHandler {
  return http.post(exactly(credentials.tokenUrl), async ({ request }) => {
    const ev = eventOf(ctx, request);
    const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const form = new URLSearchParams(type === 'application/x-www-form-urlencoded' ? (await request.text()).slice(0, 8192) : '');
    const note = (text: string) => {
      if (ev) ev.note = text;
    };
    if (type !== 'application/x-www-form-urlencoded') {
      note('token request refused: not application/x-www-form-urlencoded (RFC 6749 §4.4.2)');
      return oauthError(400, 'invalid_request', 'the token request must be application/x-www-form-urlencoded');
    }
    const client = clientOf(request, form);
    if (!client || !same(client.id, credentials.clientId) || !same(client.secret, credentials.clientSecret)) {
      note('token request refused: unknown client or wrong secret (invalid_client)');
      // RFC 6749 §5.2: a client that tried the Authorization header gets 401 with a challenge; otherwise 400.
      const triedHeader = /^basic\b/i.test(request.headers.get('authorization') ?? '');
      return triedHeader
        ? oauthError(401, 'invalid_client', 'client authentication failed', { 'www-authenticate': `Basic realm="${REALM}"` })
        : oauthError(400, 'invalid_client', 'client authentication failed');
    }
    if (form.get('grant_type') !== 'client_credentials') {
      note(`token request refused: grant_type ${JSON.stringify((form.get('grant_type') ?? '').slice(0, 40))} (unsupported_grant_type)`);
      return oauthError(400, 'unsupported_grant_type', 'this endpoint issues tokens for the client_credentials grant only');
    }
    const scope = form.get('scope');
    if (scope?.split(' ').some((s) => s !== '' && s !== TASK_SCOPE)) {
      note(`token request refused: scope ${JSON.stringify(scope.slice(0, 80))} (invalid_scope)`);
      return oauthError(400, 'invalid_scope', `this client may ask for ${TASK_SCOPE} only`);
    }
    const token = `cto_${randomBytes(24).toString('base64url')}`;
    issued.set(token, Date.now() + auth.tokenTtlSeconds * 1000);
    note(
      `issued a Bearer token to ${credentials.clientId} (client authentication: ${client.via === 'basic' ? 'HTTP Basic' : 'in the body'}), expires in ${auth.tokenTtlSeconds} s; presented, its Authorization digest is ${digestOf(`Bearer ${token}`)}`,
    );
    return HttpResponse.json(
      { access_token: token, token_type: 'Bearer', expires_in: auth.tokenTtlSeconds, scope: TASK_SCOPE },
      { headers: { 'cache-control': 'no-store', pragma: 'no-cache' } },
    );
  });
}

/** The gate in front of an interface (wherever its endpoint listens: `routes`): a live token of this endpoint passes; anything else gets 401 with a challenge. */
function challenge(
  auth: Auth,
  ctx: PeerRunContext,
  issued: Map<string, number>,
  rpcUrl: string,
  record: RecordRequest | undefined,
  routes: 'exact' | 'below' = 'exact',
): RequestHandler {
  const gate = async ({ request }: { request: Request }) => {
    const ev = eventOf(ctx, request);
    // The call the gate answers is recorded as the endpoint's wire would: its method and params are evidence.
    if (ev && record) await record(ev, request);
    const unauthorized = (wwwAuthenticate: string, why: string) => {
      if (ev) ev.note = why;
      return HttpResponse.json({ error: 'unauthorized' }, { status: 401, headers: { 'www-authenticate': wwwAuthenticate } });
    };
    const given = request.headers.get('authorization') ?? '';
    if (auth.taskScheme === 'DPoP')
      return unauthorized(`DPoP realm="${REALM}", algs="ES256"`, 'the task endpoint takes DPoP-bound tokens only (RFC 9449), a scheme the card does not list');
    const m = /^bearer\s+(\S+)\s*$/i.exec(given);
    if (!m) return unauthorized(`Bearer realm="${REALM}", scope="${TASK_SCOPE}"`, given ? 'credentials of another scheme' : 'no credentials');
    const expires = issued.get(m[1]!);
    if (expires === undefined)
      return unauthorized(`Bearer realm="${REALM}", error="invalid_token", error_description="unknown token"`, 'a token this endpoint never issued');
    if (Date.now() >= expires)
      return unauthorized(`Bearer realm="${REALM}", error="invalid_token", error_description="the access token expired"`, 'an expired token');
    return undefined; // a live token: on to the interface's endpoint
  };
  return routes === 'below' ? http.all(atOrBelow(rpcUrl), gate) : http.post(exactly(rpcUrl), gate);
}

/** The parts, and the credentials the runner hands the client for this run. */
export function authParts(auth: Auth, ctx: PeerRunContext, tokenUrl: string): { parts: PeerParts; credentials: ClientCredentials } {
  const credentials: ClientCredentials = {
    kind: 'oauth2-client-credentials',
    tokenUrl,
    clientId: `conformance-client-${ctx.key}`,
    clientSecret: randomBytes(18).toString('base64url'),
  };
  /** Issued tokens and when each expires (ms since the epoch). */
  const issued = new Map<string, number>();
  const endpoint = tokenEndpoint(auth, ctx, credentials, issued);
  return {
    credentials,
    parts: {
      origins: () => [endpoint],
      gates: (_c, rpcUrl, record, routes): RequestHandler[] => [challenge(auth, ctx, issued, rpcUrl, record, routes)],
    },
  };
}
