/**
 * The handshake family (docs/duties.md §8–11): skills that narrow the card's input modes, task endpoints that
 * challenge with a scheme the card may not list, push flags with or without methods behind them, and
 * cards from a CDN origin of their own that may be stale; any of the last three may meet a ceiling
 * on the payload that no card field shows.
 */
import fc from 'fast-check';
import type { CardSignal } from '../../core/scenario/card.js';
import { agentCard } from '../agent-card.js';
import { clientProfile } from '../client-profile.js';
import type { Family, GeneratedCase } from '../family.js';
import { peerRuntime, type Drift } from '../peer-runtime.js';
import { taskIntent } from '../task-intent.js';

const JSON_MT = 'application/json';
/** A ceiling on the request body no card field shows (the residual risk of docs/duties.md §8), and a text over it. */
const CEILING = 2048;
const LARGE_TEXT = 'Line of the incident log, kept for the ticket. '.repeat(130);

/**
 * One case in five of a story meets the runtime's hidden ceiling: HTTP 413 above 2 KiB of request,
 * and an intent whose text is over it. The story's rule stands down there (no signal covers it); the
 * cross-cutting checks still grade what the client does with the 413.
 */
function mayHitCeiling(story: fc.Arbitrary<GeneratedCase>): fc.Arbitrary<GeneratedCase> {
  return fc.tuple(story, fc.integer({ min: 0, max: 4 })).map(
    ([c, n]): GeneratedCase =>
      // n === 4, not 0: fast-check shrinks toward 0, so shrinking takes the ceiling away, never adds it.
      n !== 4 || c.intent.input.text === undefined
        ? c
        : {
            ...c,
            drifts: [...c.drifts, 'hidden-ceiling'],
            runtime: { ...c.runtime, maxRequestBytes: CEILING },
            intent: { ...c.intent, input: { ...c.intent.input, text: LARGE_TEXT } },
          },
  );
}

/** A skill that re-declares the card's input modes as JSON alone; the intent may name it, carry text or JSON. */
const skillOverride: fc.Arbitrary<GeneratedCase> = fc
  .record({ json: fc.boolean(), namesSkill: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0) })
  .chain((k) =>
    fc
      .record({
        card: agentCard({
          inputModes: ['text/plain', JSON_MT],
          outputModes: [JSON_MT],
          skills: [{ id: 'intake', name: 'Structured intake', description: 'Files a ticket from a JSON record', tags: ['tickets'], inputModes: [JSON_MT] }],
          maxExtraSkills: k.namesSkill ? 2 : 1,
        }),
        runtime: peerRuntime({ streaming: false, outputs: [{ mediaType: JSON_MT, channel: 'task' }] }),
        intent: taskIntent({
          taskClass: 'async-completion',
          input: { mediaType: k.json ? JSON_MT : 'text/plain' },
          completion: ['poll'],
          accepted: [JSON_MT],
          ...(k.namesSkill ? { skillId: 'intake' } : {}),
        }),
      })
      .map(({ card, runtime, intent }): GeneratedCase => {
        // An unnamed message goes to the card's defaults: the runtime narrows only the skill that says so.
        const signals: CardSignal[] = [
          { pointer: '/skills/0/inputModes', kind: 'MUST', note: 'skill intake takes application/json only, overriding the defaults' },
        ];
        return {
          story: 'skill-override',
          rules: ['HS-SKILL-OVERRIDE'],
          drifts: ['skill-narrowing'],
          card,
          signals,
          runtime: { ...runtime, skillInputModes: { intake: [JSON_MT] } },
          profileConstraints: {},
          intent,
          deadlineMs: 3000,
        };
      }),
  );

/** OAuth 2.0 on the card (required or only listed); the task endpoint takes its tokens, or challenges with DPoP. */
const challenge: fc.Arbitrary<GeneratedCase> = fc
  .record({ required: fc.boolean(), dpop: fc.boolean(), shortTokens: fc.integer({ min: 0, max: 4 }).map((n) => n === 0) })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ security: k.required ? 'oauth2' : 'oauth2-listed-only' }),
        runtime: peerRuntime({ streaming: false, workMs: k.shortTokens ? { min: 1500, max: 1700 } : { min: 60, max: 250 } }),
        intent: taskIntent({ taskClass: 'async-completion', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted: ['text/plain'] }),
      })
      .map(
        ({ card, runtime, intent }): GeneratedCase => ({
          story: 'auth-challenge',
          rules: ['HS-CHALLENGE-SCHEME'],
          drifts: k.dpop ? ['auth-challenge'] : [],
          card,
          signals: [{ pointer: '/securitySchemes', kind: 'field', note: 'OAuth 2.0 client credentials, with a token endpoint on the peer' }],
          runtime: { ...runtime, auth: { taskScheme: k.dpop ? 'DPoP' : 'Bearer', tokenTtlSeconds: k.shortTokens ? 1 : 300 } },
          profileConstraints: {},
          intent,
          // A task of up to 1.7 s whose token expires mid-way: the client's refresh and its own margin need room besides.
          deadlineMs: k.shortTokens ? 4000 : 3000,
        }),
      ),
  );

/** pushNotifications: true, with the push methods working, refused, or missing altogether. */
const aspirationalPush: fc.Arbitrary<GeneratedCase> = fc.record({ push: fc.constantFrom('works', 'not-supported', 'method-not-found') }).chain((k) =>
  fc
    .record({
      card: agentCard({ pushNotifications: true }),
      runtime: peerRuntime({
        streaming: false,
        workMs: { min: 200, max: 300 },
        push: k.push === 'works' ? { supported: true, delivery: 'plain' } : { supported: false, missing: k.push, delivery: 'plain' },
      }),
      profileConstraints: clientProfile({ callbacks: ['https', 'none'] }),
      intent: taskIntent({ taskClass: 'async-completion', input: { mediaType: 'text/plain' }, completion: ['push', 'poll'], accepted: ['text/plain'] }),
    })
    .map(
      ({ card, runtime, profileConstraints, intent }): GeneratedCase => ({
        story: 'aspirational-push',
        rules: ['HS-ASPIRATIONAL-CAPABILITY'],
        drifts: k.push === 'works' ? [] : ['missing-methods'],
        card,
        signals: [{ pointer: '/capabilities/pushNotifications', kind: 'field', note: 'push claimed' }],
        runtime,
        profileConstraints,
        intent,
        deadlineMs: 3000,
      }),
    ),
);

/** A card from a CDN origin (or the RPC origin), fresh or stale after a redeploy, with or without an extended card. */
const splitOrigin: fc.Arbitrary<GeneratedCase> = fc
  .record({ cdn: fc.boolean(), stale: fc.boolean(), extended: fc.boolean(), stream: fc.boolean() })
  .chain((k) =>
    fc
      .record({
        card: agentCard({ streaming: true, extendedAgentCard: k.extended }),
        runtime: peerRuntime({ streaming: !k.stale, cardListener: k.cdn ? 'cdn' : 'tls', workMs: { min: 150, max: 250 } }),
        intent: taskIntent({
          taskClass: 'async-completion',
          input: { mediaType: 'text/plain' },
          completion: k.stream ? ['stream'] : ['poll'],
          accepted: ['text/plain'],
        }),
      })
      .map(({ card, runtime, intent }): GeneratedCase => {
        const drifts: Drift[] = k.stale ? ['stale-card'] : [];
        // The runtime's own card: what the served one says, but the streaming the runtime really has.
        const own = { ...card, capabilities: { ...(card.capabilities as object), streaming: !k.stale } };
        return {
          story: 'split-origin',
          rules: ['HS-SPLIT-ORIGIN'],
          drifts,
          card,
          signals: k.cdn ? [{ pointer: '/supportedInterfaces/0/url', kind: 'field', note: 'the RPC is on another origin than the card' }] : [],
          runtime: { ...runtime, ...(k.extended ? { extendedCard: own } : {}) },
          profileConstraints: {},
          intent,
          deadlineMs: 4000,
        };
      }),
  );

export const handshakeFamily: Family = {
  id: 'handshake',
  title: 'Handshake (docs/duties.md §8–11)',
  rules: ['HS-SKILL-OVERRIDE', 'HS-CHALLENGE-SCHEME', 'HS-ASPIRATIONAL-CAPABILITY', 'HS-SPLIT-ORIGIN'],
  spec: 'docs/duties.md §8, §9, §10, §11; A2A v1.0.1 §3.1.11, §7.3',
  arbitrary: fc.oneof(skillOverride, mayHitCeiling(challenge), mayHitCeiling(aspirationalPush), mayHitCeiling(splitOrigin)),
};
