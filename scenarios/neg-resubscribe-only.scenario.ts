/**
 * NEG-RESUB-ONLY-OUTPUT (docs/duties.md §3): an output mode the peer emits only on
 * SubscribeToTask, which a non-streaming peer refuses (-32004). No A2A v1.0 field can say this;
 * only this harness's convention extension does, so a task minted anyway is NON_STRICT and FAIL is
 * kept for the harm on the wire: SubscribeToTask repeated after -32004, or a wait past the deadline.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import { RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../harness/core/protocol/extensions.js';

const RESUB_EXT = RESUBSCRIBE_ONLY_OUTPUTS_EXT;

const card = {
  name: 'Contoso Voice Reports',
  description: 'Writes reports; spoken versions are streamed to subscribers.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '1.4.0',
  capabilities: {
    streaming: false,
    pushNotifications: false,
    extensions: [{ uri: RESUB_EXT, description: 'Output modes only emitted on SubscribeToTask', required: false, params: { modes: ['audio/pcm'] } }],
  },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'audio/pcm'],
  skills: [{ id: 'report', name: 'Report', description: 'Write a report', tags: ['reports'] }],
};

const signals = [
  { pointer: '/capabilities/streaming', kind: 'MUST' as const, note: 'streaming:false — SubscribeToTask is refused (spec §3.3.4)' },
  { pointer: '/defaultOutputModes', kind: 'MUST' as const, note: 'audio/pcm is declared as an output' },
  { pointer: '/capabilities/extensions/0', kind: 'convention' as const, note: `${RESUB_EXT}: audio/pcm is only emitted on SubscribeToTask` },
];

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 120,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [
    { mediaType: 'text/plain', channel: 'task' },
    { mediaType: 'audio/pcm', channel: 'subscribe-only' },
  ],
};

const audioOnly = {
  taskClass: 'artifact' as const,
  input: { mediaType: 'text/plain', text: 'Read me the quarterly report' },
  acceptedOutputModes: ['audio/pcm'],
  requiredOutputMode: 'audio/pcm',
  completion: 'poll' as const,
};

const common = { rule: 'NEG-RESUB-ONLY-OUTPUT', spec: 'docs/duties.md §3', deadlineMs: 3000 };
const profileConstraints = { mediaTypes: ['text/plain', 'audio/pcm'] };

export default defineScenarios(
  bothDialects([
    {
      ...common,
      id: 'neg-resub-only/only-output-unreachable',
      title: 'The only acceptable output is resubscribe-only',
      description: 'The application needs audio/pcm; the peer emits it only on SubscribeToTask, which it refuses because streaming is off.',
      expectation:
        'Reject before sending, after reading the card (the intended task class requires a path marked unreachable). Minting a task anyway is NON_STRICT; repeating SubscribeToTask after -32004, or still waiting for the mode at the deadline after the task was seen terminal, is FAIL.',
      peer: { factory: 'contoso-resubscribe-only', card, runtime, signals },
      profileConstraints,
      intent: audioOnly,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-resub-only/other-output-acceptable',
      title: 'Another acceptable output is reachable (optional path)',
      description: 'The application prefers audio/pcm but also accepts text/plain, which the task carries when polled.',
      expectation: 'Proceed, poll to completion, and record the resubscribe->polling degradation.',
      peer: { factory: 'contoso-resubscribe-only', card, runtime, signals },
      profileConstraints,
      intent: { ...audioOnly, acceptedOutputModes: ['audio/pcm', 'text/plain'], requiredOutputMode: undefined },
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-resub-only/fallback-the-card-omits',
      title: 'The mode is reachable through a fallback the card omits (rule does not bind)',
      description: 'Same card, but the runtime also returns the audio/pcm artifact on GetTask.',
      expectation: 'Not graded by this rule: rejecting and proceeding are both defensible from the card.',
      peer: { factory: 'contoso-resubscribe-only', card, runtime: { ...runtime, pollFallback: true }, signals },
      profileConstraints,
      intent: audioOnly,
      expect: 'INFORMATIONAL',
    },
    {
      ...common,
      id: 'neg-resub-only/no-signal',
      title: 'Resubscribe-only output with no card signal',
      description: 'The card lists audio/pcm without the convention extension; the runtime still only emits it on SubscribeToTask.',
      expectation: 'Recover: poll to completion, notice the missing output, do not repeat a refused SubscribeToTask, do not wait past the deadline.',
      peer: {
        factory: 'contoso-resubscribe-only',
        card: { ...card, capabilities: { streaming: false, pushNotifications: false } },
        runtime,
        signals: signals.slice(0, 2),
      },
      profileConstraints,
      intent: audioOnly,
      expect: 'INFORMATIONAL',
    },
  ] satisfies Scenario[]),
);
