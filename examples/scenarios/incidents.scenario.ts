/**
 * Three incidents scripted with runtime fields (docs/peers.md), in TypeScript; the 503 with
 * Retry-After is the JSON file beside this one. The reference client passes all three:
 *
 * - `slow`: every SendMessage waits 1.5 s before it is answered.
 * - `drop`: the answer to the first SendMessage is cut after its headers and 16 bytes. The task is
 *   minted all the same; the reference finds it with ListTasks (by its message's messageId) and
 *   never sends the message again. `naive:retries-blindly` sends it again: a second task, the first
 *   one unreported, and WIRE-HONEST-REPORT fails it. Told in A2A v0.3, whose JSON-RPC has no
 *   tasks/list, the task cannot be found: the reference says so and sends nothing again.
 * - `streamEnds`: every event stream closes after its first event, the task still working. The
 *   reference follows the task with SubscribeToTask, then GetTask, to its terminal state (in v0.3
 *   too: tasks/resubscribe, tasks/get); a client that takes the stream's end for the task's fails
 *   WIRE-DEADLINE.
 */
import { defineScenarios } from 'a2a-conformance';

/** The agent's card, the same in each scenario but for its streaming flag: the incident is in the runtime. */
const quickAnswers = (capabilities: { streaming: boolean }) => ({
  name: 'Contoso Quick Answers',
  description: 'Answers short questions.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '1.0.0',
  capabilities: { ...capabilities, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'answer', name: 'Answer', description: 'Answer a short question', tags: ['qa'] }],
});

/** What the client is asked to do: a short text question, followed by polling or on a stream. */
const question = (completion: 'poll' | 'stream') => ({
  taskClass: 'text' as const,
  input: { mediaType: 'text/plain', text: 'What time is it in Oslo?' },
  acceptedOutputModes: ['text/plain'],
  completion,
});

export default defineScenarios([
  {
    id: 'example/slow-answer',
    rule: 'WIRE-DEADLINE',
    title: 'Every SendMessage takes 1.5 s to answer',
    description: 'The agent is slow to accept work: each SendMessage waits 1.5 s before it is answered, well inside the deadline.',
    expectation: 'Wait for the answer (a client timeout of a second or less is too short here), then follow the task to its end and report it.',
    spec: 'A2A v1.0.1 §3.1.1 (Send Message)',
    peer: {
      factory: 'contoso-control',
      card: quickAnswers({ streaming: false }),
      runtime: {
        cardListener: 'tls',
        rpcListener: 'tls',
        workMs: 100,
        streaming: false,
        push: { supported: false, delivery: 'plain' },
        outputs: [{ mediaType: 'text/plain', channel: 'task' }],
        slow: { ms: 1500, method: 'SendMessage' },
      },
      signals: [],
    },
    profileConstraints: {},
    intent: question('poll'),
    deadlineMs: 8000,
    expect: 'PASS',
  },
  {
    id: 'example/answer-cut',
    rule: 'WIRE-NO-DESTROYED-WORK',
    title: 'The connection drops in the middle of the answer to the first SendMessage',
    description:
      "The agent takes the first SendMessage and mints its task, but the connection closes after the answer's headers (HTTP 200) and its first 16 bytes, before the task in it: the client cannot tell what the agent did. Later calls are answered whole. The agent does not deduplicate messages by messageId, and its card does not say whether it would.",
    expectation:
      "Do not send the message again: the agent may have acted on it (here it did), and Send Message is only MAY-idempotent, so a second send can mint a second task for one intent, which the client can neither follow nor report. Find the task with an idempotent read (ListTasks, looking for the message's messageId in each task's history), follow it to its terminal state and report it.",
    spec: 'A2A v1.0.1 §3.3.1 (Idempotency: Get operations are naturally idempotent; Send Message MAY be idempotent); §3.1.4 (List Tasks)',
    peer: {
      factory: 'contoso-control',
      card: quickAnswers({ streaming: false }),
      runtime: {
        cardListener: 'tls',
        rpcListener: 'tls',
        workMs: 300,
        streaming: false,
        push: { supported: false, delivery: 'plain' },
        outputs: [{ mediaType: 'text/plain', channel: 'task' }],
        drop: { afterBytes: 16, calls: 1, method: 'SendMessage' },
      },
      signals: [],
    },
    profileConstraints: {},
    intent: question('poll'),
    deadlineMs: 8000,
    expect: 'PASS',
  },
  {
    id: 'example/stream-ends-early',
    rule: 'WIRE-DEADLINE',
    title: 'The event stream closes after its first event, the task still working',
    description:
      'The card says streaming, and SendStreamingMessage opens a stream that starts with the task, then closes cleanly after that one event, without a terminal state; so does every SubscribeToTask. The task goes on and completes about half a second later; GetTask finds its end.',
    expectation:
      'The end of a stream is not the end of the task: a task lifecycle stream closes when its task reaches a terminal state, and this one closed before. Resubscribe to the task (the card says streaming) or poll GetTask until the task is terminal, then report the state seen. Reporting the task done when the stream closed is the harm.',
    spec: 'A2A v1.0.1 §3.1.2 (the stream MUST close when the task reaches a terminal state); §3.1.6 (Subscribe to Task); §3.1.3 (Get Task: the final state after a stream has ended)',
    peer: {
      factory: 'contoso-control',
      card: quickAnswers({ streaming: true }),
      runtime: {
        cardListener: 'tls',
        rpcListener: 'tls',
        workMs: 500,
        streaming: true,
        push: { supported: false, delivery: 'plain' },
        outputs: [{ mediaType: 'text/plain', channel: 'task' }],
        streamEnds: { afterEvents: 1 },
      },
      signals: [],
    },
    profileConstraints: {},
    intent: question('stream'),
    deadlineMs: 8000,
    expect: 'PASS',
  },
]);
