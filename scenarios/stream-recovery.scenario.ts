/**
 * Stream recovery (issue 27, STREAM-RECOVERY): a task lifecycle stream ends before its task does
 * (closed cleanly after its first event, or the connection cut), while the task goes on to complete.
 * The client follows the task up, with SubscribeToTask (whose first event is the Task, §3.1.6) or
 * GetTask ("the final state of a task … after a stream has ended", §3.1.3); sending the message
 * again mints a second task for one intent, the harm SDK users meet as "data loss during SSE
 * reconnection". Variants where it does not bind: a stream that ends at the terminal state, a client
 * that polls, a fire-and-forget task. Told in both dialects where v0.3 can say it (message/stream,
 * tasks/resubscribe); a stream cut before it named the task is v1.0 only (v0.3 has no tasks/list to
 * find the task by its message).
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { CompletionPath, TaskClass } from '../harness/core/protocol/types.js';

const card = {
  name: 'Contoso Reports',
  description: 'Compiles a short report, streaming its progress.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '2.2.0',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'report', name: 'Report', description: 'Compiles a report', tags: ['reports'] }],
};

const runtime = (extra: Partial<PeerRuntime>): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 500,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  ...extra,
});

const intent = (completion: CompletionPath, taskClass: TaskClass = 'async-completion') => ({
  taskClass,
  input: { mediaType: 'text/plain', text: 'Compile the weekly incident report' },
  acceptedOutputModes: ['text/plain'],
  completion,
});

const spec = 'A2A v1.0.1 §3.1.3, §3.1.6, §3.5.2, §3.3.1 (Send Message is only MAY-idempotent), §3.7';
const streaming = [{ pointer: '/capabilities/streaming', kind: 'convention' as const, note: 'the card offers streaming' }];

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expectation' | 'expect'> & { rt: Partial<PeerRuntime>; intent: Scenario['intent'] },
): Scenario => ({
  id: s.id,
  rule: 'STREAM-RECOVERY',
  title: s.title,
  description: s.description,
  expectation: s.expectation,
  spec,
  peer: { factory: 'contoso-control', card, runtime: runtime(s.rt), signals: streaming },
  profileConstraints: {},
  intent: s.intent,
  deadlineMs: 8000,
  expect: s.expect,
});

const told: Scenario[] = [
  scenario({
    id: 'stream-recovery/closed-after-first-event',
    title: 'The stream closes after its first event; the task goes on',
    description:
      'SendStreamingMessage opens a stream that sends the Task, then closes cleanly without a terminal event; every SubscribeToTask stream does the same. The task completes about half a second later.',
    expectation: 'Follow the task up (SubscribeToTask, then GetTask) until it is terminal. Sending the message again mints a second task for one intent.',
    rt: { streamEnds: { afterEvents: 1 } },
    intent: intent('stream'),
    expect: 'PASS',
  }),
  scenario({
    id: 'stream-recovery/ends-at-terminal',
    title: 'The stream ends at the terminal state (the control)',
    description: 'SendStreamingMessage streams the Task, its updates and the terminal state, then closes: nothing ends early.',
    expectation: 'Read the stream to its end; nothing to recover.',
    rt: {},
    intent: intent('stream'),
    expect: 'INFORMATIONAL',
  }),
  scenario({
    id: 'stream-recovery/poll-intent',
    title: 'Streams close early, but the client polls',
    description: 'Every stream of this peer closes after its first event; the intent asks for polling, so a client need open none.',
    expectation: 'Poll the task to its end; a stream that closes early costs a polling client nothing.',
    rt: { streamEnds: { afterEvents: 1 } },
    intent: intent('poll'),
    expect: 'INFORMATIONAL',
  }),
  scenario({
    id: 'stream-recovery/fire-and-forget',
    title: 'Streams close early, on a fire-and-forget task',
    description: 'Every stream of this peer closes after its first event; the task is fire-and-forget.',
    expectation: 'Send it; there is nothing to follow.',
    rt: { streamEnds: { afterEvents: 1 } },
    intent: intent('stream', 'fire-and-forget'),
    expect: 'INFORMATIONAL',
  }),
];

const v1Only: Scenario[] = [
  scenario({
    id: 'stream-recovery/cut-before-first-event',
    title: 'The stream is cut before it names the task',
    description:
      "The first SendStreamingMessage's connection is dropped right after its headers: the agent took the message and minted a task, and no event reached the client. The task completes about half a second later.",
    expectation:
      'Find the task the message minted (ListTasks, by the message in its history) and follow it; never send the message again, which mints a second task (Send Message is only MAY-idempotent, §3.3.1).',
    rt: { drop: { afterBytes: 0, calls: 1, method: 'SendStreamingMessage' } },
    intent: intent('stream'),
    expect: 'PASS',
  }),
];

export default defineScenarios([...bothDialects(told), ...v1Only]);
