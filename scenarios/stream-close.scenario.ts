/**
 * Streams closed after use (issue 40, STREAM-CLOSE): a streaming agent that writes the task's terminal
 * event and keeps the stream open (A2A v1.0.1 §3.1.2 has it close). A client reads the terminal event
 * as the end, reports, and closes the stream; one that waits for the end of the stream stalls, and
 * one that reports and never closes it leaves a connection held. Variants where the rule does not
 * bind: the same agent closing its streams, and an intent that polls. Told in both dialects.
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
  version: '2.3.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'minutes', name: 'Minutes', description: 'Writes minutes', tags: ['minutes'] }],
};

const runtime = (streamsStayOpen: boolean): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 300,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  ...(streamsStayOpen ? { streamsStayOpen } : {}),
});

const spec = 'A2A v1.0.1 §3.1.2 (a task’s stream closes at its terminal state), §3.5.2 (the task’s lifecycle is not the stream’s)';

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expect'> & { stayOpen: boolean; completion: CompletionPath; expectation?: string },
): Scenario => ({
  id: s.id,
  rule: 'STREAM-CLOSE',
  title: s.title,
  description: s.description,
  expectation: s.expectation ?? 'Take the terminal event for the end: report the task done, and close the stream (the agent left it open).',
  spec,
  peer: {
    factory: 'contoso-control',
    card,
    runtime: runtime(s.stayOpen),
    signals: [{ pointer: '/capabilities/streaming', kind: 'convention', note: 'the card offers streaming' }],
  },
  profileConstraints: {},
  intent: {
    taskClass: 'async-completion',
    input: { mediaType: 'text/plain', text: 'Write the minutes of the review' },
    acceptedOutputModes: ['text/plain'],
    completion: s.completion,
  },
  deadlineMs: 6000,
  expect: s.expect,
});

const told: Scenario[] = [
  scenario({
    id: 'stream-close/left-open-after-terminal',
    title: 'The stream stays open after the task’s terminal event',
    description:
      'The task is followed on a stream; the agent writes the COMPLETED event and then keeps the stream open, writing nothing more (over gRPC: no trailers).',
    stayOpen: true,
    completion: 'stream',
    expect: 'PASS',
  }),
  scenario({
    id: 'stream-close/control',
    title: 'The same agent, closing its streams',
    description: 'The control: the agent closes the stream after the terminal event, as §3.1.2 says. The rule does not bind.',
    stayOpen: false,
    completion: 'stream',
    expectation: 'Follow the task on its stream to the end.',
    expect: 'INFORMATIONAL',
  }),
  scenario({
    id: 'stream-close/poll-intent',
    title: 'Streams stay open, but the client polls',
    description: 'The agent would leave its streams open; the intent asks for polling, so a client need open none.',
    stayOpen: true,
    completion: 'poll',
    expectation: 'Poll the task to its end.',
    expect: 'INFORMATIONAL',
  }),
];

export default defineScenarios(bothDialects(told));
