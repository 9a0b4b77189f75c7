/**
 * An independent reference: the reference client reads cards with its own reader and decides with
 * its own code (clients/common/card.ts, negotiate.ts); the oracle reads them through CardView and
 * decides where rules bind with `applies()`. No decision module is shared (test/architecture.test.ts).
 * Here fast-check generates cards, profiles, intents and runtimes, and for every rule that binds the
 * reference's up-front decision must be one the rule accepts. A disagreement fails with the shrunk
 * case, so a misreading in either is visible.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readClientCard } from '../clients/common/card.js';
import { IMPLEMENTED_EXTENSIONS, negotiate, type Plan } from '../clients/common/negotiate.js';
import { RULES } from '../harness/core/oracle/rules.js';
import type { Behaviour, Situation } from '../harness/core/oracle/rule.js';
import { validateCardV1 } from '../harness/core/card-validator.js';
import { profileFor } from '../harness/core/scenario/profile.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import { readCard } from '../harness/core/protocol/card-view.js';
import { CONTOSO_AUDIO_SESSION_EXT, RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../harness/core/protocol/extensions.js';
import { DEFAULT_PROFILE, TASK_CLASSES, type ClientProfile, type TaskIntent } from '../harness/core/protocol/types.js';

const MODES = ['text/plain', 'audio/pcm', 'application/json'] as const;
const modes = (min = 0) => fc.subarray([...MODES], { minLength: min });

/** A structurally valid v1.0 card over the fields the negotiation rules read. */
const cardArb = fc
  .record({
    streaming: fc.option(fc.boolean(), { nil: undefined }),
    push: fc.option(fc.boolean(), { nil: undefined }),
    security: fc.constantFrom('none', 'mtls', 'mtls-or-key', 'key'),
    inputModes: modes(1),
    outputModes: modes(1),
    resubModes: fc.option(modes(1), { nil: undefined }),
    session: fc.boolean(),
    skill: fc.option(fc.record({ inputModes: fc.option(modes(1), { nil: undefined }), outputModes: fc.option(modes(1), { nil: undefined }) }), {
      nil: undefined,
    }),
    version: fc.constantFrom('1.0', '1.0', '0.3'),
  })
  .map((c) => {
    const schemes: Record<string, unknown> = {};
    const requirements: unknown[] = [];
    if (c.security !== 'none') {
      if (c.security !== 'key') schemes.partnerMtls = { mtlsSecurityScheme: {} };
      if (c.security !== 'mtls') schemes.apiKey = { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } };
      if (c.security === 'mtls') requirements.push({ schemes: { partnerMtls: { list: [] } } });
      if (c.security === 'key') requirements.push({ schemes: { apiKey: { list: [] } } });
      if (c.security === 'mtls-or-key') requirements.push({ schemes: { partnerMtls: { list: [] } } }, { schemes: { apiKey: { list: [] } } });
    }
    const extensions = [
      ...(c.resubModes ? [{ uri: RESUBSCRIBE_ONLY_OUTPUTS_EXT, required: false, params: { modes: c.resubModes } }] : []),
      ...(c.session ? [{ uri: CONTOSO_AUDIO_SESSION_EXT, required: false, params: { inputModes: ['audio/pcm'] } }] : []),
    ];
    return {
      name: 'Generated',
      description: 'generated',
      supportedInterfaces: [{ url: 'https://127.0.0.1:1/t/x/rpc', protocolBinding: 'JSONRPC', protocolVersion: c.version }],
      version: '1',
      capabilities: {
        ...(c.streaming !== undefined ? { streaming: c.streaming } : {}),
        ...(c.push !== undefined ? { pushNotifications: c.push } : {}),
        ...(extensions.length ? { extensions } : {}),
      },
      ...(Object.keys(schemes).length ? { securitySchemes: schemes, securityRequirements: requirements } : {}),
      defaultInputModes: c.inputModes,
      defaultOutputModes: c.outputModes,
      skills: [
        {
          id: 's1',
          name: 'Skill',
          description: 'a skill',
          tags: ['t'],
          ...(c.skill?.inputModes ? { inputModes: c.skill.inputModes } : {}),
          ...(c.skill?.outputModes ? { outputModes: c.skill.outputModes } : {}),
        },
      ],
    } as Record<string, unknown>;
  });

/** A per-run profile as the harness hands one out: constraints over the defaults, extensions only as declared. */
const profileArb: fc.Arbitrary<ClientProfile> = fc
  .record({
    bufferable: modes(),
    liveOnly: modes(),
    callback: fc.constantFrom('none' as const, 'https' as const, 'mtls' as const),
    known: fc.subarray([CONTOSO_AUDIO_SESSION_EXT]),
    canRenegotiate: fc.boolean(),
  })
  .map((p) =>
    profileFor(
      DEFAULT_PROFILE,
      { bufferableInputModes: p.bufferable, liveOnlyInputModes: p.liveOnly, callback: p.callback, knownExtensions: p.known, canRenegotiate: p.canRenegotiate },
      IMPLEMENTED_EXTENSIONS,
    ),
  );

const intentArb: fc.Arbitrary<TaskIntent> = fc
  .record({
    taskClass: fc.constantFrom(...TASK_CLASSES),
    mediaType: fc.constantFrom(...MODES),
    accepted: modes(),
    required: fc.option(fc.constantFrom(...MODES), { nil: undefined }),
    completion: fc.constantFrom('poll' as const, 'push' as const, 'stream' as const),
    skill: fc.boolean(),
  })
  // Live input is audio, frame by frame.
  .map((i) => (i.taskClass === 'live-input' ? { ...i, mediaType: 'audio/pcm' as const } : i))
  .map((i) => ({
    taskClass: i.taskClass,
    input: i.mediaType === 'audio/pcm' ? { mediaType: i.mediaType, frames: 4, frameBytes: 320 } : { mediaType: i.mediaType, text: 'hi' },
    acceptedOutputModes: i.required && !i.accepted.includes(i.required) ? [...i.accepted, i.required] : i.accepted,
    ...(i.required ? { requiredOutputMode: i.required } : {}),
    completion: i.completion,
    ...(i.skill ? { skillId: 's1' } : {}),
  }));

const runtimeArb: fc.Arbitrary<PeerRuntime> = fc
  .record({
    acceptsFrames: fc.boolean(),
    session: fc.boolean(),
    streaming: fc.boolean(),
    pushSupported: fc.boolean(),
    delivery: fc.constantFrom('plain' as const, 'partner-mtls' as const),
    outputs: fc.subarray([...MODES], { minLength: 1 }),
    subscribeOnly: fc.subarray([...MODES]),
    pollFallback: fc.boolean(),
  })
  .map((r) => ({
    cardListener: 'tls',
    rpcListener: 'tls',
    workMs: 50,
    input: {
      mediaType: 'audio/pcm',
      payloadBytes: 1280,
      ceilingBytes: 16_384,
      acceptsFrames: r.acceptsFrames,
      ...(r.session ? { sessionExtension: CONTOSO_AUDIO_SESSION_EXT } : {}),
    },
    streaming: r.streaming,
    push: { supported: r.pushSupported, delivery: r.delivery },
    outputs: [
      ...r.outputs.filter((m) => !r.subscribeOnly.includes(m)).map((mediaType) => ({ mediaType, channel: 'task' as const })),
      ...r.subscribeOnly.map((mediaType) => ({ mediaType, channel: 'subscribe-only' as const })),
    ],
    ...(r.pollFallback ? { pollFallback: true } : {}),
  }));

/** The reference's up-front decision, as the behaviour each rule reads (the aspect of the plan it is about). */
function behaviourOf(rule: string, plan: Plan, intent: TaskIntent): Behaviour {
  if (plan.action === 'reject') return 'reject';
  switch (rule) {
    case 'NEG-PUSH-MTLS':
      // Whether the plan registers push at all: `downgrade` is no push, whatever the intent preferred.
      return plan.completion === 'push' ? 'proceed' : 'downgrade';
    case 'NEG-RESUB-ONLY-OUTPUT':
      return plan.degradations.includes('resubscribe->polling') ? 'downgrade' : 'proceed';
    default:
      // NEG-LIVE-INPUT, NEG-ESCALATE: how the input goes out.
      if (plan.optIn) return 'escalate';
      return intent.taskClass === 'live-input' && intent.input.frames && plan.input === 'one-payload' ? 'downgrade' : 'proceed';
  }
}

const NEGOTIATION = RULES.filter((r) => r.family === 'negotiation');

/**
 * Situations shaped around live audio to a card without streaming (the narrowest bindings, the
 * extension among them, are rare in the general space): mixed into the general ones.
 */
const liveSituationArb = fc
  .tuple(cardArb, profileArb, intentArb, runtimeArb, fc.boolean())
  .map(([card, profile, intent, runtime, session]): [Record<string, unknown>, ClientProfile, TaskIntent, PeerRuntime] => {
    const caps = card.capabilities as Record<string, unknown>;
    const extensions = session ? [{ uri: CONTOSO_AUDIO_SESSION_EXT, required: false, params: { inputModes: ['audio/pcm'] } }] : [];
    return [
      {
        ...card,
        capabilities: { ...caps, streaming: false, ...(extensions.length ? { extensions } : {}) },
        defaultInputModes: ['audio/pcm', 'text/plain'],
        supportedInterfaces: [{ url: 'https://127.0.0.1:1/t/x/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      },
      {
        ...profile,
        liveOnlyInputModes: ['audio/pcm'],
        bufferableInputModes: profile.bufferableInputModes.filter((m) => m !== 'audio/pcm'),
        canRenegotiate: false,
      },
      { ...intent, taskClass: 'live-input', input: { mediaType: 'audio/pcm', frames: 4, frameBytes: 320 }, skillId: undefined },
      { ...runtime, input: { ...runtime.input!, acceptsFrames: false, ...(session ? { sessionExtension: CONTOSO_AUDIO_SESSION_EXT } : {}) } },
    ];
  });
const situationArb = fc.oneof({ arbitrary: fc.tuple(cardArb, profileArb, intentArb, runtimeArb), weight: 4 }, { arbitrary: liveSituationArb, weight: 1 });

describe("differential: the reference client's own reading against the oracle's rules", () => {
  it('every generated card is a structurally valid A2A v1.0 card (the generator is honest)', () => {
    fc.assert(
      fc.property(cardArb, (card) => validateCardV1(JSON.parse(JSON.stringify(card))).length === 0),
      { numRuns: 300 },
    );
  });

  it('wherever a negotiation rule binds, the reference decides something the rule accepts', () => {
    let binding = 0;
    const seen = new Set<string>();
    fc.assert(
      fc.property(situationArb, ([card, profile, intent, runtime]) => {
        const s: Situation = { truth: { factory: 'generated', runtime, signals: [] }, card: readCard(card), profile, intent };
        const plan = negotiate(readClientCard(card), profile, intent);
        for (const rule of NEGOTIATION) {
          const b = rule.applies(s);
          if (!b.binds) continue;
          const got = behaviourOf(rule.id, plan, intent);
          binding++;
          seen.add(`${rule.id}:${b.acceptable.join('|')}`);
          if (!b.acceptable.includes(got))
            throw new Error(
              `${rule.id} binds (${b.reason}) and accepts ${b.acceptable.join(' or ')}; the reference decided ${got}${plan.action === 'reject' ? ` (${plan.notes})` : ''}`,
            );
        }
      }),
      { numRuns: 5000 },
    );
    // The property must not pass vacuously: every kind of binding occurred.
    expect(binding).toBeGreaterThan(500);
    for (const k of [
      'NEG-LIVE-INPUT:reject|downgrade',
      'NEG-LIVE-INPUT:proceed|downgrade',
      'NEG-PUSH-MTLS:downgrade',
      'NEG-PUSH-MTLS:proceed|downgrade',
      'NEG-RESUB-ONLY-OUTPUT:proceed|downgrade',
      'NEG-ESCALATE:escalate',
    ])
      expect([...seen], k).toContain(k);
  });

  it("wherever HS-SKILL-OVERRIDE binds, the reference's reading of a skill's own input modes is one the rule accepts", () => {
    const rule = RULES.find((r) => r.id === 'HS-SKILL-OVERRIDE')!;
    const seen = new Set<string>();
    fc.assert(
      fc.property(situationArb, ([card, profile, intent, runtime]) => {
        const s: Situation = { truth: { factory: 'generated', runtime, signals: [] }, card: readCard(card), profile, intent };
        const b = rule.applies(s);
        if (!b.binds) return;
        const plan = negotiate(readClientCard(card), profile, intent);
        const got: Behaviour = plan.action === 'reject' ? 'reject' : 'proceed';
        seen.add(`${b.acceptable.join('|')}`);
        if (!b.acceptable.includes(got))
          throw new Error(
            `HS-SKILL-OVERRIDE binds (${b.reason}) and accepts ${b.acceptable.join(' or ')}; the reference decided ${got}${plan.action === 'reject' ? ` (${plan.notes})` : ''}`,
          );
      }),
      { numRuns: 3000 },
    );
    expect([...seen].sort()).toEqual(['proceed', 'reject']);
    // And it can fail: binding blind to the card's defaults sends what the skill leaves out.
    const narrowed = {
      name: 'N',
      description: 'n',
      supportedInterfaces: [{ url: 'https://127.0.0.1:1/t/x/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1',
      capabilities: {},
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['application/json'],
      skills: [{ id: 's1', name: 'S', description: 's', tags: ['t'], inputModes: ['application/json'] }],
    };
    const intent: TaskIntent = {
      taskClass: 'text',
      input: { mediaType: 'text/plain', text: 'hi' },
      acceptedOutputModes: ['application/json'],
      completion: 'poll',
      skillId: 's1',
    };
    const runtime: PeerRuntime = {
      cardListener: 'tls',
      rpcListener: 'tls',
      workMs: 50,
      streaming: false,
      push: { supported: false, delivery: 'plain' },
      outputs: [{ mediaType: 'application/json', channel: 'task' }],
    };
    const b = rule.applies({ truth: { factory: 'generated', runtime, signals: [] }, card: readCard(narrowed), profile: DEFAULT_PROFILE, intent });
    expect(b.binds && b.acceptable).toEqual(['reject']);
    expect(negotiate(readClientCard(narrowed), DEFAULT_PROFILE, intent, { ignoresSkillModes: true }).action).toBe('proceed');
  });

  it('the property can fail: a reference that ignored streaming:false would be named', () => {
    const card = {
      name: 'Fixed',
      description: 'fixed',
      supportedInterfaces: [{ url: 'https://127.0.0.1:1/t/x/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1',
      capabilities: { streaming: false },
      defaultInputModes: ['audio/pcm'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's1', name: 'Skill', description: 'a skill', tags: ['t'] }],
    };
    const profile = profileFor(DEFAULT_PROFILE, { liveOnlyInputModes: ['audio/pcm'] }, []);
    const intent: TaskIntent = {
      taskClass: 'live-input',
      input: { mediaType: 'audio/pcm', frames: 4, frameBytes: 320 },
      acceptedOutputModes: [],
      completion: 'poll',
    };
    const runtime: PeerRuntime = {
      cardListener: 'tls',
      rpcListener: 'tls',
      workMs: 50,
      input: { mediaType: 'audio/pcm', payloadBytes: 1280, ceilingBytes: 16_384, acceptsFrames: false },
      streaming: false,
      push: { supported: false, delivery: 'plain' },
      outputs: [{ mediaType: 'text/plain', channel: 'task' }],
    };
    const s: Situation = { truth: { factory: 'generated', runtime, signals: [] }, card: readCard(card), profile, intent };
    const b = RULES.find((r) => r.id === 'NEG-LIVE-INPUT')!.applies(s);
    expect(b.binds && b.acceptable).toEqual(['reject', 'downgrade']);
    const sloppy = negotiate(readClientCard(card), profile, intent, { streamsLiveAudio: true });
    expect(b.binds && b.acceptable.includes(behaviourOf('NEG-LIVE-INPUT', sloppy, intent))).toBe(false);
  });
});
