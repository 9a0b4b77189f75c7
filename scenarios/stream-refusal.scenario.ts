/**
 * Stream refusal (issue 40, STREAM-REFUSAL): the card offers streaming, but every streaming call is
 * refused before any event, in the forms SDK servers answer one: a plain JSON error, the same with no
 * Content-Type, an event stream whose one event is the error. SendMessage and GetTask are served as
 * usual. A client reports the refusal or does the task another way; one that hands the answer to its
 * stream parser and reports success has nothing to show for it. Variant where it does not bind: an
 * intent that polls. Told in both dialects.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime, Scenario } from '../harness/core/scenario.js';
import type { CompletionPath } from '../harness/core/vocabulary/types.js';

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

const runtime = (refuseStreams: Form): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 300,
  streaming: true,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
  refuseStreams,
});

const spec = 'A2A v1.0.1 §9.4.2 (a stream is HTTP 200 text/event-stream), §3.3.2 (errors); A2A #1262 (the form of a refused stream, unsettled)';
const streaming = [{ pointer: '/capabilities/streaming', kind: 'convention' as const, note: 'the card offers streaming' }];

const scenario = (
  s: Pick<Scenario, 'id' | 'title' | 'description' | 'expect'> & { form: Form; completion?: CompletionPath; expectation?: string },
): Scenario => ({
  id: s.id,
  rule: 'STREAM-REFUSAL',
  title: s.title,
  description: s.description,
  expectation:
    s.expectation ??
    'Surface the refusal: report it (rejected), or do the task without a stream (SendMessage, then GetTask). Never report success for a task no one minted.',
  spec,
  peer: { factory: 'contoso-control', card, runtime: runtime(s.form), signals: streaming },
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
