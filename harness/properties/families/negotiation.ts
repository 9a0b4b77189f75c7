/**
 * The negotiation family (docs/duties.md §1–4): live input to cards that do or do not stream, with and without a
 * session extension; push on cards whose callbacks need partner mTLS; outputs reachable only on a
 * resubscribe channel. Each runtime honours its card or drifts from it as the incidents of docs/duties.md do.
 */
import fc from 'fast-check';
import { CONTOSO_AUDIO_SESSION_EXT, RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../../core/protocol/extensions.js';
import type { CardSignal } from '../../core/scenario/card.js';
import type { ProfileConstraints } from '../../core/protocol/types.js';
import { agentCard } from '../agent-card.js';
import { clientProfile } from '../client-profile.js';
import type { Family, GeneratedCase } from '../family.js';
import { peerRuntime, type Drift } from '../peer-runtime.js';
import { taskIntent } from '../task-intent.js';

const PCM = 'audio/pcm';
const sessionExtension = {
  uri: CONTOSO_AUDIO_SESSION_EXT,
  description: 'Live audio sessions: opt in on the first message and the task takes audio frame by frame',
  required: false,
  params: { inputModes: [PCM] },
};

/** Live audio (or a text task) to an audio card that may or may not stream. */
const liveInput: fc.Arbitrary<GeneratedCase> = fc
  .record({ streaming: fc.boolean(), refusesFrames: fc.boolean(), textTask: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) })
  .chain((k) => {
    // A card that streams may hide a runtime that takes one payload only (the variant of docs/duties.md §1 with no signal on the card).
    const acceptsFrames = k.streaming && !k.refusesFrames;
    return liveCase(k.streaming, acceptsFrames, undefined, clientProfile({ produces: [PCM], mayRenegotiate: true }), k.textTask);
  });

/** Live audio to an audio card that declares a session extension: the client may know it, the runtime may not honour it. */
const sessionExtensionStory: fc.Arbitrary<GeneratedCase> = fc
  .record({
    streaming: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    honours: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0),
    knows: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0),
  })
  .chain((k) =>
    liveCase(
      k.streaming,
      k.streaming,
      { honoured: k.honours },
      clientProfile({ liveOnly: [PCM], mayRenegotiate: true, ...(k.knows ? { mayKnow: [CONTOSO_AUDIO_SESSION_EXT] } : {}) }).map((p) =>
        k.knows ? { ...p, knownExtensions: [CONTOSO_AUDIO_SESSION_EXT] } : p,
      ),
      false,
    ),
  );

function liveCase(
  streaming: boolean,
  acceptsFrames: boolean,
  extension: { honoured: boolean } | undefined,
  profile: fc.Arbitrary<ProfileConstraints>,
  textTask: boolean,
): fc.Arbitrary<GeneratedCase> {
  return fc
    .record({
      card: agentCard({
        inputModes: [PCM, 'text/plain'],
        extraInputModes: ['application/json'],
        streaming,
        ...(extension ? { extensions: [sessionExtension] } : {}),
      }),
      runtime: peerRuntime({ streaming: acceptsFrames }),
      profileConstraints: profile,
      intent: textTask
        ? taskIntent({ taskClass: 'text', input: { mediaType: 'text/plain' }, completion: ['poll'], accepted: ['text/plain'] })
        : taskIntent({ taskClass: 'live-input', input: { mediaType: PCM, binary: true }, completion: ['poll'], accepted: ['text/plain'] }),
    })
    .map(({ card, runtime, profileConstraints, intent }): GeneratedCase => {
      const payloadBytes = (intent.input.frames ?? 4) * (intent.input.frameBytes ?? 320);
      const drifts: Drift[] = streaming && !acceptsFrames ? ['refuses-frames'] : [];
      if (extension && !extension.honoured) drifts.push('missing-methods');
      const signals: CardSignal[] = [
        { pointer: '/capabilities/streaming', kind: 'field', note: `streaming:${streaming}` },
        { pointer: '/defaultInputModes', kind: 'MUST', note: `${PCM} is an input mode` },
      ];
      if (extension)
        signals.push({
          pointer: '/capabilities/extensions/0',
          kind: 'convention',
          note: `${CONTOSO_AUDIO_SESSION_EXT}: a vendor extension that opens a live session`,
        });
      return {
        story: extension ? 'session-extension' : 'live-input',
        rules: extension ? ['NEG-ESCALATE', 'NEG-LIVE-INPUT'] : ['NEG-LIVE-INPUT'],
        drifts,
        card,
        signals,
        runtime: {
          ...runtime,
          input: {
            mediaType: PCM,
            payloadBytes,
            ceilingBytes: 16_384,
            acceptsFrames,
            ...(extension?.honoured ? { sessionExtension: CONTOSO_AUDIO_SESSION_EXT } : {}),
          },
        },
        profileConstraints,
        intent,
        deadlineMs: 3000,
      };
    });
}

/** Push on a card that may require mTLS, to a runtime whose callbacks may need partner mTLS; receivers of every kind. */
const push: fc.Arbitrary<GeneratedCase> = fc
  .record({ mtls: fc.boolean(), lostCallbacks: fc.boolean(), fireAndForget: fc.integer({ min: 0, max: 4 }).map((n) => n === 0) })
  .chain((k) => {
    const delivery = k.mtls || k.lostCallbacks ? ('partner-mtls' as const) : ('plain' as const);
    return fc
      .record({
        card: agentCard({ pushNotifications: true, security: k.mtls ? 'mtls' : 'none' }),
        runtime: peerRuntime({ streaming: false, rpcListener: k.mtls ? 'mtls' : 'tls', push: { supported: true, delivery }, workMs: { min: 100, max: 250 } }),
        profileConstraints: clientProfile({ callbacks: ['none', 'https', 'mtls'] }),
        intent: taskIntent({
          taskClass: k.fireAndForget ? 'fire-and-forget' : 'async-completion',
          input: { mediaType: 'text/plain' },
          completion: ['push', 'poll'],
          accepted: ['text/plain'],
        }),
      })
      .map(({ card, runtime, profileConstraints, intent }): GeneratedCase => {
        const signals: CardSignal[] = [{ pointer: '/capabilities/pushNotifications', kind: 'MUST', note: 'push notifications offered' }];
        if (k.mtls)
          signals.push(
            { pointer: '/securitySchemes/partnerMtls', kind: 'MUST', note: 'an mTLS security scheme (for calls to the agent)' },
            { pointer: '/securityRequirements', kind: 'field', note: 'mTLS is required for every call; by docs/duties.md §2 the callbacks use it too' },
          );
        return {
          story: 'push',
          rules: ['NEG-PUSH-MTLS'],
          drifts: !k.mtls && k.lostCallbacks ? ['lost-callbacks'] : [],
          card,
          signals,
          runtime,
          profileConstraints,
          intent,
          deadlineMs: 3000,
        };
      });
  });

/** An output mode emitted only on SubscribeToTask, marked on the card or not, on a card that may stream. */
const resubscribeOnly: fc.Arbitrary<GeneratedCase> = fc
  .record({
    mode: fc.constantFrom(PCM, 'image/png', 'application/pdf'),
    streaming: fc.boolean(),
    marked: fc.boolean(),
    pollFallback: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    only: fc.boolean(),
  })
  .chain((k) =>
    fc
      .record({
        card: agentCard({
          outputModes: ['text/plain', k.mode],
          streaming: k.streaming,
          ...(k.marked
            ? {
                extensions: [
                  {
                    uri: RESUBSCRIBE_ONLY_OUTPUTS_EXT,
                    description: 'Output modes only emitted on SubscribeToTask',
                    required: false,
                    params: { modes: [k.mode] },
                  },
                ],
              }
            : {}),
        }),
        runtime: peerRuntime({
          streaming: k.streaming,
          outputs: [
            { mediaType: 'text/plain', channel: 'task' },
            { mediaType: k.mode, channel: 'subscribe-only' },
          ],
        }),
        profileConstraints: clientProfile({ decoders: [k.mode] }),
        intent: taskIntent({
          taskClass: 'artifact',
          input: { mediaType: 'text/plain' },
          completion: ['poll'],
          accepted: k.only ? [k.mode] : [k.mode, 'text/plain'],
          ...(k.only ? { required: k.mode } : {}),
        }),
      })
      .map(({ card, runtime, profileConstraints, intent }): GeneratedCase => {
        const signals: CardSignal[] = [
          { pointer: '/capabilities/streaming', kind: 'MUST', note: `streaming:${k.streaming}` },
          { pointer: '/defaultOutputModes', kind: 'MUST', note: `${k.mode} is declared as an output` },
        ];
        if (k.marked)
          signals.push({
            pointer: '/capabilities/extensions/0',
            kind: 'convention',
            note: `${RESUBSCRIBE_ONLY_OUTPUTS_EXT}: ${k.mode} is only emitted on SubscribeToTask`,
          });
        return {
          story: 'resubscribe-only',
          rules: ['NEG-RESUB-ONLY-OUTPUT'],
          drifts: ['resubscribe-only-outputs'],
          card,
          signals,
          runtime: { ...runtime, ...(k.pollFallback ? { pollFallback: true } : {}) },
          profileConstraints,
          intent,
          deadlineMs: 3000,
        };
      }),
  );

export const negotiationFamily: Family = {
  id: 'negotiation',
  title: 'Negotiation (docs/duties.md §1–4)',
  rules: ['NEG-LIVE-INPUT', 'NEG-PUSH-MTLS', 'NEG-RESUB-ONLY-OUTPUT', 'NEG-ESCALATE'],
  provokes: ['WIRE-NO-ORPHANS', 'WIRE-NO-BLIND-RETRY'],
  spec: 'docs/duties.md §1, §2, §3, §4',
  arbitrary: fc.oneof(liveInput, sessionExtensionStory, push, resubscribeOnly),
};
