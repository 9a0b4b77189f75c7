/**
 * Tolerant decoding (issue 40, TOLERANT-DECODING): a healthy agent whose every successful answer and
 * stream event carries a member no version of A2A defines, as a peer of a later version might send
 * (A2A v1.0.1 §5.7: "Implementations SHOULD ignore unrecognized fields in messages"). Beside the
 * answer's own members, or in every object of it (the Task, its status, messages, parts, artifacts),
 * polled and streamed. Variant where it does not bind: the same peer with no unknown member. Told in
 * both dialects.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime, Scenario } from '../harness/core/scenario.js';
import type { CompletionPath } from '../harness/core/vocabulary/types.js';

const card = {
  name: 'Contoso Digest',
  description: 'Writes a digest of the week, streaming its progress.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '4.2.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'digest', name: 'Digest', description: 'Writes a digest', tags: ['digest'] }],
};

type Depth = NonNullable<PeerRuntime['unknownFields']>;

const runtime = (unknownFields: Depth | undefined): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 300,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  ...(unknownFields ? { unknownFields } : {}),
});

const spec = 'A2A v1.0.1 §5.7 (implementations SHOULD ignore unrecognized fields); A2A v0.3.0 §3.4.3 (additional fields in JSON-RPC objects)';

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expect'> & { depth?: Depth; completion: CompletionPath; expectation?: string },
): Scenario => ({
  id: s.id,
  rule: 'TOLERANT-DECODING',
  title: s.title,
  description: s.description,
  expectation: s.expectation ?? 'Read past the unknown members, as if they were not there: follow the task to its end and report it done.',
  spec,
  peer: {
    factory: 'contoso-control',
    card,
    runtime: runtime(s.depth),
    signals: s.depth
      ? [
          {
            pointer: '/supportedInterfaces/0/protocolVersion',
            kind: 'SHOULD',
            note: 'a peer of this or a later version may send members the client does not know (§5.7)',
          },
        ]
      : [],
  },
  profileConstraints: {},
  intent: {
    taskClass: 'async-completion',
    input: { mediaType: 'text/plain', text: 'Write the weekly digest' },
    acceptedOutputModes: ['text/plain'],
    completion: s.completion,
  },
  deadlineMs: 8000,
  expect: s.expect,
});

const told: Scenario[] = [
  scenario({
    id: 'tolerant-decoding/top-level-polled',
    title: 'Answers with an unknown member beside their own, polled',
    description:
      'Every successful answer (SendMessage, GetTask) carries one member no version of A2A defines, beside its own. Nothing else differs from a healthy run.',
    depth: 'top',
    completion: 'poll',
    expect: 'PASS',
  }),
  scenario({
    id: 'tolerant-decoding/every-object-polled',
    title: 'An unknown member in every object of every answer, polled',
    description:
      'Every object of every successful answer carries one member no version of A2A defines: the Task, its status, its messages, parts and artifacts (free-form metadata and data payloads aside).',
    depth: 'every',
    completion: 'poll',
    expect: 'PASS',
  }),
  scenario({
    id: 'tolerant-decoding/every-object-streamed',
    title: 'An unknown member in every object of every stream event',
    description: 'The task is followed on a stream; every event, and every object in it, carries one member no version of A2A defines.',
    depth: 'every',
    completion: 'stream',
    expect: 'PASS',
  }),
  scenario({
    id: 'tolerant-decoding/control',
    title: 'The same agent, with only the members the protocol defines',
    description: 'The control: no unknown member anywhere. The rule does not bind.',
    completion: 'poll',
    expectation: 'Follow the task to its end.',
    expect: 'INFORMATIONAL',
  }),
];

export default defineScenarios(bothDialects(told));
