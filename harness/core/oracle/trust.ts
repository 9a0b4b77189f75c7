/**
 * Trust rules (seed 001): a signed card is verified before anything else, against keys the client
 * already trusts; a trusted card can still be uninterpretable, and a decode failure is terminal for
 * its task. A2A §8.4 says how a card is signed and verified; it does not say what a client does with
 * a card whose signature fails, nor anything about media-type parameters, so each rule says which
 * sentence it rests on and at which level.
 */
import type { CardSigning } from '../scenario.js';
import type { Level, Limit, Source } from '../sources.js';
import type { HttpEvent, TaskRecord } from '../transcript.js';
import { isTerminal } from '../transcript.js';
import { absentEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef, type Verdict } from '../verdict.js';
import { outputModesFor } from '../vocabulary/card-view.js';
import { includesMediaType, parseMediaType } from '../vocabulary/media-type.js';
import {
  canceledByClient,
  cardReadEvidence,
  firstSend,
  https,
  jwksFetches,
  startAttempts,
  situationOf,
  taskEvidence,
  wireTrail,
  type GradeInput,
} from './evidence.js';
import { creditRejection, mustComplete } from './negotiation.js';
import { binds, harm, informational, met, notBinding, signal, timeout, upFrontMiss, type Binding, type Rule, type RuleId, type Situation } from './rule.js';

// --- sources ---------------------------------------------------------------------------------

const VERIFY_BEFORE_TRUST: Source = {
  doc: 'A2A v1.0.1',
  section: '8.4.3',
  quote: 'Clients SHOULD verify at least one signature before trusting an Agent Card',
  level: 'security',
};
const TRUSTED_KEY_STORE: Source = {
  doc: 'A2A v1.0.1',
  section: '8.4.3',
  quote: 'Retrieve the public key using the kid and jku (or from a trusted key store)',
  level: 'security',
};
const EXPIRED_KEYS: Source = { doc: 'A2A v1.0.1', section: '8.4.3', quote: 'Expired or revoked keys MUST NOT be used for verification', level: 'MUST' };
/** Which keys a run's client trusts: the run's trust anchors, as the test protocol states them (no RFC keyword: the level comes from §8.4.3). */
const TRUST_ANCHORS: Limit = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, Trust anchors and decoders',
  quote:
    "trustedJwks (list of https:// URLs): the JWKS documents the client trusts for card signatures. Fetch them over TLS with tls.caFile as for any peer; look the signature's kid up there; follow a jku only where it names one of these URLs.",
};
const KEY_WINDOW: Limit = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, Trust anchors and decoders',
  quote: 'Its keys carry an x5c certificate whose validity window says when the key may be used.',
};
const X5C_MATCH: Source = {
  doc: 'RFC 7517',
  section: '4.7',
  quote: 'The key in the first certificate MUST match the public key represented by other members of the JWK.',
  level: 'MUST',
};
const CERT_VALIDITY: Source = {
  doc: 'RFC 5280',
  section: '4.1.2.5',
  quote: 'The validity period for a certificate is the period of time from notBefore through notAfter, inclusive.',
  level: 'MUST',
};
const JKU_SSRF: Source = {
  doc: 'RFC 8725',
  section: '3.10',
  quote:
    'Similarly, blindly following a "jku" (JWK set URL) or "x5u" (X.509 URL) header, which may contain an arbitrary URL, could result in server-side request forgery (SSRF) attacks. Applications SHOULD protect against such attacks, e.g., by matching the URL to a whitelist of allowed locations and ensuring no cookies are sent in the GET request.',
  level: 'security',
};
const ALG_ALLOWLIST: Source = {
  doc: 'RFC 8725',
  section: '3.1',
  quote:
    'Libraries MUST enable the caller to specify a supported set of algorithms and MUST NOT use any other algorithms when performing cryptographic operations.',
  level: 'MUST',
};
const ALG_NONE: Source = {
  doc: 'RFC 7518',
  section: '3.6',
  quote:
    'Implementations that support Unsecured JWSs MUST NOT accept such objects as valid unless the application specifies that it is acceptable for a specific object to not be integrity protected. Implementations MUST NOT accept Unsecured JWSs by default.',
  level: 'MUST',
};
const SEED_GATE: Source = {
  doc: 'seed 001',
  section: 'Decision Boundary',
  quote:
    'If any required output type is uninterpretable, do not call tasks/send. Instead, either (a) downgrade to a skill whose output modes are interpretable, or (b) fail fast with a terminal negotiation error.',
  level: 'seed',
};
const SEED_STATUS_ONLY: Source = {
  doc: 'seed 001',
  section: 'Decision Boundary',
  quote: 'A caller that only reads status updates and ignores artifacts can proceed. A caller that consumes artifacts cannot.',
  level: 'seed',
};
const SEED_TERMINAL: Source = {
  doc: 'seed 001',
  section: 'Operational Effect',
  quote:
    'The fix is to make the pre-negotiation gate a hard precondition and to classify MediaTypeNotSupported raised during artifact decode as terminal-for-this-task, never transient.',
  level: 'seed',
};
const SEED_ORPHANS: Source = {
  doc: 'seed 001',
  section: 'What Was Observed',
  quote:
    "The caller's artifact decoder raised a MediaTypeNotSupported, the caller treated it as transient, and re-sent tasks/send — producing a second task on the peer while the first remained in working.",
  level: 'seed',
  role: 'harm',
};
const SEED_PARAMS: Source = {
  doc: 'seed 001',
  section: 'Condition of Validity',
  quote:
    "The caller's artifact layer performs strict media-type matching including parameters (profile, charset, version). Loose matching that strips parameters masks the failure.",
  level: 'seed',
};
const MEDIA_CASE: Source = { doc: 'RFC 9110', section: '8.3.1', quote: 'The type and subtype tokens are case-insensitive.', level: 'MUST' };
const CHARSET_CASE: Source = { doc: 'RFC 9110', section: '8.3.2', quote: 'In both cases, charset names are matched case-insensitively.', level: 'MUST' };

// --- what the harness knows about the card's signature ----------------------------------------

type Breach = 'tamper' | 'alg' | 'kid' | 'jku';

/** How the card's signature fails for this profile, or undefined when a trusting client can verify it. */
export function breachOf(signing: CardSigning | undefined, vendorKeysTrusted: boolean): { kind: Breach; why: string } | undefined {
  if (!signing) return undefined;
  if (signing.breaker === 'alg-none') return { kind: 'alg', why: 'the signature is alg "none" with an empty signature (an Unsecured JWS)' };
  if (signing.breaker === 'hmac-public-key') return { kind: 'alg', why: "the signature is HS256, keyed with the signing key's public key" };
  if (signing.key === 'own-origin')
    return {
      kind: 'jku',
      why: "the card is signed with a key published only on the peer's own origin, which jku names: not one of the run's trust anchors (docs/protocol.md: follow a jku only where it names one of them; A2A v1.0.1 §8.4.3: keys from a trusted key store)",
    };
  if (signing.key === 'unlisted') return { kind: 'kid', why: 'the kid is in no JWKS the client trusts' };
  if (signing.key === 'expired')
    return {
      kind: 'kid',
      why: "the kid's certificate (x5c) in the trusted JWKS expired before this run (A2A v1.0.1 §8.4.3: expired keys are not used for verification)",
    };
  if (signing.key === 'not-yet-valid')
    return {
      kind: 'kid',
      why: "the kid's certificate (x5c) in the trusted JWKS is not valid yet (docs/protocol.md: the window says when the key may be used; RFC 5280 §4.1.2.5: valid from notBefore)",
    };
  if (!vendorKeysTrusted) return { kind: 'kid', why: "the client has no trust anchor for the origin that publishes the card's key" };
  if (signing.tamper) return { kind: 'tamper', why: `the card was changed after it was signed (${signing.tamper.pointer})` };
  return undefined;
}

const breach = (s: Situation) => breachOf(s.truth.signing, s.truth.vendorKeysTrusted === true);

/** Evidence of where the client looked for keys, before its first send (or at all). */
function keyEvidence(x: GradeInput): EvidenceRef[] {
  const first = firstSend(x);
  const fetched = jwksFetches(x);
  if (fetched.length === 0) return [absentEvidence('wire', 'no JWKS was fetched')];
  return fetched
    .slice(0, 3)
    .map((e) =>
      wireEvidence(
        e.seq,
        `JWKS fetched from the ${e.listener} origin: GET ${e.path} → ${e.status}${first && e.seq < first.seq ? ' (before the first send)' : first ? ' (after the first send)' : ''}`,
      ),
    );
}

// --- harm shared by the trust rules: a message re-sent, tasks multiplied, tasks left working ---

/** Every attempt to start a task, answered or not: the client trusted the card enough to send. */
const attempts = startAttempts;
/** The attempts the peer took (2xx, no JSON-RPC error). */
const sends = (x: GradeInput) => attempts(x).filter((e) => !e.rpcError && e.status !== undefined && e.status < 300);

/**
 * New-task sends, after the client was shown an artifact it cannot decode, that repeat an earlier
 * send's params (messageId aside): the decode failure treated as transient (seed 001). A repeat
 * before any decode failure is not this rule's (a lost answer retried with the same messageId is
 * what §3.3.1's deduplication is for).
 */
function resends(x: GradeInput): { minted: HttpEvent[]; deduplicated: HttpEvent[] } {
  const failure = undecodableSeen(x)[0];
  const seen = new Set<string>();
  const minted: HttpEvent[] = [];
  const deduplicated: HttpEvent[] = [];
  for (const e of sends(x)) {
    const key = `${e.rpc!.method}:${e.paramsDigest ?? JSON.stringify(e.rpc!.params)}`;
    if (seen.has(key) && failure && e.seq > failure.seq) (e.deduplicated ? deduplicated : minted).push(e);
    seen.add(key);
  }
  return { minted, deduplicated };
}

/** Harm on the wire after a task was minted: re-sends that minted tasks, and tasks left working. */
function trustHarm(x: GradeInput): Verdict | undefined {
  const { minted } = resends(x);
  const left = x.tasks.filter((t) => !isTerminal(t.state));
  // One re-send, after every earlier task had ended (the client canceled it), and nothing left working: the failure was
  // treated as transient once (the seed's miss), but no task accumulated: not harm.
  const earlier = x.tasks.filter((t) => t.mintedSeq < (minted[0]?.seq ?? 0));
  if (minted.length === 1 && left.length === 0 && earlier.length > 0 && earlier.every((t) => canceledByClient(t, x) && endedBefore(t, minted[0]!.seq)))
    return verdict(
      'NON_STRICT',
      `the message was re-sent once after the decode failure, at #${minted[0]!.seq}, after the earlier task had ended; nothing was left working, so no task accumulated (the seed's harm), but the failure was treated as transient`,
      [wireEvidence(minted[0]!.seq, `${minted[0]!.rpc!.method} re-sent with the same params, minting ${minted[0]!.taskId ?? 'a task'}`), ...taskEvidence(x)],
      { basis: 'up-front', level: 'seed' },
    );
  if (minted.length > 0)
    return harm(`${x.tasks.length} tasks minted for one intent, ${left.length} left working: the same message was re-sent ${minted.length} time(s)`, [
      ...minted
        .slice(0, 5)
        .map((e) =>
          wireEvidence(
            e.seq,
            `${e.rpc!.method} re-sent with the same params${e.messageId ? ` (messageId ${e.messageId})` : ''}, minting ${e.taskId ?? 'a task'}`,
          ),
        ),
      ...taskEvidence(x),
    ]);
  if (left.length > 0) return harm(`${left.length} task(s) left ${left.map((t) => t.state).join(', ')} at the end (orphans)`, taskEvidence(x, left));
  return undefined;
}

/** Whether a task had reached a terminal state before a sequence number. */
const endedBefore = (t: TaskRecord, seq: number) => t.history.some((h) => h.seq < seq && isTerminal(h.state));

// --- media types: what the client can decode ------------------------------------------------

/** Parameter-aware membership in the client's decoder registry. */
const decodable = (registry: readonly string[], mt: string) => includesMediaType(registry, mt);

/** The same type and subtype, the parameters aside: what loose matching takes as a match. */
function looseMatch(a: string, b: string): boolean {
  const x = parseMediaType(a);
  const y = parseMediaType(b);
  return !!x && !!y && x.type === y.type;
}

/** Other skills of the card that list an output the intent accepts and the client decodes (their own `outputModes`). */
function decodableSkills(s: Situation): Array<{ id: string; index: number; modes: string[] }> {
  const wanted = s.intent.acceptedOutputModes;
  return s.card.skills
    .map((k, index) => ({ id: k.id, index, modes: k.outputModes ?? [] }))
    .filter((k) => k.id !== s.intent.skillId && k.modes.some((m) => decodable(s.profile.mediaTypes, m) && includesMediaType(wanted, m)));
}

/**
 * Tasks sent to a skill the client can decode (`first` the first of them): met once one completed;
 * TIMEOUT when none had by the deadline; otherwise the downgrade lost the task (over-rejection).
 */
function downgradeOutcome(x: GradeInput, alt: { id: string }, first: HttpEvent, reason: string): Verdict {
  const done = x.tasks.find((t) => t.state === 'TASK_STATE_COMPLETED');
  if (done)
    return met(reason, [wireEvidence(first.seq, `${first.rpc!.method} naming skill ${alt.id}`), ledgerEvidence(done.mintedSeq, `task ${done.id} completed`)]);
  if (x.outcome.kind === 'timeout') return timeout(`downgraded to skill ${alt.id} but saw no completion by the deadline`, taskEvidence(x));
  return verdict('FAIL', `downgraded to skill ${alt.id}, but the task did not complete`, taskEvidence(x), { basis: 'incomplete' });
}

/**
 * Where signed cards are required and the card is signed: a task sent without any JWKS fetched
 * before it shows no verification on the wire (DESIGN.md: "verify first"). No harm: NON_STRICT.
 */
function unverified(x: GradeInput, done: Verdict): Verdict {
  const first = firstSend(x);
  if (done.kind !== 'PASS' || !x.profile.requireSignedCards || !Array.isArray(x.card.signatures) || !first || jwksFetches(x).some((e) => e.seq < first.seq))
    return done;
  return verdict(
    'NON_STRICT',
    `${done.reason}; but no JWKS was fetched before the first send although the profile requires signed cards: nothing on the wire shows the card was verified first`,
    [...done.evidence, ...keyEvidence(x), wireEvidence(first.seq, `first ${first.rpc!.method}`)],
    { basis: 'up-front', level: 'security' },
  );
}

/** The skill a send named (`Message.metadata.skillId`, docs/extensions.md). */
function namedSkill(e: HttpEvent): string | undefined {
  const p = e.rpc?.params as { message?: { metadata?: { skillId?: unknown } } } | undefined;
  const id = p?.message?.metadata?.skillId;
  return typeof id === 'string' ? id : undefined;
}

/** Artifact types the client was shown that its registry cannot decode, with where: in an HTTP answer or an SSE event. */
function undecodableSeen(x: GradeInput): Array<{ seq: number; type: string; taskId?: string }> {
  const out: Array<{ seq: number; type: string; taskId?: string }> = [];
  for (const e of x.events) {
    const types = e.kind === 'http' ? e.artifactTypes : e.kind === 'sse' ? e.artifactMediaTypes : undefined;
    for (const t of types ?? [])
      if (!decodable(x.profile.mediaTypes, t))
        out.push({ seq: e.seq, type: t, ...(e.kind === 'http' || e.kind === 'sse' ? (e.taskId ? { taskId: e.taskId } : {}) : {}) });
  }
  return out;
}

// --- TRUST-SIGNED-UNINTERPRETABLE -----------------------------------------------------------

export const TRUST_SIGNED_UNINTERPRETABLE: Rule = {
  id: 'TRUST-SIGNED-UNINTERPRETABLE',
  title: 'A trusted card whose outputs the client cannot decode is refused, or the client downgrades to a skill it can decode',
  family: 'trust',
  scope: 'own',
  sources: [SEED_GATE, SEED_STATUS_ONLY, SEED_PARAMS, SEED_ORPHANS],
  limits: [
    { doc: 'A2A v1.0.1 proto', section: 'SendMessageConfiguration.accepted_output_modes', quote: 'Agents SHOULD use this to tailor their output.' },
    {
      doc: 'seed 001',
      section: 'Decision Boundary',
      quote: "The gate must therefore be parameterized by the caller's consumption profile, not by the card alone.",
    },
  ],
  grades: [
    { when: 'no task: the card was read and the client refused (the keys it fetched are cited)', verdict: 'PASS' },
    { when: 'a task on the uninterpretable path (A2A has no field for it; the seed says refuse)', verdict: 'NON_STRICT (seed)' },
    { when: 'the same message re-sent after a decode failure, minting tasks; a task left working', verdict: 'FAIL (harm)' },
    {
      when: 'a decodable skill exists: a task that names it (Message.metadata.skillId, a convention of ours) and completes; or a refusal (the seed allows failing fast)',
      verdict: 'PASS',
    },
    { when: 'a status-only consumer (consumesArtifacts false): no task completed', verdict: 'FAIL (over-rejection)' },
    {
      when: 'a PASS where signed cards are required but no JWKS was fetched before the first send',
      verdict: 'NON_STRICT (nothing shows the card was verified first)',
    },
  ],
  notBinding: ['outputs the client can decode: nothing to refuse', 'a signature the client cannot trust: a TRUST-* rule of the signature grades it'],
  applies(s) {
    if (!s.truth.signing || breach(s)) return notBinding('the card is not signed in a way this client can trust: the signature rules grade it');
    if (!s.profile.consumesArtifacts)
      return binds('a status-only consumer ignores artifacts, so undecodable outputs cost it nothing: it must proceed', ['proceed']);
    const modes = outputModesFor(s.card, s.intent.skillId);
    const bad = modes.filter((m) => !decodable(s.profile.mediaTypes, m));
    if (bad.length === 0 || modes.some((m) => decodable(s.profile.mediaTypes, m) && includesMediaType(s.intent.acceptedOutputModes, m)))
      return notBinding('the card offers an output the client can decode and accepts');
    const alt = decodableSkills(s)[0];
    const sig = signal(
      s,
      s.intent.skillId ? '/skills' : '/defaultOutputModes',
      'seed',
      `${bad.join(', ')}: not in the client's registry (parameters significant)`,
    );
    if (alt)
      return binds(
        `the card's outputs (${bad.join(', ')}) are undecodable, but skill ${alt.id} emits ${alt.modes.join(', ')}`,
        ['downgrade', 'reject'],
        [sig, signal(s, `/skills/${alt.index}/outputModes`, 'seed', `skill ${alt.id}: ${alt.modes.join(', ')}`)],
      );
    return binds(`every output the card offers (${bad.join(', ')}) is undecodable for this client`, ['reject'], [sig]);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.acceptable.includes('proceed')) return trustHarm(x) ?? unverified(x, mustComplete(x, b.reason));
    const damage = trustHarm(x);
    if (damage) return damage;
    const alt = b.acceptable.includes('downgrade') ? decodableSkills(situationOf(x))[0] : undefined;
    const send = attempts(x);
    const onAlt = alt ? send.filter((e) => namedSkill(e) === alt.id) : [];
    const wrong = send.filter((e) => !alt || namedSkill(e) !== alt.id);
    if (wrong.length > 0) {
      const seen = undecodableSeen(x)[0];
      return upFrontMiss(
        this,
        b as Binding,
        `a task was sent on the uninterpretable path${seen ? ` and the client was shown ${seen.type} at #${seen.seq}` : ''}`,
        [
          ...cardReadEvidence(x),
          ...keyEvidence(x),
          ...wrong
            .slice(0, 3)
            .map((e) =>
              wireEvidence(e.seq, `${e.rpc!.method}${namedSkill(e) ? ` naming skill ${namedSkill(e)}` : ' naming no skill'} → ${e.taskId ?? 'no task'}`),
            ),
        ],
      );
    }
    if (alt) {
      if (onAlt.length > 0) return unverified(x, downgradeOutcome(x, alt, onAlt[0]!, `downgraded to skill ${alt.id} and completed`));
      const credit = creditRejection(
        x,
        `refused before sending (the seed allows failing fast; skill ${alt.id}, which emits ${alt.modes.join(', ')}, would have kept the channel)`,
      );
      return credit.kind === 'PASS' ? { ...credit, evidence: [...credit.evidence, ...keyEvidence(x)] } : credit;
    }
    const credit = creditRejection(x, 'refused before sending: the outputs are undecodable for this client');
    return credit.kind === 'PASS' ? { ...credit, evidence: [...credit.evidence, ...keyEvidence(x)] } : credit;
  },
};

// --- TRUST-NO-RETRY-ON-DECODE ---------------------------------------------------------------

export const TRUST_NO_RETRY_ON_DECODE: Rule = {
  id: 'TRUST-NO-RETRY-ON-DECODE',
  title: 'An artifact the client cannot decode ends its task: never re-sent, the task canceled',
  family: 'trust',
  scope: 'own',
  sources: [SEED_TERMINAL, SEED_ORPHANS],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.3.1', quote: 'Send Message operations MAY be idempotent. Agents may utilize the messageId to detect duplicate messages.' },
  ],
  grades: [
    {
      when: 'the same message re-sent after the decode failure more than once, or while an earlier task was still working (tasks accumulate, seed 001)',
      verdict: 'FAIL (harm)',
    },
    { when: 'a task left working at the end', verdict: 'FAIL (harm)' },
    {
      when: 're-sent once, after the client had canceled the earlier task, and nothing left working: no task accumulated',
      verdict: 'NON_STRICT (seed: the failure was treated as transient)',
    },
    {
      when: 're-sent, but the peer deduplicated it by messageId (§3.3.1): no harm here',
      verdict: 'NON_STRICT (seed: the failure was still treated as transient)',
    },
    {
      when: 'one task, ended (canceled by the client, or terminal)',
      verdict: 'PASS (NON_STRICT where signed cards are required and no JWKS was fetched before the first send)',
    },
    { when: 'a runtime that emits what the card lists and the client decodes (the control): no task completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['a status-only consumer', 'a card whose own outputs are undecodable (TRUST-SIGNED-UNINTERPRETABLE grades it)'],
  applies(s) {
    const rt = s.truth.runtime;
    const emitted = rt.outputs.filter((o) => o.channel === 'task' && (o.skill === undefined || o.skill === s.intent.skillId)).map((o) => o.mediaType);
    const bad = emitted.filter((m) => !decodable(s.profile.mediaTypes, m));
    if (!s.profile.consumesArtifacts) return notBinding('a status-only consumer decodes no artifact');
    if (bad.length === 0) return binds('the runtime emits what the card lists and the client decodes: the intent must complete', ['proceed']);
    const offered = outputModesFor(s.card, s.intent.skillId);
    if (!offered.some((m) => decodable(s.profile.mediaTypes, m))) return notBinding('the card itself offers nothing decodable', 'TRUST-SIGNED-UNINTERPRETABLE');
    return binds(
      `the card lists ${offered.join(', ')}, but the runtime emits ${bad.join(', ')}, which the client cannot decode`,
      ['proceed'],
      [signal(s, '/defaultOutputModes', 'seed', 'looks decodable; the runtime drifts')],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.signals.length === 0) return trustHarm(x) ?? unverified(x, mustComplete(x, b.reason));
    const damage = trustHarm(x);
    if (damage) return damage;
    const { deduplicated } = resends(x);
    const seen = undecodableSeen(x);
    if (deduplicated.length > 0)
      return verdict(
        'NON_STRICT',
        `the message was re-sent ${deduplicated.length} time(s) after the decode failure; the peer deduplicated it by messageId, so no task was added here, but a peer without idempotency would have minted ${deduplicated.length + 1}`,
        [
          ...seen.slice(0, 1).map((e) => wireEvidence(e.seq, `shown ${e.type}, which the client cannot decode`)),
          ...deduplicated
            .slice(0, 3)
            .map((e) => wireEvidence(e.seq, `re-sent (messageId ${e.messageId ?? '?'}), deduplicated to ${e.taskId ?? 'the same task'}`)),
        ],
        { basis: 'up-front', level: 'seed' },
      );
    if (x.tasks.length === 0) {
      if (x.outcome.kind === 'timeout') return timeout('no task and no decision by the deadline', wireTrail(x));
      return informational('no task was minted: nothing was decoded and nothing re-sent', cardReadEvidence(x));
    }
    if (x.outcome.kind === 'timeout' && x.tasks.some((t) => !isTerminal(t.state))) return timeout('the task was still open at the deadline', taskEvidence(x));
    const t = x.tasks[0]!;
    const cancel = canceledByClient(t, x) ? https(x).find((e) => e.rpc?.method === 'CancelTask' && e.taskId === t.id && !e.rpcError) : undefined;
    const count = x.tasks.length === 1 ? 'one task for the intent' : `${x.tasks.length} tasks, none of them a re-send after the decode failure, all ended`;
    return unverified(
      x,
      met(
        `${count}${seen[0] ? `; shown ${seen[0].type} at #${seen[0].seq}` : ''}; ${cancel ? `canceled at #${cancel.seq}` : `ended ${t.state}`}; not re-sent after it`,
        [...taskEvidence(x), ...(cancel ? [wireEvidence(cancel.seq, `CancelTask ${t.id}`)] : [])],
      ),
    );
  },
};

// --- the signature rules: TRUST-BAD-SIGNATURE, -UNKNOWN-KID, -UNTRUSTED-JKU, -ALG ------------

interface SignatureRuleSpec {
  id: RuleId;
  title: string;
  breach: Breach;
  sources: Source[];
  grades: string;
  notBinding: string[];
  limits?: Limit[];
}

function signatureRule(spec: SignatureRuleSpec): Rule {
  return {
    id: spec.id,
    title: spec.title,
    family: 'trust',
    scope: 'own',
    sources: spec.sources,
    limits: [
      {
        doc: 'A2A v1.0.1',
        section: '8.4',
        quote: 'Agent Cards MAY be digitally signed using JSON Web Signature (JWS) as defined in RFC 7515 to ensure authenticity and integrity.',
      },
      ...(spec.limits ?? []),
    ],
    grades: [
      { when: `${spec.grades}, and the profile requires signed cards: any task`, verdict: 'FAIL (security)' },
      { when: `${spec.grades}, and the profile does not require signed cards: any task`, verdict: 'NON_STRICT (§8.4.3 SHOULD verify before trusting)' },
      { when: 'no task, after the card was read', verdict: 'PASS' },
      {
        when: 'a sound signature from a trusted key (the control): no task completed',
        verdict:
          'FAIL (over-rejection); completed without any JWKS fetch before the first send while signed cards are required: NON_STRICT (nothing shows the card was verified)',
      },
    ],
    notBinding: spec.notBinding,
    applies(s) {
      const found = breach(s);
      if (!s.truth.signing) return notBinding('the card is not signed');
      if (!found) return binds('the card is soundly signed with a key the client trusts: it must proceed', ['proceed', 'downgrade']);
      if (found.kind !== spec.breach) return notBinding(`another way the signature fails: ${found.why}`);
      const required = s.profile.requireSignedCards;
      if (!required && s.profile.trustedJwks.length === 0)
        return notBinding('the client neither requires signed cards nor holds any trust anchor: a signature it cannot check is no signal to it');
      // §8.4.3's MUST is about expired (or revoked) keys a verifying client uses; a key not valid yet, or one a jku names
      // outside the run's trust anchors, rests on §8.4.3's SHOULD verify with keys from a trusted store: security.
      const level: Level = !required ? 'SHOULD' : spec.breach === 'kid' && s.truth.signing.key === 'expired' ? 'MUST' : 'security';
      return binds(
        `${found.why}${required ? '; the profile requires signed cards' : '; the profile does not require signed cards'}`,
        ['reject'],
        [signal(s, '/signatures/0', level, found.why)],
      );
    },
    grade(b, x) {
      if (!b.binds) return informational(b.reason);
      if (b.acceptable.includes('proceed')) {
        const done = trustHarm(x) ?? mustComplete(x, b.reason);
        const first = firstSend(x);
        if (done.kind === 'PASS' && x.profile.requireSignedCards && first && !jwksFetches(x).some((e) => e.seq < first.seq))
          return verdict(
            'NON_STRICT',
            'completed, but no JWKS was fetched before the first send although the profile requires signed cards: nothing on the wire shows the card was verified',
            [...keyEvidence(x), wireEvidence(first.seq, `first ${first.rpc!.method}`)],
            { basis: 'up-front', level: 'security' },
          );
        return done.kind === 'PASS' ? { ...done, evidence: [...done.evidence, ...keyEvidence(x)] } : done;
      }
      if (x.tasks.length > 0 || attempts(x).length > 0) {
        const miss = upFrontMiss(this, b as Binding, `the client tried to start a task on a card whose signature it cannot trust: ${b.reason}`, [
          ...cardReadEvidence(x),
          ...keyEvidence(x),
          ...taskEvidence(x),
        ]);
        const damage = trustHarm(x);
        return damage && miss.kind !== 'FAIL' ? damage : miss;
      }
      const credit = creditRejection(x, 'refused the card before any task');
      return credit.kind === 'PASS' ? { ...credit, evidence: [...credit.evidence, ...keyEvidence(x)] } : credit;
    },
  };
}

export const TRUST_BAD_SIGNATURE = signatureRule({
  id: 'TRUST-BAD-SIGNATURE',
  title: 'A card changed after it was signed is not trusted',
  breach: 'tamper',
  sources: [VERIFY_BEFORE_TRUST],
  grades: 'the card was changed after it was signed',
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});

export const TRUST_UNKNOWN_KID = signatureRule({
  id: 'TRUST-UNKNOWN-KID',
  title: 'A signature whose key is not a trusted key now (unknown kid, no trust anchor, expired or not yet valid) is not trusted',
  breach: 'kid',
  sources: [VERIFY_BEFORE_TRUST, TRUSTED_KEY_STORE, EXPIRED_KEYS],
  grades:
    "the kid is in no trusted JWKS, or its certificate (x5c) is outside its validity window (expired: MUST, §8.4.3; not yet valid: security, the window of the run's trust anchors)",
  limits: [TRUST_ANCHORS, KEY_WINDOW, ...[X5C_MATCH, CERT_VALIDITY].map(({ doc, section, quote }) => ({ doc, section, quote }))],
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});

export const TRUST_UNTRUSTED_JKU = signatureRule({
  id: 'TRUST-UNTRUSTED-JKU',
  title: "A jku naming keys the client never trusted (on the peer's own origin) is not followed into trust",
  breach: 'jku',
  sources: [VERIFY_BEFORE_TRUST, TRUSTED_KEY_STORE, JKU_SSRF],
  grades: "the key is published only at the jku on the peer's own origin, not among the run's trust anchors (security: §8.4.3 with RFC 8725 §3.10)",
  // §8.4.3 lets a verifier take the key through jku; what it does not say is that any jku is a trusted one. Which keys are
  // trusted in a run is the profile's trustedJwks, as the test protocol states it.
  limits: [TRUST_ANCHORS],
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});

export const TRUST_ALG = signatureRule({
  id: 'TRUST-ALG',
  title: 'A signature with alg "none", or HMAC keyed with the public key, is not trusted',
  breach: 'alg',
  sources: [VERIFY_BEFORE_TRUST, ALG_NONE, ALG_ALLOWLIST],
  grades: 'the signature is alg "none" or HS256 keyed with the public key',
  notBinding: ['an unsigned card', 'another way the signature fails (its own rule grades it)'],
});

// --- TRUST-PARAM-MATCH ----------------------------------------------------------------------

export const TRUST_PARAM_MATCH: Rule = {
  id: 'TRUST-PARAM-MATCH',
  title: 'Media types are compared with their parameters: profile and version significant, charset and type case-insensitive',
  family: 'trust',
  scope: 'own',
  sources: [SEED_PARAMS],
  limits: [
    { doc: MEDIA_CASE.doc, section: MEDIA_CASE.section, quote: MEDIA_CASE.quote },
    { doc: CHARSET_CASE.doc, section: CHARSET_CASE.section, quote: CHARSET_CASE.quote },
    { doc: 'RFC 9110', section: '8.3.1', quote: 'Parameter values might or might not be case-sensitive, depending on the semantics of the parameter name.' },
    {
      doc: 'RFC 6906',
      section: '3',
      quote:
        'A profile MUST NOT change the semantics of the resource representation when processed without profile knowledge, so that clients both with and without knowledge of a profiled resource can safely use the same representation.',
    },
  ],
  grades: [
    {
      when: 'the card offers the accepted type only with other parameters (seed 001: `profile="v3"` against a registry without it), and a task was sent. The seed\'s own `supports()` lets an offered type carry parameters its registry entry lacks, so a client that copies it takes this card as a match: the loose matching its Condition of Validity says masks the failure',
      verdict: 'NON_STRICT (seed; RFC 6906 lets a profile-unaware reader use a profiled representation, so no MUST) — FAIL where re-sends or orphans follow',
    },
    { when: 'no task, after the card was read', verdict: 'PASS' },
    {
      when: 'a skill emits an accepted type exactly: a task that names it (Message.metadata.skillId, a convention of ours) and completes, or a refusal',
      verdict: 'PASS',
    },
    { when: 'the same type with a charset or type/subtype in another case: no task completed', verdict: 'FAIL (over-rejection: RFC 9110 says they match)' },
  ],
  notBinding: [
    'a status-only consumer',
    'an accepted type the card offers exactly as the client spells it',
    "types that differ in more than their parameters (not this rule's question)",
  ],
  applies(s) {
    if (!s.profile.consumesArtifacts) return notBinding('a status-only consumer decodes no artifact');
    const offered = outputModesFor(s.card, s.intent.skillId);
    const wanted = s.intent.acceptedOutputModes.filter((m) => decodable(s.profile.mediaTypes, m));
    const exact = wanted.filter((m) => includesMediaType(offered, m));
    if (exact.length > 0) {
      const spelled = offered.filter((o) => exact.some((m) => includesMediaType([o], m) && o !== m));
      return spelled.length > 0
        ? binds(`the card spells ${spelled.join(', ')} differently from ${exact.join(', ')} only in case: the same type (RFC 9110 §8.3.1, §8.3.2)`, ['proceed'])
        : notBinding('the card offers an accepted type exactly');
    }
    const loose = offered.filter((o) => wanted.some((m) => looseMatch(o, m)));
    if (loose.length === 0) return notBinding('no offered type shares a type/subtype with an accepted one');
    const alt = decodableSkills(s)[0];
    if (alt)
      return binds(
        `the card offers ${loose.join(', ')}; the client decodes ${wanted.join(', ')}: the parameters differ, but skill ${alt.id} emits ${alt.modes.join(', ')}`,
        ['downgrade', 'reject'],
        [
          signal(s, '/defaultOutputModes', 'seed', `${loose.join(', ')}: parameters differ from the registry's`),
          signal(s, `/skills/${alt.index}/outputModes`, 'seed', `skill ${alt.id}: ${alt.modes.join(', ')}`),
        ],
      );
    return binds(
      `the card offers ${loose.join(', ')}; the client decodes ${wanted.join(', ')}: the parameters differ`,
      ['reject'],
      [signal(s, '/defaultOutputModes', 'seed', `${loose.join(', ')}: parameters differ from the registry's`)],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.acceptable.includes('proceed')) return trustHarm(x) ?? mustComplete(x, b.reason);
    const alt = b.acceptable.includes('downgrade') ? decodableSkills(situationOf(x))[0] : undefined;
    const send = attempts(x);
    if (alt && send.length > 0 && send.every((e) => namedSkill(e) === alt.id)) {
      return trustHarm(x) ?? downgradeOutcome(x, alt, send[0]!, `downgraded to skill ${alt.id}, which emits ${alt.modes.join(', ')}, and completed`);
    }
    if (x.tasks.length > 0 || send.length > 0) {
      const damage = trustHarm(x);
      if (damage) return damage;
      const seen = undecodableSeen(x)[0];
      return upFrontMiss(
        this,
        b as Binding,
        `a task was sent although the offered type only matches with its parameters stripped${seen ? `; shown ${seen.type} at #${seen.seq}` : ''}`,
        [...cardReadEvidence(x), ...taskEvidence(x)],
      );
    }
    return creditRejection(x, 'refused before sending: the offered type differs in its parameters');
  },
};

export const TRUST_RULES: Rule[] = [
  TRUST_SIGNED_UNINTERPRETABLE,
  TRUST_NO_RETRY_ON_DECODE,
  TRUST_BAD_SIGNATURE,
  TRUST_UNKNOWN_KID,
  TRUST_UNTRUSTED_JKU,
  TRUST_ALG,
  TRUST_PARAM_MATCH,
];
