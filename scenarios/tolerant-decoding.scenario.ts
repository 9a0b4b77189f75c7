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
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { CompletionPath } from '../harness/core/protocol/types.js';

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

type Future = NonNullable<PeerRuntime['futureValues']>;

const runtime = (unknownFields: Depth | undefined, futureValues?: Future): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 300,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  ...(unknownFields ? { unknownFields } : {}),
  ...(futureValues ? { futureValues } : {}),
});

const spec = 'A2A v1.0.1 §5.7 (implementations SHOULD ignore unrecognized fields); A2A v0.3.0 §3.4.3 (additional fields in JSON-RPC objects)';

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expect'> & {
    depth?: Depth;
    future?: Future;
    completion: CompletionPath;
    expectation?: string;
    taskClass?: 'async-completion' | 'artifact';
  },
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
    runtime: runtime(s.depth, s.future),
    signals:
      s.depth || s.future
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
    taskClass: s.taskClass ?? 'async-completion',
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
    id: 'tolerant-decoding/future-state-polled',
    title: 'A task state no version defines while the task works, polled',
    description:
      'While the task works, every answer names its state TASK_STATE_DEFERRED (v0.3: deferred), a state no version of A2A defines, in place of WORKING; it then completes as usual.',
    expectation:
      'Take the state you cannot name for what the proto calls it, indeterminate: not an end. Keep polling until a terminal state, and report it done.',
    future: 'state',
    completion: 'poll',
    expect: 'PASS',
  }),
  scenario({
    id: 'tolerant-decoding/future-state-streamed',
    title: 'A task state no version defines, on the stream',
    description:
      'The task is followed on a stream whose WORKING updates name the state TASK_STATE_DEFERRED (v0.3: deferred) instead; the stream ends at COMPLETED.',
    expectation: 'Read on past the state you cannot name, to the terminal event.',
    future: 'state',
    completion: 'stream',
    expect: 'PASS',
  }),
  scenario({
    id: 'tolerant-decoding/unknown-part-kind',
    title: 'An artifact part whose content is a kind no version defines',
    description:
      'The artifact the task produces carries its text part and, after it, a part whose content is a member no version of A2A defines (v0.3: a part kind no version defines), its media type text/plain.',
    expectation: 'Decode the parts you know and pass over the one you do not; report the task done.',
    future: 'part',
    completion: 'poll',
    taskClass: 'artifact',
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
