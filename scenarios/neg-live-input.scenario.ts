/**
 * NEG-LIVE-INPUT (docs/duties.md §1, and the incident behind it): `streaming:false` with `audio/pcm`
 * among the input modes, on a peer whose input path takes only one complete payload under a ceiling
 * the card never shows. A2A v1.0 has no client-to-server input streaming (`streaming` covers the
 * agent's updates, §3.1.2); reading it as "can take input frame by frame" is the reading of docs/duties.md §1,
 * so the signal is at level `field`: a task minted to stream frames is NON_STRICT, and FAIL is kept for
 * the harm (a refused frame sent again, a task left in input-required).
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const batchAudioCard = {
  name: 'Contoso Transcriber',
  description: 'Transcribes audio and answers questions.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '3.2.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain', 'audio/pcm'],
  defaultOutputModes: ['text/plain', 'audio/pcm'],
  skills: [{ id: 'transcribe', name: 'Transcribe', description: 'Speech to text', tags: ['audio'] }],
};

const signals = [
  {
    pointer: '/capabilities/streaming',
    kind: 'field' as const,
    note: 'streaming:false — by docs/duties.md §1, input cannot be taken frame by frame (A2A v1.0 says nothing of input streaming)',
  },
  { pointer: '/defaultInputModes', kind: 'MUST' as const, note: 'audio/pcm is an input mode' },
];

const batchRuntime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 120,
  input: { mediaType: 'audio/pcm', payloadBytes: 4 * 320, ceilingBytes: 16_384, acceptsFrames: false },
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

const common = { rule: 'NEG-LIVE-INPUT', spec: 'docs/duties.md §1', deadlineMs: 3000 };

export default defineScenarios(
  bothDialects([
    {
      ...common,
      id: 'neg-live-input/live-audio-to-batch-peer',
      title: 'Live-only audio to a non-streaming peer',
      description:
        'The card says streaming:false and lists audio/pcm. The client can only produce the audio live, frame by frame. The peer takes one complete payload; a second frame gets HTTP 415 and the task sticks in input-required.',
      expectation:
        'Reject the live-input task before any task is minted (errorClass unnegotiable-card), after reading the card; or send the whole audio as one complete payload. Streaming frames into a task is NON_STRICT; a refused frame sent again, or the task left in input-required, is FAIL.',
      peer: { factory: 'contoso-audio-batch', card: batchAudioCard, runtime: batchRuntime, signals },
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'] },
      intent: liveAudio,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-live-input/bufferable-audio',
      title: 'Bufferable audio to a non-streaming peer (rule does not bind)',
      description: 'Same card and peer, but the client can buffer audio/pcm into one payload.',
      expectation: 'Proceed: send one complete payload and poll the task to completed. Rejecting is over-rejection.',
      peer: { factory: 'contoso-audio-batch', card: batchAudioCard, runtime: batchRuntime, signals },
      profileConstraints: { bufferableInputModes: ['text/plain', 'audio/pcm'] },
      intent: liveAudio,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-live-input/text-task-on-audio-card',
      title: 'A text task on the audio card (rule does not bind)',
      description: 'Same card and peer; the client is live-only for audio but this task is plain text. Negotiability is task-class scoped.',
      expectation: 'Proceed with the text task and poll it to completed. Rejecting the whole card loses a working text channel.',
      peer: { factory: 'contoso-audio-batch', card: batchAudioCard, runtime: batchRuntime, signals },
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'] },
      intent: {
        taskClass: 'text',
        input: { mediaType: 'text/plain', text: 'What was said in the last meeting?' },
        acceptedOutputModes: ['text/plain'],
        completion: 'poll',
      },
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-live-input/streaming-peer-control',
      title: 'Live audio to a streaming peer (control)',
      description: 'The card says streaming:true and the peer really takes frame after frame.',
      expectation: 'Proceed: send the frames to one task and poll it to completed.',
      peer: {
        factory: 'contoso-audio-batch',
        card: { ...batchAudioCard, capabilities: { streaming: true, pushNotifications: false } },
        runtime: { ...batchRuntime, streaming: true, input: { ...batchRuntime.input!, acceptsFrames: true } },
        signals: [{ pointer: '/capabilities/streaming', kind: 'field', note: 'streaming:true' }],
      },
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'] },
      intent: liveAudio,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-live-input/client-can-renegotiate',
      title: 'A client that can renegotiate its own capabilities (rule deferred)',
      description: 'Live-only audio to the batch peer, but the client can acquire buffering at negotiation time. docs/duties.md §1 defers the decision.',
      expectation: 'Not graded by this rule (INFORMATIONAL); the cross-cutting checks still apply.',
      peer: { factory: 'contoso-audio-batch', card: batchAudioCard, runtime: batchRuntime, signals },
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'], canRenegotiate: true },
      intent: liveAudio,
      expect: 'INFORMATIONAL',
    },
    {
      ...common,
      id: 'neg-live-input/no-signal-card-claims-streaming',
      title: 'The card claims streaming, the runtime is batch-only (no signal)',
      description:
        'The card says streaming:true, but the runtime answers frame 2 with HTTP 415 and leaves the task in input-required. Nothing on the card could tell.',
      expectation: 'Recover: do not resend the refused frame, cancel the stuck task, decide within the deadline.',
      peer: {
        factory: 'contoso-audio-batch',
        card: { ...batchAudioCard, capabilities: { streaming: true, pushNotifications: false } },
        runtime: batchRuntime,
        signals: [{ pointer: '/capabilities/streaming', kind: 'field', note: 'streaming:true — a stale or wrong claim; the rule has no signal here' }],
      },
      profileConstraints: { liveOnlyInputModes: ['audio/pcm'] },
      intent: liveAudio,
      expect: 'INFORMATIONAL',
    },
  ] satisfies Scenario[]),
);
