/**
 * HS-CHALLENGE-SCHEME (handshake): A 401 is met with new credentials per the card, never by repeating the call unchanged; a challenge naming a scheme the card does not list ends the attempt.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * A stop after a challenge the card's own listed scheme meets is over-rejection (FAIL), unlike a stop
 * where polling works in HS-ASPIRATIONAL-CAPABILITY and HS-SPLIT-ORIGIN (NON_STRICT): here the card is
 * true and read as written completes the task; there the card's claim failed, and only docs/duties.md §10
 * (not to give up, but to use what card and agent both offer) says what to do next. The grades say so.
 */
import type { Limit, Source } from '../../../sources.js';
import type { HttpEvent } from '../../../transcript.js';
import { absentEvidence, wireEvidence, type EvidenceRef, type Verdict } from '../../../verdict.js';
import { type CardView, cardPointer, httpAuthSchemes } from '../../../protocol/card-view.js';
import { failed, https, wireTrail, type GradeInput } from '../../evidence.js';
import { creditRejection, mustProceed as proceedBinding } from '../../graders.js';
import { binds, harm, informational, met, notBinding, signal, timeout, type RuleOf } from '../../rule.js';
import { SEED_NO_RETRY, SEED_RESIDUAL, residual, complete } from './shared.js';

const SEED_CHALLENGE: Source = {
  doc: 'docs/duties.md',
  section: '9 A challenge naming a scheme the card never listed',
  quote: 'An authentication challenge naming a scheme the card does not list is a signal that the card describes another surface than the one answering.',
  level: 'field',
};

/** Sentences that bound the reading of a 401: they carry no duty of the client (a MAY, a server's SHOULD, a process step). */
const RFC9110_401: Limit = {
  doc: 'RFC 9110',
  section: '15.5.2',
  quote:
    'If the request included authentication credentials, then the 401 response indicates that authorization has been refused for those credentials. The user agent MAY repeat the request with a new or replaced Authorization header field (Section 11.6.2).',
};

const RFC6750_INVALID_TOKEN: Limit = {
  doc: 'RFC 6750',
  section: '3.1',
  quote:
    'The access token provided is expired, revoked, malformed, or invalid for other reasons. The resource SHOULD respond with the HTTP 401 (Unauthorized) status code. The client MAY request a new access token and retry the protected resource request.',
};

const DISCOVER_SCHEMES: Limit = {
  doc: 'A2A v1.0.1',
  section: '7.3',
  quote: "Discovery of Requirements: The client discovers the server's required authentication schemes via the securitySchemes field in the AgentCard.",
};

const CREDENTIALS_EVERY_REQUEST: Limit = {
  doc: 'A2A v1.0.1',
  section: '7.3',
  quote: 'Credential Transmission: The client includes these credentials in protocol-appropriate headers or metadata for every A2A request.',
};

/** Requests answered 401 that the client repeated with the same credentials (the same method, params and Authorization digest, or both without). */
function repeatedChallenges(x: GradeInput): Array<{ first: HttpEvent; again: HttpEvent[] }> {
  const out: Array<{ first: HttpEvent; again: HttpEvent[] }> = [];
  const calls = https(x).filter((e) => e.rpc);
  const key = (e: HttpEvent) => `${e.origin}${e.path}|${e.rpc!.method}|${e.paramsDigest ?? JSON.stringify(e.rpc!.params)}|${e.headers.authDigest ?? '-'}`;
  const seen = new Set<string>();
  for (const e of calls) {
    if (e.status !== 401 || seen.has(key(e))) continue;
    seen.add(key(e));
    const again = calls.filter((o) => o.seq > e.seq && key(o) === key(e));
    if (again.length > 0) out.push({ first: e, again });
  }
  return out;
}

function repeatHarm(x: GradeInput): Verdict | undefined {
  const rep = repeatedChallenges(x);
  if (rep.length === 0) return undefined;
  const r = rep[0]!;
  const n = rep.reduce((sum, g) => sum + g.again.length, 0);
  const at =
    r.again
      .slice(0, 5)
      .map((e) => `#${e.seq}`)
      .join(', ') + (r.again.length > 5 ? `, … (${r.again.length} in all)` : '');
  return harm(
    `the 401 call repeated ${n} time(s) with the same credentials: ${r.first.rpc!.method} #${r.first.seq} (${r.first.headers.authScheme ?? 'no Authorization'}), again at ${at}`,
    [
      wireEvidence(
        r.first.seq,
        `${r.first.rpc!.method} → 401${r.first.response?.wwwAuthenticate ? `, WWW-Authenticate: ${r.first.response.wwwAuthenticate}` : ''}`,
      ),
      ...r.again
        .slice(0, 3)
        .map((e) =>
          wireEvidence(
            e.seq,
            `${e.rpc!.method} again with the same credentials${e.headers.authDigest ? ` (digest ${e.headers.authDigest})` : ' (none)'} → ${e.status}`,
          ),
        ),
    ],
  );
}

/** Token requests to the peer's token endpoint, and whether they got a token. */
const tokenRequests = (x: GradeInput) => https(x).filter((e) => e.method === 'POST' && e.path.split('?')[0]!.endsWith('/oauth/token'));

function tokenEvidence(x: GradeInput): EvidenceRef[] {
  const got = tokenRequests(x);
  if (got.length === 0) return [absentEvidence('wire', 'no token was requested from the token endpoint')];
  return got.slice(0, 3).map((e) => wireEvidence(e.seq, `POST ${e.path} over ${e.listener} → ${e.status}${e.status === 200 ? ' (a token issued)' : ''}`));
}

/** The challenge schemes a card's securitySchemes lets a client meet: an HTTP scheme's own name, `Bearer` for OAuth 2.0 and OpenID Connect (RFC 6750). */
function listedChallengeSchemes(card: CardView): string[] {
  const http = httpAuthSchemes(card);
  const out = new Set<string>();
  for (const [name, kind] of Object.entries(card.securitySchemes)) {
    if (kind === 'oauth2SecurityScheme' || kind === 'openIdConnectSecurityScheme') out.add('bearer');
    if (kind === 'httpAuthSecurityScheme' && http[name] !== undefined) out.add(http[name].toLowerCase());
  }
  return [...out];
}

export const HS_CHALLENGE_SCHEME: RuleOf<'HS-CHALLENGE-SCHEME'> = {
  id: 'HS-CHALLENGE-SCHEME',
  title:
    'A 401 is met with new credentials per the card, never by repeating the call unchanged; a challenge naming a scheme the card does not list ends the attempt',
  family: 'handshake',
  scope: 'own',
  sources: [SEED_CHALLENGE, SEED_NO_RETRY],
  limits: [
    RFC9110_401,
    RFC6750_INVALID_TOKEN,
    CREDENTIALS_EVERY_REQUEST,
    DISCOVER_SCHEMES,
    {
      doc: 'A2A v1.0.1',
      section: '7.3',
      quote:
        'Credential Acquisition (Out-of-Band): The client obtains the necessary credentials through an out-of-band process specific to the required authentication scheme.',
    },
    {
      doc: 'docs/duties.md',
      section: '9 A challenge naming a scheme the card never listed',
      quote: "The card's security schemes can describe where the card is served, not where tasks are.",
    },
    SEED_RESIDUAL,
  ],
  grades: [
    { when: 'a call answered 401 repeated with the same credentials (the same Authorization digest, or none again)', verdict: 'FAIL (harm)' },
    { when: 'the challenge names a scheme the card does not list: more than 3 calls answered with it', verdict: 'FAIL (harm: a structural failure hammered)' },
    {
      when: 'the challenge names a scheme the card does not list: the client stopped after it (no task can be had)',
      verdict: 'PASS (the token requests and the challenge cited)',
    },
    {
      when: 'the challenge names a listed scheme, or the token works, or it expires mid-task: the task completed (a new token after an expiry is the answer, RFC 6750 §3.1)',
      verdict: 'PASS',
    },
    {
      when: 'the same, and no task completed',
      verdict:
        'FAIL (over-rejection; its reason cites A2A v1.0.1 §7.3: credentials for the schemes the card lists, sent on every request, not the unlisted-scheme sentence)',
    },
    {
      when: 'why a stop after a 401 here is FAIL, while a stop where polling works is NON_STRICT in HS-ASPIRATIONAL-CAPABILITY and HS-SPLIT-ORIGIN',
      verdict:
        'here the card told the truth: the challenge names a scheme the card lists, and that scheme, read as §7.3 says, completes the task, so stopping declines a completable intent (over-rejection, FAIL at every level). There the card did not: a capability it claims fails, or it is stale, and only docs/duties.md §10 ("not to give up but to use what the card and the agent both offer", level field) says what to do next',
    },
  ],
  notBinding: ['a peer that takes no credentials', 'the residual risk: a working token and a payload over a ceiling no field shows (INFORMATIONAL)'],
  applies(s) {
    const auth = s.truth.runtime.auth;
    if (!auth) return notBinding('the task endpoint takes no credentials');
    // The gate answers before any ceiling: an unlisted challenge binds whatever the payload.
    const listed = listedChallengeSchemes(s.card);
    if (!listed.includes(auth.taskScheme.toLowerCase()))
      return binds(
        `the task endpoint challenges with ${auth.taskScheme}, which securitySchemes does not list (a client can meet ${listed.length ? listed.join(', ') : 'nothing'} from this card)`,
        ['reject'],
        [signal(s, cardPointer(s.card, 'securitySchemes'), 'field', `lists no ${auth.taskScheme} scheme`)],
      );
    const res = residual(s);
    if (res) return res;
    const requirements = s.card.securityRequirements.length > 0;
    return proceedBinding(
      s,
      `the task endpoint takes Bearer tokens from the card's OAuth 2.0 token endpoint${requirements ? '' : ' (the card lists the scheme without requiring it: a call without a token is challenged with it)'}${auth.tokenTtlSeconds < 30 ? `, which expire after ${auth.tokenTtlSeconds} s, mid-task` : ''}: it must proceed`,
      ['proceed'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const repeated = repeatHarm(x);
    if (repeated) return repeated;
    if (b.acceptable.includes('proceed')) {
      const done = complete(x, b.reason);
      // Not completing here is not about an unlisted scheme: the card lists one the client can meet (§7.3).
      const way =
        done.basis === 'over-rejection' || done.basis === 'incomplete'
          ? {
              cites: [DISCOVER_SCHEMES, CREDENTIALS_EVERY_REQUEST],
              reason: `${done.reason} (A2A v1.0.1 §7.3: the card's securitySchemes list a scheme the client can meet, and its credentials go on every request)`,
            }
          : {};
      if (done.kind !== 'PASS') return { ...done, ...way, evidence: [...done.evidence, ...tokenEvidence(x)] };
      const challenged = https(x).filter((e) => e.rpc && e.status === 401);
      const bearer = https(x).find((e) => e.rpc && e.headers.authScheme?.toLowerCase() === 'bearer' && !failed(e));
      return met(`${done.reason}${challenged.length ? `; met ${challenged.length} challenge(s) with new credentials` : ''}`, [
        ...done.evidence,
        ...tokenEvidence(x),
        ...challenged.slice(0, 2).map((e) => wireEvidence(e.seq, `${e.rpc!.method} → 401, WWW-Authenticate: ${e.response?.wwwAuthenticate ?? '(none)'}`)),
        ...(bearer ? [wireEvidence(bearer.seq, `${bearer.rpc!.method} with a Bearer token (digest ${bearer.headers.authDigest}) → ${bearer.status}`)] : []),
      ]);
    }
    const unmet = https(x).filter((e) => e.rpc && e.status === 401);
    if (unmet.length > 3)
      return harm(
        `kept calling an endpoint whose challenge it cannot meet: ${unmet.length} calls answered 401 (${unmet[0]!.response?.wwwAuthenticate ?? 'no challenge'})`,
        unmet.slice(0, 4).map((e) => wireEvidence(e.seq, `${e.rpc!.method} → 401`)),
      );
    if (x.outcome.kind === 'timeout') return timeout('no decision by the deadline', [...tokenEvidence(x), ...wireTrail(x)]);
    const first = unmet[0];
    const credit = creditRejection(
      x,
      first
        ? `stopped after the challenge for ${first.response?.wwwAuthenticate?.split(/[\s,]/)[0] ?? 'another scheme'}, which the card does not list`
        : 'declined before calling the task endpoint',
    );
    if (credit.kind !== 'PASS') return credit;
    return {
      ...credit,
      evidence: [
        ...credit.evidence,
        ...tokenEvidence(x),
        ...(first ? [wireEvidence(first.seq, `${first.rpc!.method} → 401, WWW-Authenticate: ${first.response?.wwwAuthenticate ?? '(none)'}`)] : []),
      ],
    };
  },
};
