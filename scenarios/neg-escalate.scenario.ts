/**
 * NEG-ESCALATE (docs/duties.md §4): a card that is internally contradictory for a live
 * audio task (streaming:false, audio/pcm input) but declares, in `capabilities.extensions` (spec
 * §4.6.1), a vendor extension that opens a live session: a message that opts into it (the
 * `A2A-Extensions` header or `Message.extensions`) starts a task that takes frame after frame. A
 * client that declared the extension in its hello opts in; one that did not is graded by the rule it
 * would otherwise hit (NEG-LIVE-INPUT). The harness never assigns an extension to a client.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import { CONTOSO_AUDIO_SESSION_EXT } from '../harness/core/protocol/extensions.js';

const SESSION_EXT = CONTOSO_AUDIO_SESSION_EXT;

const card = {
  name: 'Contoso Live Interpreter',
  description: 'Interprets speech; live sessions are negotiated out of band.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '0.9.0',
  capabilities: {
    streaming: false,
    pushNotifications: false,
    extensions: [
      {
        uri: SESSION_EXT,
        description: 'Live audio sessions: opt in on the first message and the task takes audio frame by frame',
        required: false,
        params: { inputModes: ['audio/pcm'] },
      },
    ],
  },
  defaultInputModes: ['text/plain', 'audio/pcm'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'interpret', name: 'Interpret', description: 'Interpret speech', tags: ['audio'] }],
};

const signals = [
  { pointer: '/capabilities/streaming', kind: 'field' as const, note: 'streaming:false — by docs/duties.md §1, no frames' },
  { pointer: '/defaultInputModes', kind: 'MUST' as const, note: 'audio/pcm input' },
  {
    pointer: '/capabilities/extensions/0',
    kind: 'convention' as const,
    note: `${SESSION_EXT}: a vendor extension (docs/extensions.md) that opens a live session`,
  },
];

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 120,
  input: { mediaType: 'audio/pcm', payloadBytes: 4 * 320, ceilingBytes: 16_384, acceptsFrames: false, sessionExtension: SESSION_EXT },
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
};

const liveAudio = {
  taskClass: 'live-input' as const,
  input: { mediaType: 'audio/pcm', frames: 4, frameBytes: 320 },
  acceptedOutputModes: ['text/plain'],
  completion: 'poll' as const,
};

const common = { rule: 'NEG-ESCALATE', spec: 'docs/duties.md §4; A2A v1.0.1 §4.6.1, §3.2.6 (opting into an extension)', deadlineMs: 3000 };
const peer = { factory: 'contoso-extension', card, runtime, signals };

export default defineScenarios(
  bothDialects([
    {
      ...common,
      id: 'neg-escalate/known-extension',
      title: 'An extension the client implements resolves the contradiction',
      description:
        'Live-only audio on a non-streaming card that declares a vendor extension opening a live session. The scenario is graded this way only for a client that declared the extension in its hello.',
      expectation: 'Opt into the extension on the first message (A2A-Extensions header or Message.extensions), send the frames to that task, see it completed.',
      peer,
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'], knownExtensions: [SESSION_EXT] },
      intent: liveAudio,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-escalate/unknown-extension',
      title: 'An unknown extension is no way out',
      description: 'The same card to a client that does not implement the extension.',
      expectation: 'Graded by NEG-LIVE-INPUT, the rule it would otherwise hit: reject the live-input task before any task is minted, after reading the card.',
      peer,
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'] },
      intent: liveAudio,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-escalate/extension-not-honoured',
      title: 'The card declares the extension; the runtime does not honour it',
      description:
        "As known-extension, but the runtime ignores the opt-in: frame 2 gets HTTP 415 and the task sticks in input-required. Found by the negotiation property family: opting in was graded NON_STRICT by NEG-LIVE-INPUT, against the rule's own table.",
      expectation:
        "Opting in is the card's way and earns no blame; the recovery is graded by the WIRE checks: never resend the refused frame, cancel the stuck task, decide within the deadline.",
      peer: { ...peer, factory: 'contoso-audio-batch', runtime: { ...runtime, input: { ...runtime.input!, sessionExtension: undefined } } },
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'], knownExtensions: [SESSION_EXT] },
      intent: liveAudio,
      expect: 'INFORMATIONAL',
    },
  ] satisfies Scenario[]),
);
