/**
 * The cross-cutting checks as scenarios of their own, where a peer behaves in a way the other
 * families do not show. WIRE-HONEST-REPORT: an agent may answer SendMessage with a direct Message
 * and no task (A2A v1.0.1 §3.1.1); `proceeded` is the honest report then. WIRE-NO-DESTROYED-WORK: a
 * gateway answers the first poll 429 with Retry-After; the task goes on behind it.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const card = {
  name: 'Contoso Quick Answers',
  description: 'Answers short questions directly, without a task.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'answer', name: 'Answer', description: 'Answer a short question', tags: ['qa'] }],
};

export default defineScenarios(
  bothDialects([
    {
      id: 'wire/message-reply',
      rule: 'WIRE-HONEST-REPORT',
      title: 'The agent answers with a Message, not a task',
      description: 'SendMessage is answered with a direct Message (spec §3.1.1): no task is minted, nothing is left to poll.',
      expectation: 'Take the Message as the answer and report proceeded with no task ids; do not poll for a task that does not exist.',
      spec: 'A2A v1.0.1 §3.1.1 (Send Message: a Task or a direct Message)',
      peer: {
        factory: 'contoso-control',
        card,
        runtime: {
          cardListener: 'tls',
          rpcListener: 'tls',
          workMs: 50,
          streaming: false,
          push: { supported: false, delivery: 'plain' },
          outputs: [{ mediaType: 'text/plain', channel: 'task' }],
          reply: 'message',
        },
        signals: [],
      },
      profileConstraints: {},
      intent: {
        taskClass: 'text',
        input: { mediaType: 'text/plain', text: 'What time is it in Oslo?' },
        acceptedOutputModes: ['text/plain'],
        completion: 'poll',
      },
      deadlineMs: 3000,
      expect: 'PASS',
    },
    {
      id: 'wire/rate-limited-poll',
      rule: 'WIRE-NO-DESTROYED-WORK',
      title: 'A gateway rate-limits the first poll',
      description:
        'SendMessage mints a task that completes about 1.3 seconds later. The first GetTask is answered 429 Too Many Requests with Retry-After: 1 by the gateway in front of the agent; every later call is served.',
      expectation:
        'Wait the second Retry-After asks and poll again, then follow the task to its end. A 429 says "not now", not "the task failed": canceling the task on it destroys work the agent was doing, and polling again before the second is up is a blind retry.',
      spec: 'A2A v1.0.1 §3.3.2 (retry guidance for temporary failures), RFC 9110 §10.2.3 (Retry-After)',
      peer: {
        factory: 'contoso-control',
        card: {
          ...card,
          name: 'Contoso Reports Gateway',
          description: 'Compiles reports behind a rate-limiting gateway.',
          skills: [{ id: 'report', name: 'Report', description: 'Compiles a report', tags: ['reports'] }],
        },
        runtime: {
          cardListener: 'tls',
          rpcListener: 'tls',
          workMs: 1300,
          streaming: false,
          push: { supported: false, delivery: 'plain' },
          outputs: [{ mediaType: 'text/plain', channel: 'task' }],
          unavailable: { status: 429, retryAfterSeconds: 1, calls: 1, method: 'GetTask' },
        },
        signals: [],
      },
      profileConstraints: {},
      intent: {
        taskClass: 'async-completion',
        input: { mediaType: 'text/plain', text: 'Compile the monthly cost report' },
        acceptedOutputModes: ['text/plain'],
        completion: 'poll',
      },
      deadlineMs: 8000,
      expect: 'PASS',
    },
  ] satisfies Scenario[]),
);
