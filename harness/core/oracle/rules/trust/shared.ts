/**
 * Trust rules (docs/duties.md §6–7): a signed card is verified before anything else, against keys the client
 * already trusts; a trusted card can still be uninterpretable, and a decode failure is terminal for
 * its task. A2A §8.4 says how a card is signed and verified; it does not say what a client does with
 * a card whose signature fails, nor anything about media-type parameters, so each rule says which
 * sentence it rests on and at which level.
 *
 * What the family's rules share (sources, helpers); each rule is a file of its own beside this one.
 */
import type { CardSigning } from '../../../scenario/card.js';
import type { Limit, Source } from '../../../sources.js';
import { type HttpEvent, type TaskRecord, isTerminal } from '../../../transcript.js';
import { absentEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef, type Verdict } from '../../../verdict.js';
import { includesMediaType } from '../../../protocol/media-type.js';
import { readCard } from '../../../protocol/card-view.js';
import { canceledByClient, firstSend, jwksFetches, startAttempts, taskEvidence, type GradeInput } from '../../evidence.js';
import { harm, met, timeout, type Situation } from '../../rule.js';

export const VERIFY_BEFORE_TRUST: Source = {
  doc: 'A2A v1.0.1',
  section: '8.4.3',
  quote: 'Clients SHOULD verify at least one signature before trusting an Agent Card',
  level: 'security',
};

export const TRUSTED_KEY_STORE: Source = {
  doc: 'A2A v1.0.1',
  section: '8.4.3',
  quote: 'Retrieve the public key using the kid and jku (or from a trusted key store)',
  level: 'security',
};

/** Which keys a run's client trusts: the run's trust anchors, as the test protocol states them (no RFC keyword: the level comes from §8.4.3). */
export const TRUST_ANCHORS: Limit = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, Trust anchors and decoders',
  quote:
    "trustedJwks (list of https:// URLs): the JWKS documents the client trusts for card signatures. Fetch them over TLS with tls.caFile as for any peer; look the signature's kid up there; follow a jku only where it names one of these URLs.",
};

export const SEED_ORPHANS: Source = {
  doc: 'docs/duties.md',
  section: '7 Outputs the client cannot decode',
  quote: 'A decode failure taken for a transient one leads to the message being sent again: a second task on the agent while the first is still working.',
  level: 'field',
  role: 'harm',
};

export const SEED_PARAMS: Source = {
  doc: 'docs/duties.md',
  section: '7 Outputs the client cannot decode',
  quote:
    'Whether the client can decode an output is decided by its media type with parameters (profile, charset, version); matching that drops the parameters hides the gap until the decoder fails.',
  level: 'field',
};

export type Breach = 'tamper' | 'alg' | 'kid' | 'jku';

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

export const breach = (s: Situation) => breachOf(s.truth.signing, s.truth.vendorKeysTrusted === true);

/** Evidence of where the client looked for keys, before its first send (or at all). */
export function keyEvidence(x: GradeInput): EvidenceRef[] {
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

/** Every attempt to start a task, answered or not: the client trusted the card enough to send. */
export const attempts = startAttempts;

/** The attempts the peer took (2xx, no JSON-RPC error). */
export const sends = (x: GradeInput) => attempts(x).filter((e) => !e.rpcError && e.status !== undefined && e.status < 300);

/**
 * New-task sends, after the client was shown an artifact it cannot decode, that repeat an earlier
 * send's params (messageId aside): the decode failure treated as transient (docs/duties.md §7). A repeat
 * before any decode failure is not this rule's (a lost answer retried with the same messageId is
 * what §3.3.1's deduplication is for).
 */
export function resends(x: GradeInput): { minted: HttpEvent[]; deduplicated: HttpEvent[] } {
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
export function trustHarm(x: GradeInput): Verdict | undefined {
  const { minted } = resends(x);
  const left = x.tasks.filter((t) => !isTerminal(t.state));
  // One re-send, after every earlier task had ended (the client canceled it), and nothing left working: the failure was
  // treated as transient once (the miss of docs/duties.md §7), but no task accumulated: not harm.
  const earlier = x.tasks.filter((t) => t.mintedSeq < (minted[0]?.seq ?? 0));
  if (minted.length === 1 && left.length === 0 && earlier.length > 0 && earlier.every((t) => canceledByClient(t, x) && endedBefore(t, minted[0]!.seq)))
    return verdict(
      'NON_STRICT',
      `the message was re-sent once after the decode failure, at #${minted[0]!.seq}, after the earlier task had ended; nothing was left working, so no task accumulated (docs/duties.md §7's harm), but the failure was treated as transient`,
      [wireEvidence(minted[0]!.seq, `${minted[0]!.rpc!.method} re-sent with the same params, minting ${minted[0]!.taskId ?? 'a task'}`), ...taskEvidence(x)],
      { basis: 'up-front', level: 'field' },
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
export const endedBefore = (t: TaskRecord, seq: number) => t.history.some((h) => h.seq < seq && isTerminal(h.state));

/** Parameter-aware membership in the client's decoder registry. */
export const decodable = (registry: readonly string[], mt: string) => includesMediaType(registry, mt);

/** Other skills of the card that list an output the intent accepts and the client decodes (their own `outputModes`). */
export function decodableSkills(s: Situation): Array<{ id: string; index: number; modes: string[] }> {
  const wanted = s.intent.acceptedOutputModes;
  return s.card.skills
    .map((k, index) => ({ id: k.id, index, modes: k.outputModes ?? [] }))
    .filter((k) => k.id !== s.intent.skillId && k.modes.some((m) => decodable(s.profile.mediaTypes, m) && includesMediaType(wanted, m)));
}

/**
 * Tasks sent to a skill the client can decode (`first` the first of them): met once one completed;
 * TIMEOUT when none had by the deadline; otherwise the downgrade lost the task (over-rejection).
 */
export function downgradeOutcome(x: GradeInput, alt: { id: string }, first: HttpEvent, reason: string): Verdict {
  const done = x.tasks.find((t) => t.state === 'TASK_STATE_COMPLETED');
  if (done)
    return met(reason, [wireEvidence(first.seq, `${first.rpc!.method} naming skill ${alt.id}`), ledgerEvidence(done.mintedSeq, `task ${done.id} completed`)]);
  if (x.outcome.kind === 'timeout') return timeout(`downgraded to skill ${alt.id} but saw no completion by the deadline`, taskEvidence(x));
  return verdict('FAIL', `downgraded to skill ${alt.id}, but the task did not complete`, taskEvidence(x), { basis: 'incomplete' });
}

/**
 * Where signed cards are required and the card is signed: a task sent without any JWKS fetched
 * before it shows no verification on the wire (docs/rules.md, Trust: a signed card is verified
 * first). No harm: NON_STRICT.
 */
export function unverified(x: GradeInput, done: Verdict): Verdict {
  const first = firstSend(x);
  if (done.kind !== 'PASS' || !x.profile.requireSignedCards || !readCard(x.card).signed || !first || jwksFetches(x).some((e) => e.seq < first.seq)) return done;
  return verdict(
    'NON_STRICT',
    `${done.reason}; but no JWKS was fetched before the first send although the profile requires signed cards: nothing on the wire shows the card was verified first`,
    [...done.evidence, ...keyEvidence(x), wireEvidence(first.seq, `first ${first.rpc!.method}`)],
    { basis: 'up-front', level: 'security' },
  );
}

/** The skill a send named (`Message.metadata.skillId`, docs/extensions.md). */
export function namedSkill(e: HttpEvent): string | undefined {
  const p = e.rpc?.params as { message?: { metadata?: { skillId?: unknown } } } | undefined;
  const id = p?.message?.metadata?.skillId;
  return typeof id === 'string' ? id : undefined;
}

/** Artifact types the client was shown that its registry cannot decode, with where: in an HTTP answer or an SSE event. */
export function undecodableSeen(x: GradeInput): Array<{ seq: number; type: string; taskId?: string }> {
  const out: Array<{ seq: number; type: string; taskId?: string }> = [];
  for (const e of x.events) {
    const types = e.kind === 'http' ? e.artifactTypes : e.kind === 'sse' ? e.artifactMediaTypes : undefined;
    for (const t of types ?? [])
      if (!decodable(x.profile.mediaTypes, t))
        out.push({ seq: e.seq, type: t, ...(e.kind === 'http' || e.kind === 'sse' ? (e.taskId ? { taskId: e.taskId } : {}) : {}) });
  }
  return out;
}
