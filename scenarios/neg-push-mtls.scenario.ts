/**
 * NEG-PUSH-MTLS (docs/duties.md §2, and the incident behind it): push notifications on a card whose
 * security posture is mTLS. The RPC listener itself demands a client certificate (the client has
 * one); by the reading of docs/duties.md §2 the peer's outbound callbacks use partner mTLS too. In A2A v1.0 an
 * agent authenticates to a webhook with the client-chosen `PushNotificationConfig.authentication`
 * (§4.3.3), so the signal is at level `field`. Registration succeeds; delivery to a receiver that
 * cannot do partner mTLS is logged as dispatched and lost; the task itself still completes, so a
 * client that polls recovers.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const mtlsPushCard = {
  name: 'Contoso Claims Processor',
  description: 'Processes insurance claims asynchronously and calls back when done.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '2.0.1',
  capabilities: { streaming: false, pushNotifications: true },
  securitySchemes: { partnerMtls: { mtlsSecurityScheme: { description: 'Mutual TLS with partner certificates' } } },
  securityRequirements: [{ schemes: { partnerMtls: { list: [] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'process-claim', name: 'Process claim', description: 'Assess a claim', tags: ['claims'] }],
};

const signals = [
  { pointer: '/capabilities/pushNotifications', kind: 'MUST' as const, note: 'push notifications offered' },
  { pointer: '/securitySchemes/partnerMtls', kind: 'MUST' as const, note: 'an mTLS security scheme (for calls to the agent)' },
  { pointer: '/securityRequirements', kind: 'field' as const, note: 'mTLS is required for every call; by docs/duties.md §2 the callbacks use it too' },
];

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'mtls',
  workMs: 150,
  streaming: false,
  push: { supported: true, delivery: 'partner-mtls' },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
};

const asyncTask = {
  taskClass: 'async-completion' as const,
  input: { mediaType: 'text/plain', text: 'Assess claim 4711' },
  acceptedOutputModes: ['text/plain'],
  completion: 'push' as const,
};

const common = { rule: 'NEG-PUSH-MTLS', spec: 'docs/duties.md §2', deadlineMs: 3000 };
const peer = { factory: 'contoso-mtls-push', card: mtlsPushCard, runtime, signals };

export default defineScenarios(
  bothDialects([
    {
      ...common,
      id: 'neg-push-mtls/https-receiver-wants-push',
      title: 'Push wanted, but the receiver is plain HTTPS and the card requires mTLS',
      description: "The application prefers push completion. The client's receiver can only do plain HTTPS; the peer calls back over partner mTLS.",
      expectation:
        'Do not register push (neither inline nor by CreateTaskPushNotificationConfig); poll the task to a terminal state; report the push->polling degradation. Registering anyway and polling to completion is NON_STRICT; waiting on the lost push is FAIL or TIMEOUT.',
      peer,
      profileConstraints: { callback: 'https' },
      intent: asyncTask,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-push-mtls/https-receiver-polls',
      title: 'Polling preferred on the mTLS-push card',
      description: 'Same card and peer; the application prefers polling anyway.',
      expectation: 'Poll to a terminal state; nothing to degrade.',
      peer,
      profileConstraints: { callback: 'https' },
      intent: { ...asyncTask, completion: 'poll' },
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-push-mtls/mtls-receiver',
      title: 'An mTLS-capable receiver (rule does not bind)',
      description: "The client hosts a receiver with a partner-CA certificate that verifies the dispatcher's partner certificate.",
      expectation: 'May register push; if it does, the callback must really arrive over mTLS and the task reach a terminal state.',
      peer,
      profileConstraints: { callback: 'mtls' },
      intent: asyncTask,
      expect: 'PASS',
    },
    {
      ...common,
      id: 'neg-push-mtls/fire-and-forget',
      title: 'Fire-and-forget on the mTLS-push card (rule does not bind)',
      description: 'The client sends and does not follow the task.',
      expectation: 'Not graded by this rule (docs/duties.md §2: for a fire-and-forget task, how completion would be notified does not matter).',
      peer,
      profileConstraints: { callback: 'https' },
      intent: { ...asyncTask, taskClass: 'fire-and-forget', completion: 'poll' },
      expect: 'INFORMATIONAL',
    },
    {
      ...common,
      id: 'neg-push-mtls/no-signal',
      title: 'Push lost with no card signal',
      description:
        'The card offers push and lists no security requirement; the runtime still calls back only over partner mTLS, so the callback is lost. The task completes all the same.',
      expectation: 'Recover: do not wait on the push alone; poll the task to a terminal state before the deadline.',
      peer: {
        factory: 'contoso-mtls-push',
        card: { ...mtlsPushCard, securitySchemes: undefined, securityRequirements: undefined },
        runtime: { ...runtime, rpcListener: 'tls' },
        signals: [{ pointer: '/capabilities/pushNotifications', kind: 'MUST' as const, note: 'push offered; nothing says how callbacks authenticate' }],
      },
      profileConstraints: { callback: 'https' },
      intent: asyncTask,
      deadlineMs: 2500,
      expect: 'INFORMATIONAL',
    },
    {
      ...common,
      id: 'neg-push-mtls/bearer-push-no-mtls-signal',
      title: 'Push with client-chosen credentials to an https receiver (rule does not bind)',
      description:
        'The card offers push and requires no mTLS; the peer calls back over HTTPS and authenticates with the credentials the client chose in PushNotificationConfig.authentication (A2A v1.0 §4.3.3).',
      expectation:
        'Register push with authentication credentials for the https receiver, check them on each callback, and see the task reach a terminal state.',
      peer: {
        factory: 'contoso-mtls-push',
        card: { ...mtlsPushCard, name: 'Contoso Claims Processor (HTTPS callbacks)', securitySchemes: undefined, securityRequirements: undefined },
        runtime: { ...runtime, rpcListener: 'tls', push: { supported: true, delivery: 'plain' } },
        signals: [
          {
            pointer: '/capabilities/pushNotifications',
            kind: 'MUST' as const,
            note: 'push offered; the webhook is authenticated with the client-chosen credentials (§4.3.3)',
          },
        ],
      },
      profileConstraints: { callback: 'https' },
      intent: asyncTask,
      expect: 'PASS',
    },
  ] satisfies Scenario[]),
);
