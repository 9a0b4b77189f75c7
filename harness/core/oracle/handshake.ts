/**
 * Handshake rules (seed 003): discovery is not negotiation. A card can be clean and still not
 * describe what the runtime binds: a skill narrows the card's input modes, a 401 names a scheme the
 * card never listed, a capability flag has no method behind it, a card from a CDN origin is stale.
 * A correct client reads the skill's modes (the proto says they override), never repeats a
 * structural failure unchanged, probes cheaply where the card cannot be trusted, and falls back to
 * the surface that works instead of aborting or stalling.
 *
 * Probes (docs/rules.md, "Probes"): a task the client minted and canceled itself before it started
 * another (or declined), or an idempotent read (GetExtendedAgentCard, ListTasks, GetTask; §3.3.1).
 * Every rule here has a residual variant: the probe passes, a larger payload fails on a ceiling no
 * card field shows. The seed says no signal covers it; the rule reads INFORMATIONAL and says so.
 */
import type { PeerRuntime } from '../scenario.js';
import type { Limit, Source } from '../sources.js';
import type { HttpEvent } from '../transcript.js';
import { absentEvidence, claimEvidence, wireEvidence, type EvidenceRef, type Verdict } from '../verdict.js';
import type { CardView } from '../vocabulary/card-view.js';
import { inputModesFor, readCard } from '../vocabulary/card-view.js';
import { includesMediaType } from '../vocabulary/media-type.js';
import {
  cardReadEvidence,
  describeCall,
  failed,
  firstRealStart,
  https,
  intentBytes,
  probeReads,
  probeTasks,
  rpcCalls,
  startAttempts,
  taskEvidence,
  wireTrail,
  type GradeInput,
} from './evidence.js';
import { creditRejection, mustComplete, mustProceed as proceedBinding } from './negotiation.js';
import { binds, harm, informational, met, missingRecord, notBinding, signal, timeout, upFrontMiss, type Binding, type Rule, type Situation } from './rule.js';

// --- sources ---------------------------------------------------------------------------------

/** The proto says a skill's modes override the defaults; it carries no RFC keyword, so it makes no duty of its own. */
const SKILL_OVERRIDE: Limit = {
  doc: 'A2A v1.0.1 proto',
  section: 'AgentSkill.input_modes',
  quote: "The set of supported input media types for this skill, overriding the agent's defaults.",
};
/** The duty to read the skill's modes before sending: the seed's signal, which it says the spec does not require (so `seed`, not MUST). */
const SEED_SKILL_SIGNAL: Source = {
  doc: 'seed 003',
  section: 'What Was Observed',
  quote: 'Structural signal: a skill entry that re-declares a field also present at card scope.',
  level: 'seed',
};
const SEED_SKILL: Source = {
  doc: 'seed 003',
  section: 'What Was Observed',
  quote: "The delegate's runtime honored the skill-level override and rejected a text/plain payload that the default implied was acceptable.",
  level: 'seed',
  role: 'harm',
};
const SEED_NO_RETRY: Source = {
  doc: 'seed 003',
  section: 'Decision Boundary',
  quote: 'Do not attempt to reconcile the card by retrying the same failed call. The gap is structural, not transient.',
  level: 'seed',
  role: 'harm',
};
const SEED_CHALLENGE: Source = {
  doc: 'seed 003',
  section: 'What Was Observed',
  quote: 'Structural signal: a WWW-Authenticate challenge whose scheme is absent from securitySchemes.',
  level: 'seed',
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
const SEED_CAPABILITY: Source = {
  doc: 'seed 003',
  section: 'What Was Observed',
  quote: 'Structural signal: a true capability flag with no corresponding method reachable in the handshake.',
  level: 'seed',
};
const SEED_PROBE: Source = {
  doc: 'seed 003',
  section: 'Decision Boundary',
  quote:
    "Instead, perform a capability probe — submit a minimal, idempotent task (or invoke the specific method the flag implies) and gate the real delegation on the probe's result.",
  level: 'seed',
};
const SEED_NOT_ABORT: Source = {
  doc: 'seed 003',
  section: 'Decision Boundary',
  quote: 'The decision is not "abort" — it is "downgrade to the intersection of card and runtime, verified by probe."',
  level: 'seed',
};
const SEED_SPLIT: Source = {
  doc: 'seed 003',
  section: 'Condition of Validity',
  quote:
    'If the card is cached across a delegate redeploy, or if the card origin and the RPC origin differ (common in CDN-fronted discovery), the signals degrade: you may be reading a stale or split-brain card. Under those conditions, treat a clean card as no signal at all rather than a positive signal.',
  level: 'seed',
};
const CARD_REPLACEMENT: Source = {
  doc: 'A2A v1.0.1',
  section: '3.1.11',
  quote:
    "Clients retrieving this extended card SHOULD replace their cached public Agent Card with the content received from this endpoint for the duration of their authenticated session or until the card's version changes.",
  level: 'SHOULD',
};
const SEED_RESIDUAL: Limit = {
  doc: 'seed 003',
  section: 'Operational Effect',
  quote:
    'The residual risk — a delegate that passes the probe but fails on a larger payload — is not covered by these signals and must be handled by payload-level validation.',
};
const IDEMPOTENT_READS: Limit = {
  doc: 'A2A v1.0.1',
  section: '3.3.1',
  quote: 'Get operations (Get Task, List Tasks, Get Extended Agent Card) are naturally idempotent',
};

// --- shared ----------------------------------------------------------------------------------

/**
 * The seed's residual risk, where the scenario scripts it: the intent's payload is over a ceiling
 * of the runtime that no card field shows. No signal covers it, so a rule of this family does not
 * grade it; the cross-cutting checks still do.
 */
function residual(s: Situation) {
  const max = s.truth.runtime.maxRequestBytes;
  const bytes = intentBytes(s.intent);
  // The ceiling is on the whole request body: the payload (base64 for raw frames) plus a JSON-RPC
  // envelope, allowed 1 KiB. Near the ceiling the rule stands down rather than grade a lost cause.
  const body = (s.intent.input.frames ? Math.ceil((bytes * 4) / 3) : bytes) + 1024;
  if (max === undefined || body <= max) return undefined;
  return notBinding(
    `Residual risk (seed 003, Operational Effect): a probe passes, but this intent's payload (${bytes} bytes) is over a ceiling no card field shows (HTTP 413 above ${max} bytes of request); no signal covers it, so this rule does not grade it. The cross-cutting checks still do: the 413 never repeated unchanged, no task left open`,
  );
}

/**
 * The intent completed, as the ledger shows it; a client still running at the deadline gets TIMEOUT
 * even where the peer completed the task behind its back (it never saw it: a stall).
 */
function complete(x: GradeInput, why: string): Verdict {
  if (x.outcome.kind === 'timeout') return timeout(`no decision by the deadline although ${why}`, [...taskEvidence(x), ...wireTrail(x)]);
  return mustComplete(x, why);
}

/** Evidence of the probes before a sequence number (or at all). */
function probeEvidence(x: GradeInput, before = Number.POSITIVE_INFINITY): EvidenceRef[] {
  const reads = probeReads(x).filter((e) => e.seq < before);
  const tasks = probeTasks(x).filter((t) => t.mintedSeq < before);
  return [
    ...reads.slice(0, 3).map((e) => wireEvidence(e.seq, `probe: ${describeCall(e)}`)),
    ...tasks.slice(0, 3).map((t) => wireEvidence(t.mintedSeq, `probe: task ${t.id} minted, then canceled by the client`)),
  ];
}

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
  const raw = (card.raw.securitySchemes ?? {}) as Record<string, Record<string, { scheme?: unknown }>>;
  const out = new Set<string>();
  for (const [name, kind] of Object.entries(card.securitySchemes)) {
    if (kind === 'oauth2SecurityScheme' || kind === 'openIdConnectSecurityScheme') out.add('bearer');
    if (kind === 'httpAuthSecurityScheme') {
      const scheme = raw[name]?.httpAuthSecurityScheme?.scheme;
      if (typeof scheme === 'string') out.add(scheme.toLowerCase());
    }
  }
  return [...out];
}

// --- HS-SKILL-OVERRIDE ------------------------------------------------------------------------

export const HS_SKILL_OVERRIDE: Rule = {
  id: 'HS-SKILL-OVERRIDE',
  title: "A skill's own input modes override the card's defaults: a mode the skill leaves out is not sent to it",
  family: 'handshake',
  scope: 'own',
  sources: [SEED_SKILL_SIGNAL, SEED_SKILL, SEED_NO_RETRY],
  limits: [
    SKILL_OVERRIDE,
    {
      doc: 'A2A v1.0.1',
      section: '3.3.2',
      quote:
        "A Media Type provided in the request's message parts or implied for an artifact is not supported by the agent or the specific skill being invoked.",
    },
    {
      doc: 'seed 003',
      section: 'What Was Observed',
      quote:
        'The card was internally consistent only if you read the skill-level field as authoritative — which the spec permits but does not require the delegator to prefer.',
    },
    {
      doc: 'docs/extensions.md',
      section: 'Naming the target skill of a message',
      quote: 'A2A v1.0 has no skill selector on the wire: a message goes to the agent, not to a skill.',
    },
    SEED_RESIDUAL,
  ],
  grades: [
    {
      when: 'the excluded card-default mode sent in a message that names the skill (the proto\'s comment says the skill\'s list overrides, with no RFC keyword; seed 003: the spec "permits but does not require" preferring it)',
      verdict: 'NON_STRICT (seed)',
    },
    { when: 'the excluded mode sent again after -32005', verdict: 'FAIL (harm)' },
    {
      when: "a message that names no skill, in a mode the card's defaults list, which the runtime routed to the narrower skill on its own (a route no card field shows): not what the client aimed at",
      verdict: 'INFORMATIONAL',
    },
    { when: 'no such send, after the card was read: declined, or the intent carried in a mode the skill takes', verdict: 'PASS' },
    {
      when: "an input the skill takes, or a skill with no modes of its own, or no skill named where the card's defaults apply: no task completed",
      verdict: 'FAIL (over-rejection)',
    },
  ],
  notBinding: [
    "an input mode neither the card nor the skill lists (not this rule's question)",
    'the residual risk: an input the skill takes, over a ceiling no field shows (INFORMATIONAL)',
  ],
  applies(s) {
    const mt = s.intent.input.mediaType;
    const skillId = s.intent.skillId;
    const index = skillId === undefined ? -1 : s.card.skills.findIndex((k) => k.id === skillId);
    const modes = inputModesFor(s.card, index >= 0 ? skillId : undefined);
    if (!includesMediaType(modes, mt)) {
      if (index < 0 || !includesMediaType(s.card.defaultInputModes, mt))
        return notBinding(`${mt} is neither a default input mode nor one of the skill's: not this rule's question`);
      return binds(
        `skill ${skillId} takes ${modes.join(', ')} only, overriding the card's defaults, which list ${mt}`,
        ['reject'],
        [signal(s, `/skills/${index}/inputModes`, 'seed', `${skillId} re-declares the card's inputModes without ${mt}`)],
      );
    }
    const res = residual(s);
    if (res) return res;
    if (index >= 0 && s.card.skills[index]!.inputModes?.length)
      return proceedBinding(s, `skill ${skillId} lists ${mt} among its own input modes: it must proceed`, ['proceed']);
    return proceedBinding(
      s,
      index >= 0
        ? `skill ${skillId} declares no input modes of its own: the card's defaults, which list ${mt}, apply`
        : `the intent names no skill: the card's defaults, which list ${mt}, apply`,
      ['proceed'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.acceptable.includes('proceed')) return complete(x, b.reason);
    const skillId = x.intent.skillId!;
    const modes = inputModesFor(situationCard(x), skillId);
    const excluded = (e: HttpEvent) => (e.partTypes ?? []).some((t) => !includesMediaType(modes, t));
    const sends = rpcCalls(x).filter((e) => e.rpc!.method === 'SendMessage' || e.rpc!.method === 'SendStreamingMessage');
    // What the client aimed at: the skill its message names. A message that names none went to the agent.
    const offending = sends.filter((e) => e.skillId === skillId && excluded(e));
    const evidence = offending
      .slice(0, 4)
      .map((e) =>
        wireEvidence(e.seq, `${e.rpc!.method} carried ${(e.partTypes ?? []).join(', ')} to skill ${skillId} → ${e.rpcError ? `${e.rpcError.code}` : e.status}`),
      );
    const refused = offending.findIndex((e) => e.rpcError?.code === -32005);
    if (refused >= 0 && offending.length > refused + 1)
      return harm(
        `${x.intent.input.mediaType} sent to skill ${skillId} ${offending.length} times, again after -32005 at #${offending[refused]!.seq}`,
        evidence,
      );
    if (offending.length > 0)
      return upFrontMiss(this, b as Binding, `sent ${x.intent.input.mediaType} to skill ${skillId}, whose own input modes (${modes.join(', ')}) leave it out`, [
        ...cardReadEvidence(x),
        ...evidence,
      ]);
    const defaults = situationCard(x).defaultInputModes;
    // A message that named no skill, in the card's default modes, refused where the runtime routed it.
    const routed = sends.filter(
      (e) => e.skillId === undefined && e.routedSkill === skillId && excluded(e) && (e.partTypes ?? []).every((t) => includesMediaType(defaults, t)),
    );
    if (routed.length > 0 && !x.tasks.some((t) => t.state === 'TASK_STATE_COMPLETED'))
      return informational(
        `the client's message named no skill and carried ${(routed[0]!.partTypes ?? []).join(', ')}, which the card's defaults list: it was sent to the agent, not aimed at skill ${skillId}; the runtime routed it there on its own (a route no card field shows). Not this rule's miss; the cross-cutting checks still grade what followed`,
        routed
          .slice(0, 3)
          .map((e) =>
            wireEvidence(
              e.seq,
              `${e.rpc!.method} naming no skill, ${(e.partTypes ?? []).join(', ')} → ${e.rpcError ? `${e.rpcError.code} (routed to ${skillId})` : e.status}`,
            ),
          ),
      );
    const done = x.tasks.find((t) => t.state === 'TASK_STATE_COMPLETED');
    if (done)
      return met(`never sent ${x.intent.input.mediaType} to skill ${skillId}; the task went in a mode the skill takes and completed`, taskEvidence(x, [done]));
    return creditRejection(x, `declined before sending: skill ${skillId} takes ${modes.join(', ')} only`);
  },
};

/** The card as the rule reads it, from the grade input. */
const situationCard = (x: GradeInput): CardView => readCard(x.card);

// --- HS-CHALLENGE-SCHEME ----------------------------------------------------------------------

export const HS_CHALLENGE_SCHEME: Rule = {
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
    { doc: 'seed 003', section: 'What Was Observed', quote: "The card's security declaration described the discovery surface, not the task surface." },
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
        [signal(s, '/securitySchemes', 'seed', `lists no ${auth.taskScheme} scheme`)],
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

// --- HS-ASPIRATIONAL-CAPABILITY ---------------------------------------------------------------

const PUSH_METHODS = new Set([
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);

/** Push registrations the peer refused: a push method answered -32003 or -32601, or a SendMessage with an inline config answered -32003. */
function refusedRegistrations(x: GradeInput): HttpEvent[] {
  return rpcCalls(x).filter(
    (e) =>
      (PUSH_METHODS.has(e.rpc!.method) && (e.rpcError?.code === -32003 || e.rpcError?.code === -32601)) ||
      (e.rpc!.method === 'SendMessage' && e.rpcError?.code === -32003),
  );
}

const pushMissing = (rt: PeerRuntime) => (rt.push.missing === 'method-not-found' ? 'do not exist (-32601; an inline config is dropped)' : 'answer -32003');

export const HS_ASPIRATIONAL_CAPABILITY: Rule = {
  id: 'HS-ASPIRATIONAL-CAPABILITY',
  title: 'A capability flag with no method behind it is found out per task and the task falls back to polling, never stalls on it',
  family: 'handshake',
  scope: 'own',
  sources: [SEED_CAPABILITY, SEED_PROBE, SEED_NOT_ABORT],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.1.7', quote: 'Creates a push notification configuration for a task to receive asynchronous updates via webhook.' },
    {
      doc: 'A2A v1.0.1',
      section: '3.3.4',
      quote:
        'Push Notifications: If AgentCard.capabilities.pushNotifications is false or not present, operations related to push notification configuration (Create, Get, List, Delete) MUST return PushNotificationNotSupportedError.',
    },
    {
      doc: 'seed 003',
      section: 'Decision Boundary',
      quote:
        "If the probe fails, fall back to the delegate's declared minimum surface (card-scope defaults only, no skill overrides, no optional capabilities) rather than the advertised surface.",
    },
    SEED_RESIDUAL,
  ],
  grades: [
    { when: 'the push methods fail: waiting on a push that cannot come past the deadline', verdict: 'TIMEOUT (harm)' },
    { when: 'the push methods fail: the task completed by polling, and the client recorded push->polling', verdict: 'PASS' },
    { when: 'the same without the record, where the wire shows the registration refused', verdict: 'NON_STRICT (a missing record)' },
    {
      when: 'the push methods fail: the client stopped (and canceled what it minted) where polling works',
      verdict: 'NON_STRICT (seed: "not abort", downgrade)',
    },
    { when: 'the push methods work (the control), or the intent does not ask for push: no task completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['a card that does not claim push', 'the residual risk: registration works, a payload over a ceiling no field shows fails (INFORMATIONAL)'],
  applies(s) {
    const rt = s.truth.runtime;
    if (s.card.pushNotifications !== true) return notBinding('the card does not claim push notifications');
    const res = residual(s);
    if (res) return res;
    if (s.intent.completion !== 'push' || s.profile.callback === 'none')
      return proceedBinding(
        s,
        `the intent ${s.intent.completion !== 'push' ? `prefers ${s.intent.completion}` : 'prefers push but the client has no receiver'}: the push flag costs it nothing; it must proceed`,
        ['proceed'],
      );
    if (rt.push.supported) return proceedBinding(s, 'the push methods work (the control): by push or by polling, the task must complete', ['proceed']);
    return binds(
      `capabilities.pushNotifications is true, but the push methods ${pushMissing(rt)}: register per task, see it fail, and poll`,
      ['downgrade'],
      [signal(s, '/capabilities/pushNotifications', 'seed', 'a true capability flag with no method behind it')],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const done = complete(x, b.reason);
    if (b.acceptable.includes('proceed')) return done;
    const refused = refusedRegistrations(x);
    const refusedEvidence = refused.slice(0, 3).map((e) => wireEvidence(e.seq, `${e.rpc!.method} → ${e.rpcError!.code} ${e.rpcError!.message}`));
    if (done.kind === 'TIMEOUT')
      return timeout(
        `stalled: no terminal state seen by the deadline, although ${refused.length ? 'the push registration was refused and ' : ''}polling works`,
        [...done.evidence, ...refusedEvidence],
      );
    if (done.kind !== 'PASS') {
      // Stopping where polling works is the seed's "not abort, downgrade" (level seed); harm (an
      // orphan, a stall) is graded by the cross-cutting checks and above.
      if (done.basis === 'over-rejection' || done.basis === 'incomplete')
        return upFrontMiss(
          this,
          b as Binding,
          `stopped although polling works${refused.length ? ` (the push registration was refused at #${refused[0]!.seq})` : ''}: the seed's answer is "downgrade", not "abort"`,
          [...done.evidence, ...refusedEvidence],
        );
      return { ...done, evidence: [...done.evidence, ...refusedEvidence] };
    }
    if (refused.length > 0 && !(x.claims?.degradations ?? []).includes('push->polling'))
      return missingRecord(this, `completed by polling after the push registration was refused at #${refused[0]!.seq}, but recorded no push->polling`, [
        ...refusedEvidence,
        claimEvidence(`degradations: ${JSON.stringify(x.claims?.degradations ?? [])}`),
      ]);
    return met(`${done.reason}${refused.length ? `; the registration refused at #${refused[0]!.seq}, polled instead (push->polling)` : '; polled'}`, [
      ...done.evidence,
      ...refusedEvidence,
    ]);
  },
};

// --- HS-SPLIT-ORIGIN --------------------------------------------------------------------------

/** What the served card claims that the runtime no longer does (a redeploy the CDN's copy missed). */
function staleClaims(s: Situation): string[] {
  const rt = s.truth.runtime;
  const out: string[] = [];
  if (s.card.streaming === true && !rt.streaming) out.push('streaming');
  if (s.card.pushNotifications === true && !rt.push.supported) out.push('push notifications');
  return out;
}

const STREAM_METHODS = new Set(['SendStreamingMessage', 'SubscribeToTask']);

export const HS_SPLIT_ORIGIN: Rule = {
  id: 'HS-SPLIT-ORIGIN',
  title:
    'A card from another origin than the RPC is no signal of freshness: a cheap probe comes before the task, and a refusal is met on the surface that works',
  family: 'handshake',
  scope: 'own',
  sources: [SEED_SPLIT, SEED_PROBE, SEED_NOT_ABORT, CARD_REPLACEMENT],
  limits: [
    IDEMPOTENT_READS,
    { doc: 'A2A v1.0.1', section: '3.1.11', quote: 'Retrieves a potentially more detailed version of the Agent Card after the client has authenticated.' },
    SEED_RESIDUAL,
  ],
  grades: [
    {
      when: 'a split origin: a probe (an idempotent read, or a task canceled before the next) before the first task, then the task completed on the surface that works',
      verdict: 'PASS',
    },
    { when: 'a split origin: the first task sent before any probe', verdict: 'NON_STRICT (seed)' },
    { when: 'the extended card fetched, and a surface it leaves out used afterwards', verdict: 'NON_STRICT (§3.1.11 SHOULD replace the public card)' },
    { when: 'a stale card: the client stopped where polling works', verdict: 'NON_STRICT (seed: not "abort", downgrade)' },
    { when: 'a fresh card on the split, or the card from the RPC origin itself: no task completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['the residual risk: a probe passes, a payload over a ceiling no field shows fails (INFORMATIONAL)'],
  applies(s) {
    const rt = s.truth.runtime;
    const res = residual(s);
    if (res) return res;
    if (rt.cardListener === rt.rpcListener)
      return proceedBinding(s, 'the card comes from the RPC origin itself: a clean card is a signal here; it must proceed, no probe needed', ['proceed']);
    const stale = staleClaims(s);
    return binds(
      `the card comes from the ${rt.cardListener} origin and the RPC from the ${rt.rpcListener} origin: a clean card from another origin is no signal of freshness${stale.length ? `; this one is stale (it still offers ${stale.join(', ')})` : ' (this one is fresh)'}`,
      stale.length ? ['downgrade'] : ['proceed', 'downgrade'],
      [signal(s, s.card.dialect === 'a2a-v0.3' ? '/url' : '/supportedInterfaces/0/url', 'seed', 'the RPC URL is on another origin than the card')],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const split = x.scenario.peer.runtime.cardListener !== x.scenario.peer.runtime.rpcListener;
    const done = complete(x, b.reason);
    if (!split) return done;
    const real = firstRealStart(x);
    const probes = probeEvidence(x, real?.seq);
    if (done.kind === 'TIMEOUT') return { ...done, evidence: [...done.evidence, ...probes] };
    if (done.kind !== 'PASS') {
      if (!b.acceptable.includes('proceed') && (done.basis === 'over-rejection' || done.basis === 'incomplete'))
        return upFrontMiss(
          this,
          b as Binding,
          `stopped although a working surface exists (polling): the seed's answer to a refusal is "downgrade", not "abort"`,
          [...done.evidence, ...probes],
        );
      return done;
    }
    const extended = rpcCalls(x).find((e) => e.rpc!.method === 'GetExtendedAgentCard' && !failed(e));
    if (extended) {
      const fresh = x.scenario.peer.runtime.extendedCard as { capabilities?: { streaming?: unknown } } | undefined;
      const ignored = fresh?.capabilities?.streaming !== true ? rpcCalls(x).find((e) => e.seq > extended.seq && STREAM_METHODS.has(e.rpc!.method)) : undefined;
      if (ignored) {
        // §3.1.11's SHOULD ("replace their cached public Agent Card") decides this miss, not the seed.
        const replace: Binding = {
          ...(b as Binding),
          signals: [
            {
              pointer: readCard(x.card).dialect === 'a2a-v0.3' ? '/supportsAuthenticatedExtendedCard' : '/capabilities/extendedAgentCard',
              level: 'SHOULD',
              note: 'the runtime serves its own card',
            },
          ],
        };
        return upFrontMiss(
          this,
          replace,
          `fetched the runtime's own card at #${extended.seq}, which offers no streaming, then called ${ignored.rpc!.method} at #${ignored.seq} from the public card`,
          [wireEvidence(extended.seq, "GetExtendedAgentCard → the runtime's card"), wireEvidence(ignored.seq, describeCall(ignored))],
        );
      }
    }
    if (probes.length === 0)
      return upFrontMiss(
        this,
        b as Binding,
        `the first attempt at the task was sent at #${real?.seq ?? '?'} before any probe (an idempotent read that was answered, or a task canceled before the next)`,
        [...(real ? [wireEvidence(real.seq, `first task: ${describeCall(real)}`)] : []), ...done.evidence],
      );
    const refusals = startAttempts(x).filter((e) => failed(e));
    return met(`probed before the first task, then completed${refusals.length ? ` after ${refusals.length} refusal(s), on the surface that works` : ''}`, [
      ...probes,
      ...refusals.slice(0, 2).map((e) => wireEvidence(e.seq, describeCall(e))),
      ...done.evidence,
    ]);
  },
};

export const HANDSHAKE_RULES: Rule[] = [HS_SKILL_OVERRIDE, HS_CHALLENGE_SCHEME, HS_ASPIRATIONAL_CAPABILITY, HS_SPLIT_ORIGIN];
