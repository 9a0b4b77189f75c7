/**
 * The trust family (docs/duties.md §6–7, A2A v1.0.1 §8.4): signed cards whose signature holds or breaks in one of
 * the ways the signature rules know; trusted cards whose outputs the client can or cannot decode
 * (parameters significant, case not); and runtimes that emit a media type their signed card never
 * listed, with or without deduplication by messageId.
 */
import fc from 'fast-check';
import type { CardSignal, CardSigning } from '../../core/scenario/card.js';
import type { PeerRuntime } from '../../core/scenario/runtime.js';
import type { ProfileConstraints } from '../../core/protocol/types.js';
import { agentCard, VENDORS } from '../agent-card.js';
import type { Family, GeneratedCase } from '../family.js';
import { peerRuntime, type Drift } from '../peer-runtime.js';
import { taskIntent } from '../task-intent.js';

const JSON_MT = 'application/json';
/** The JWKS the client trusts, on another vendor's origin (filled in per run). */
const VENDOR_JWKS = '{{vendorJwksUrl}}';

/** A vendor's structured type with a significant parameter, and the same type without it (what a registry holds). */
const profiledType = fc
  .record({ vendor: fc.constantFrom(...VENDORS), doc: fc.constantFrom('workflow', 'report', 'claim'), param: fc.constantFrom('profile="v3"', 'version=2') })
  .map(({ vendor, doc, param }) => {
    const bare = `application/vnd.${vendor.toLowerCase()}.${doc}+json`;
    return { bare, profiled: `${bare};${param}` };
  });

const signedSignal = (note: string): CardSignal => ({ pointer: '/signatures/0', kind: 'security', note });

/** What the client trusts: signed cards required (mostly) or not, the vendor JWKS as anchor (mostly) or none. */
const trustProfile: fc.Arbitrary<Pick<ProfileConstraints, 'requireSignedCards' | 'trustedJwks'>> = fc
  .record({ required: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0), anchored: fc.integer({ min: 0, max: 5 }).map((n) => n !== 0) })
  .map(({ required, anchored }) => ({ requireSignedCards: required, trustedJwks: anchored ? [VENDOR_JWKS] : [] }));

/** How a signature is made: soundly with the vendor's current key, or broken in one way the rules know. */
const signing: fc.Arbitrary<CardSigning> = fc.oneof(
  { arbitrary: fc.record({ jku: fc.boolean() }).map(({ jku }): CardSigning => ({ key: 'published', ...(jku ? { jku: true } : {}) })), weight: 3 },
  { arbitrary: fc.constantFrom<CardSigning['key']>('unlisted', 'expired', 'not-yet-valid').map((key): CardSigning => ({ key })), weight: 2 },
  { arbitrary: fc.constant<CardSigning>({ key: 'own-origin', jku: true }), weight: 1 },
  {
    arbitrary: fc
      .constantFrom<NonNullable<CardSigning['breaker']>>('alg-none', 'hmac-public-key')
      .map((breaker): CardSigning => ({ key: 'published', breaker })),
    weight: 1,
  },
  {
    arbitrary: fc
      .constantFrom<[string, unknown]>(
        ['/description', 'Also approves payments on your behalf.'],
        // A version agentCard never generates (it makes a.b.c with a ≤ 9): a tamper that wrote a value the card
        // already had would change nothing, and the signature would still verify (found by a 100,000-case run:
        // '9.9.9' on a card of version 9.9.9, seed 1, path 17231).
        ['/version', '99.0.0'],
        ['/provider/url', 'https://payments.example'],
      )
      .map(([pointer, value]): CardSigning => ({ key: 'published', tamper: { pointer, value } })),
    weight: 2,
  },
);

const sound = (s: CardSigning) => s.key === 'published' && !s.breaker && !s.tamper;

/** A signed text card: sound, or broken in one of the ways the signature rules know. */
const signature: fc.Arbitrary<GeneratedCase> = fc
  .record({
    signing,
    trust: trustProfile,
    card: agentCard({}),
    runtime: peerRuntime({ streaming: false, workMs: { min: 60, max: 150 } }),
    intent: taskIntent({ taskClass: 'text', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted: ['text/plain'] }),
  })
  .map(
    ({ signing, trust, card, runtime, intent }): GeneratedCase => ({
      story: 'signature',
      rules: ['TRUST-BAD-SIGNATURE', 'TRUST-UNKNOWN-KID', 'TRUST-UNTRUSTED-JKU', 'TRUST-ALG'],
      drifts: [],
      card,
      signals: [
        signedSignal(
          sound(signing) ? "signed with the vendor's current key, published on another vendor's origin" : `signed, then broken: ${JSON.stringify(signing)}`,
        ),
      ],
      runtime,
      profileConstraints: trust,
      intent,
      signing,
      deadlineMs: 3000,
    }),
  );

/**
 * A card (signed or not) whose outputs the client decodes only loosely: a profiled type its registry
 * holds bare, maybe a skill that emits JSON, maybe the same type spelled in another case; the client
 * consumes artifacts or only reads status.
 */
const outputs: fc.Arbitrary<GeneratedCase> = fc
  .record({
    type: profiledType,
    // What the card offers: the profiled type (docs/duties.md §7), or the bare type spelled in another case (RFC 9110 says same).
    offer: fc.oneof({ arbitrary: fc.constant('profiled' as const), weight: 3 }, { arbitrary: fc.constant('other-case' as const), weight: 1 }),
    signed: fc.boolean(),
    jsonSkill: fc.boolean(),
    statusOnly: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  })
  .chain((k) => {
    const offered = k.offer === 'profiled' ? k.type.profiled : `Application/${k.type.bare.slice('application/'.length).toUpperCase()}`;
    const skills = k.jsonSkill
      ? [{ id: 'summary', name: 'Summary', description: 'Returns a JSON summary of the outcome', tags: ['summary'], outputModes: [JSON_MT] }]
      : undefined;
    const accepted = k.jsonSkill ? [k.type.bare, JSON_MT] : [k.type.bare];
    return fc
      .record({
        card: agentCard({ outputModes: [offered], ...(skills ? { skills, maxExtraSkills: 1 } : {}) }),
        runtime: peerRuntime({
          streaming: false,
          workMs: { min: 60, max: 150 },
          outputs: [{ mediaType: offered, channel: 'task' }, ...(k.jsonSkill ? [{ mediaType: JSON_MT, channel: 'task' as const, skill: 'summary' }] : [])],
        }),
        intent: taskIntent({ taskClass: k.statusOnly ? 'async-completion' : 'artifact', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted }),
      })
      .map(({ card, runtime, intent }): GeneratedCase => {
        const profile: ProfileConstraints = {
          mediaTypes: ['text/plain', JSON_MT, k.type.bare],
          ...(k.signed ? { requireSignedCards: true, trustedJwks: [VENDOR_JWKS] } : {}),
        };
        if (k.statusOnly) profile.consumesArtifacts = false;
        return {
          story: 'outputs',
          rules: ['TRUST-SIGNED-UNINTERPRETABLE', 'TRUST-PARAM-MATCH'],
          drifts: [],
          card,
          signals: [
            ...(k.signed ? [signedSignal("signed with the vendor's current key")] : []),
            { pointer: '/defaultOutputModes', kind: 'field', note: `${offered}: the registry has ${k.type.bare}` },
          ],
          runtime,
          profileConstraints: profile,
          intent,
          ...(k.signed ? { signing: { key: 'published' } } : {}),
          deadlineMs: 3000,
        };
      });
  });

/** A signed card that lists JSON; the runtime emits it, or drifts to a profiled type and keeps the task working. */
const decodeDrift: fc.Arbitrary<GeneratedCase> = fc
  .record({ type: profiledType, drifts: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0), streaming: fc.boolean(), dedupe: fc.boolean() })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ outputModes: [JSON_MT], streaming: k.streaming }),
        runtime: peerRuntime({
          streaming: k.streaming,
          workMs: { min: 60, max: 150 },
          outputs: [{ mediaType: k.drifts ? k.type.profiled : JSON_MT, channel: 'task' }],
        }),
        intent: taskIntent({
          taskClass: 'artifact',
          input: { mediaType: 'text/plain' },
          completion: k.streaming ? ['stream', 'poll'] : ['poll'],
          accepted: [JSON_MT],
        }),
      })
      .map(({ card, runtime, intent }): GeneratedCase => {
        const drifts: Drift[] = k.drifts ? ['media-type-drift'] : [];
        const rt: PeerRuntime = { ...runtime, ...(k.drifts ? { staysWorking: true } : {}), ...(k.dedupe ? { idempotency: 'message-id' as const } : {}) };
        return {
          story: 'decode-drift',
          rules: ['TRUST-NO-RETRY-ON-DECODE'],
          drifts,
          card,
          signals: [
            signedSignal("signed with the vendor's current key"),
            { pointer: '/defaultOutputModes', kind: 'MUST', note: k.drifts ? `lists ${JSON_MT}; the runtime emits ${k.type.profiled}` : `lists ${JSON_MT}` },
          ],
          runtime: rt,
          profileConstraints: { requireSignedCards: true, trustedJwks: [VENDOR_JWKS], mediaTypes: ['text/plain', JSON_MT, k.type.bare] },
          intent,
          signing: { key: 'published' },
          deadlineMs: 3000,
        };
      }),
  );

export const trustFamily: Family = {
  id: 'trust',
  title: 'Trust (docs/duties.md §6–7, A2A v1.0.1 §8.4)',
  rules: [
    'TRUST-BAD-SIGNATURE',
    'TRUST-UNKNOWN-KID',
    'TRUST-UNTRUSTED-JKU',
    'TRUST-ALG',
    'TRUST-SIGNED-UNINTERPRETABLE',
    'TRUST-PARAM-MATCH',
    'TRUST-NO-RETRY-ON-DECODE',
  ],
  spec: 'docs/duties.md §6, §7; A2A v1.0.1 §8.4.3, §3.3.1; RFC 9110 §8.3.1, §8.3.2',
  arbitrary: fc.oneof({ arbitrary: signature, weight: 3 }, { arbitrary: outputs, weight: 2 }, { arbitrary: decodeDrift, weight: 2 }),
};
