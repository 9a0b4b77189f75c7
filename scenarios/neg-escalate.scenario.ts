/**
 * NEG-ESCALATE (seed 000, Decision Boundary): a card that is internally contradictory for a live
 * audio task (streaming:false, audio/pcm input) but carries a vendor extension whose params name an
 * out-of-band negotiation endpoint. A client that knows the extension escalates; one that does not
 * is graded by the rule it would otherwise hit (NEG-LIVE-INPUT).
 */
import { defineScenarios } from '../harness/runner/define.js';
import type { PeerRuntime, Scenario } from '../harness/core/scenario.js';

const SESSION_EXT = 'urn:contoso:a2a:ext:audio-session:v1';

const card = {
  name: 'Contoso Live Interpreter',
  description: 'Interprets speech; live sessions are negotiated out of band.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '0.9.0',
  capabilities: {
    streaming: false,
    pushNotifications: false,
    extensions: [{ uri: SESSION_EXT, description: 'Live audio sessions negotiated out of band', required: false, params: { negotiationUrl: '{{negotiationUrl}}' } }],
  },
  defaultInputModes: ['text/plain', 'audio/pcm'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'interpret', name: 'Interpret', description: 'Interpret speech', tags: ['audio'] }],
};

const signals = [
  { pointer: '/capabilities/streaming', kind: 'spec-derivable' as const, note: 'streaming:false' },
  { pointer: '/defaultInputModes', kind: 'spec-derivable' as const, note: 'audio/pcm input' },
  { pointer: '/capabilities/extensions/0', kind: 'harness-convention' as const, note: `${SESSION_EXT} (a vendor extension) names the negotiation endpoint` },
];

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 120,
  input: { mediaType: 'audio/pcm', payloadBytes: 4 * 320, ceilingBytes: 16_384, acceptsFrames: false },
  streaming: false,
  push: { supported: false, delivery: 'plain', stallOnLostPush: false },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  negotiation: { path: '/negotiate', extension: SESSION_EXT },
};

const liveAudio = {
  taskClass: 'live-input' as const,
  input: { mediaType: 'audio/pcm', frames: 4, frameBytes: 320 },
  acceptedOutputModes: ['text/plain'],
  completion: 'poll' as const,
};

const common = { rule: 'NEG-ESCALATE', spec: 'seed 000 §Decision Boundary, §Condition of Validity', deadlineMs: 3000 };
const peer = { factory: 'contoso-extension', card, runtime, signals };

export default defineScenarios([
  {
    ...common,
    id: 'neg-escalate/known-extension',
    title: 'A known extension resolves the contradiction',
    description: 'Live-only audio on a non-streaming card that carries an extension the client knows, naming an out-of-band negotiation endpoint.',
    expectation: 'Escalate: call the negotiation endpoint and mint no task before it.',
    peer,
    profileConstraints: { liveOnlyInputModes: ['audio/pcm'], knownExtensions: [SESSION_EXT] },
    intent: liveAudio,
    expect: 'PASS',
  },
  {
    ...common,
    id: 'neg-escalate/unknown-extension',
    title: 'An unknown extension is no way out',
    description: 'The same card to a client that does not know the extension.',
    expectation: 'Graded by NEG-LIVE-INPUT: reject the live-input task before any task is minted.',
    peer,
    profileConstraints: { liveOnlyInputModes: ['audio/pcm'] },
    intent: liveAudio,
    expect: 'INFORMATIONAL',
  },
] satisfies Scenario[]);
