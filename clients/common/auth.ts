/**
 * The clients' authentication to an agent (A2A §7.3): read the schemes the card lists, get a token
 * for an OAuth 2.0 client-credentials scheme with the credentials provisioned for the run (the
 * well-kept `oauth4webapi` does the grant: RFC 6749 §4.4), present it as a Bearer token (RFC 6750)
 * on every A2A request, and tell from a 401's `WWW-Authenticate` whether a new token can meet it.
 * Written from the RFCs and the proto, apart from the harness's peers and oracle.
 */
import * as oauth from 'oauth4webapi';
import type { ClientCredentials } from '../../harness/core/protocol/types.js';
import { cardDialect, V03_SCHEME_KIND } from '../../harness/core/protocol/card-view.js';

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** A card's OAuth 2.0 client-credentials scheme this client holds credentials for. */
export interface OAuthPlan {
  scheme: string;
  tokenUrl: string;
  scopes: string[];
  credentials: ClientCredentials;
  /** Whether the card's securityRequirements need it (else a token is fetched when a challenge asks). */
  required: boolean;
}

/** The scheme to use, from the card's securitySchemes and securityRequirements, and the run's credentials. */
export function oauthPlanFor(cardJson: unknown, credentials: readonly ClientCredentials[] = []): OAuthPlan | undefined {
  const card = asObject(cardJson);
  // v1.0: `securityRequirements[].schemes[name].list`, wrapped schemes (`oauth2SecurityScheme`).
  // v0.3.0: `security[][name]` is the scope list itself, schemes are `type`-tagged (`type: "oauth2"`).
  const v03 = cardDialect(card) === 'a2a-v0.3';
  const scopesOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
  const requirements: Array<Record<string, string[]>> = v03
    ? (Array.isArray(card.security) ? card.security : []).map((r) => Object.fromEntries(Object.entries(asObject(r)).map(([k, v]) => [k, scopesOf(v)])))
    : (Array.isArray(card.securityRequirements) ? card.securityRequirements : []).map((r) =>
        Object.fromEntries(Object.entries(asObject(asObject(r).schemes)).map(([k, v]) => [k, scopesOf(asObject(v).list)])),
      );
  for (const [name, scheme] of Object.entries(asObject(card.securitySchemes))) {
    const oauth = v03
      ? V03_SCHEME_KIND[String(asObject(scheme).type)] === 'oauth2SecurityScheme'
        ? asObject(scheme)
        : {}
      : asObject(asObject(scheme).oauth2SecurityScheme);
    const flow = asObject(asObject(oauth.flows).clientCredentials);
    const tokenUrl = typeof flow.tokenUrl === 'string' ? flow.tokenUrl : undefined;
    const held = tokenUrl ? credentials.find((c) => c.kind === 'oauth2-client-credentials' && c.tokenUrl === tokenUrl) : undefined;
    if (!tokenUrl || !held) continue;
    const needed = requirements.find((r) => Object.hasOwn(r, name));
    return { scheme: name, tokenUrl, scopes: needed?.[name] ?? [], credentials: held, required: needed !== undefined };
  }
  return undefined;
}

/**
 * The auth-schemes a `WWW-Authenticate` value names (RFC 9110 §11.6.1: `#challenge`, each
 * `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`), lower-cased. Commas inside quoted strings do
 * not split; an element that starts with `name=` is a parameter of the challenge before it.
 */
export function challengeSchemes(header: string): string[] {
  const elements: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const c = header[i]!;
    if (quoted && c === '\\') {
      cur += c + (header[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      elements.push(cur);
      cur = '';
    } else cur += c;
  }
  elements.push(cur);
  const out: string[] = [];
  for (const e of elements) {
    const m = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(\s*=)?/.exec(e);
    if (m && !m[2]) out.push(m[1]!.toLowerCase());
  }
  return out;
}

/** Tokens for one plan: fetched once, fetched anew on demand (an expired token, a challenge). */
export class TokenSource {
  private current: string | undefined;
  constructor(
    readonly plan: OAuthPlan,
    private readonly fetchImpl: (url: string, init: RequestInit) => Promise<Response>,
  ) {}

  /** The token in hand, or a new one. */
  async token(): Promise<string> {
    return this.current ?? this.renew();
  }

  get held(): boolean {
    return this.current !== undefined;
  }

  /** A new token from the token endpoint (client_credentials, client authenticated with HTTP Basic). */
  async renew(): Promise<string> {
    const as: oauth.AuthorizationServer = { issuer: new URL(this.plan.tokenUrl).origin, token_endpoint: this.plan.tokenUrl };
    const client: oauth.Client = { client_id: this.plan.credentials.clientId };
    const params = new URLSearchParams(this.plan.scopes.length ? { scope: this.plan.scopes.join(' ') } : {});
    const res = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(this.plan.credentials.clientSecret), params, {
      [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<'POST', URLSearchParams>) => this.fetchImpl(url, init as unknown as RequestInit),
    });
    const got = await oauth.processClientCredentialsResponse(as, client, res);
    this.current = got.access_token;
    return this.current;
  }
}
