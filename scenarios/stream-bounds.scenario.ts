/**
 * Stream bounds (issue 40, STREAM-BOUNDS): after its first event (the Task), the peer's stream sends a
 * line that never ends, or `data:` lines that never end in the blank line that dispatches an event:
 * 24 MiB of it, then nothing, the stream held open. The task goes on and completes; GetTask finds it.
 * A client gives the stream up within a bound of its own and follows the task another way; one with
 * no bound reads on until its deadline, and one that takes the stuck stream for the task's end claims
 * a success it never saw. Variant where it does not bind: an intent that polls. Told in both dialects.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { CompletionPath } from '../harness/core/protocol/types.js';

const card = {
  name: 'Contoso Minutes',
  description: 'Writes the minutes of a meeting, streaming its progress.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '1.2.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'minutes', name: 'Minutes', description: 'Writes minutes', tags: ['minutes'] }],
};

type Hostile = NonNullable<PeerRuntime['hostileStream']>;

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expect'> & { hostile: Hostile; completion?: CompletionPath; expectation?: string },
): Scenario => ({
  id: s.id,
  rule: 'STREAM-BOUNDS',
  title: s.title,
  description: s.description,
  expectation:
    s.expectation ??
    "Give the stream up within a bound of your own (the reference: 4 MiB in one event), then follow the task with GetTask to its end. Never take the stuck stream for the task's end.",
  spec: 'docs/protocol.md (a stream whose line or event never ends is broken); A2A v1.0.1 §3.1.3 (GetTask after a stream has ended)',
  peer: {
    factory: 'contoso-control',
    card,
    runtime: {
      cardListener: 'tls',
      rpcListener: 'tls',
      workMs: 400,
      streaming: true,
      push: { supported: false, delivery: 'plain' },
      outputs: [{ mediaType: 'text/plain', channel: 'task' }],
      hostileStream: s.hostile,
    },
    signals: [{ pointer: '/capabilities/streaming', kind: 'convention', note: 'the card offers streaming' }],
  },
  profileConstraints: {},
  intent: {
    taskClass: 'async-completion',
    input: { mediaType: 'text/plain', text: 'Write the minutes of the planning meeting' },
    acceptedOutputModes: ['text/plain'],
    completion: s.completion ?? 'stream',
  },
  // Room for a bound that costs CPU to reach: @a2a-js/sdk 1.3.0 parses up to its 4 MiB bound in about 3 s on a quiet
  // machine, over 9 s on a loaded one; a stream held into the deadline's last quarter (11.25 s) is then no bound's.
  deadlineMs: 15000,
  expect: s.expect,
});

const told: Scenario[] = [
  scenario({
    id: 'stream-bounds/no-line-end',
    title: 'After the first event, one data: line that never ends',
    description: 'The stream sends the Task, then a data: line of 24 MiB with no line end, then nothing, held open. The task completes behind it.',
    hostile: 'no-line-end',
    expect: 'PASS',
  }),
  scenario({
    id: 'stream-bounds/endless-event',
    title: 'After the first event, data: lines that never end in a blank line',
    description:
      'The stream sends the Task, then 24 MiB of data: lines of a KiB each and no blank line to dispatch them, then nothing, held open. The task completes behind it.',
    hostile: 'endless-event',
    expect: 'PASS',
  }),
  scenario({
    id: 'stream-bounds/poll-intent',
    title: 'Hostile streams, but the client polls',
    description: 'The same peer; the intent asks for polling, so a client need open no stream.',
    hostile: 'no-line-end',
    completion: 'poll',
    expectation: 'Poll the task to its end; a stream it never opens costs it nothing.',
    expect: 'INFORMATIONAL',
  }),
];

export default defineScenarios(bothDialects(told));
