/**
 * A slow answer, scripted with a runtime field (docs/peers.md), in TypeScript. The 503 with
 * Retry-After is the JSON file beside this one; `drop` (a connection cut mid-response) and
 * `streamEnds` (a stream that ends without a terminal event) are scripted the same way.
 */
import { defineScenarios } from 'a2a-conformance';

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
      card: {
        name: 'Contoso Quick Answers',
        description: 'Answers short questions.',
        supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        provider: { organization: 'Contoso', url: 'https://contoso.example' },
        version: '1.0.0',
        capabilities: { streaming: false, pushNotifications: false },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 'answer', name: 'Answer', description: 'Answer a short question', tags: ['qa'] }],
      },
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
    intent: { taskClass: 'text', input: { mediaType: 'text/plain', text: 'What time is it in Oslo?' }, acceptedOutputModes: ['text/plain'], completion: 'poll' },
    deadlineMs: 8000,
    expect: 'PASS',
  },
]);
