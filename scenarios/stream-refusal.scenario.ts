/**
 * Stream refusal (issue 40, STREAM-REFUSAL): the card offers streaming, but every streaming call is
 * refused before any event, in the forms SDK servers answer one: a plain JSON error, the same with no
 * Content-Type, an event stream whose one event is the error. SendMessage and GetTask are served as
 * usual. A client reports the refusal or does the task another way; one that hands the answer to its
 * stream parser and reports success has nothing to show for it. The same forms refuse SubscribeToTask
 * alone, after a stream that left its task early: the task goes on, and a client that takes the
 * refused subscription for its end reports a success it never saw. Variant where it does not bind: an
 * intent that polls. Told in both dialects.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { CompletionPath } from '../harness/core/protocol/types.js';

const card = {
  name: 'Contoso Briefs',
  description: 'Writes a short brief, streaming its progress.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '3.0.1',
  capabilities: { streaming: true, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'brief', name: 'Brief', description: 'Writes a brief', tags: ['brief'] }],
};

type Form = NonNullable<PeerRuntime['refuseStreams']>;

const runtime = (form: Form, only?: 'subscribe'): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: only ? 600 : 300,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  // Only subscriptions refused: the stream the client opens leaves its task after the first event, so it has one to follow.
  ...(only ? { refuseSubscribe: form, streamEnds: { afterEvents: 1 } } : { refuseStreams: form }),
});

const spec = 'A2A v1.0.1 §9.4.2 (a stream is HTTP 200 text/event-stream), §3.3.2 (errors); A2A #1262 (the form of a refused stream, unsettled)';
const streaming = [{ pointer: '/capabilities/streaming', kind: 'convention' as const, note: 'the card offers streaming' }];

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expect'> & { form: Form; only?: 'subscribe'; completion?: CompletionPath; expectation?: string },
): Scenario => ({
  id: s.id,
  rule: 'STREAM-REFUSAL',
  title: s.title,
  description: s.description,
  expectation:
    s.expectation ??
    'Surface the refusal: report it (rejected), or do the task without a stream (SendMessage, then GetTask). Never report success for a task no one minted.',
  spec,
  peer: { factory: 'contoso-control', card, runtime: runtime(s.form, s.only), signals: streaming },
  profileConstraints: {},
  intent: {
    taskClass: 'async-completion',
    input: { mediaType: 'text/plain', text: 'Write the quarterly brief' },
    acceptedOutputModes: ['text/plain'],
    completion: s.completion ?? 'stream',
  },
  deadlineMs: 8000,
  expect: s.expect,
});

const told: Scenario[] = [
  scenario({
    id: 'stream-refusal/plain-json-error',
    title: 'The stream refused with a plain JSON error',
    description:
      'SendStreamingMessage is answered 200 application/json with a JSON-RPC error (over HTTP+JSON, an HTTP error with a google.rpc.Status body; over gRPC, a status before any message). No task is minted.',
    form: 'json',
    expect: 'PASS',
  }),
  scenario({
    id: 'stream-refusal/untyped-error',
    title: 'The stream refused with an error body and no Content-Type',
    description: 'SendStreamingMessage is answered with the same error body, and no Content-Type at all. No task is minted.',
    form: 'untyped',
    expect: 'PASS',
  }),
  scenario({
    id: 'stream-refusal/error-event',
    title: 'The stream refused by an event stream of one error',
    description: 'SendStreamingMessage is answered 200 text/event-stream, and the one event is the error. No task is minted.',
    form: 'sse-error',
    expect: 'PASS',
  }),
  ...(['json', 'untyped', 'sse-error'] as const).map((form) =>
    scenario({
      id: `stream-refusal/subscribe-${form === 'json' ? 'plain-json-error' : form === 'untyped' ? 'untyped-error' : 'error-event'}`,
      title: `The stream leaves its task early, and the subscription is refused with ${form === 'json' ? 'a plain JSON error' : form === 'untyped' ? 'an error body and no Content-Type' : 'an event stream of one error'}`,
      description: `SendStreamingMessage sends the Task, then closes before the task ends; every SubscribeToTask is refused before any event${form === 'json' ? ' with a plain error answer' : form === 'untyped' ? ' with an error body and no Content-Type' : ', 200 text/event-stream whose one event is the error'}. The task completes about half a second later; GetTask finds it.`,
      expectation:
        'Take the refused subscription for what it is: follow the task with GetTask to its end (or report the refusal). Never report the task done on the strength of a subscription that carried no event.',
      form,
      only: 'subscribe',
      expect: 'PASS',
    }),
  ),
  scenario({
    id: 'stream-refusal/poll-intent',
    title: 'Streams refused, but the client polls',
    description: 'Every streaming call is refused with a plain JSON error; the intent asks for polling, so a client need open none.',
    expectation: 'Poll the task to its end; a refused stream it never opens costs it nothing.',
    form: 'json',
    completion: 'poll',
    expect: 'INFORMATIONAL',
  }),
];

export default defineScenarios(bothDialects(told));
