/**
 * The client as webhook receiver (issue 27; A2A v1.0.1 §4.3.3 "Client Responsibilities", §13.2):
 * the peer's forger posts deliveries to the receiver the client registered beside the genuine ones,
 * with no, wrong or another config's credentials, from a certificate the receiver never trusted,
 * naming a task the client never created, or a genuine one twice. A forged end comes while the real
 * task still works (the runtime holds the end until each forgery due was attempted), so a client that
 * believes one decides about a task whose end nothing genuine had shown it: that is the evidence.
 * Plain (test-CA) and partner-mTLS receivers; told in both dialects (v0.3 posts the Task, §9.5).
 * Variants where the rules do not bind: a polling client (no receiver), fire-and-forget.
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { Forgery } from '../harness/core/push.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import type { CompletionPath, TaskClass } from '../harness/core/protocol/types.js';

const plainCard = {
  name: 'Contoso Claims Processor (HTTPS callbacks)',
  description: 'Processes insurance claims asynchronously and calls back when done.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '2.1.0',
  capabilities: { streaming: false, pushNotifications: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'process-claim', name: 'Process claim', description: 'Assess a claim', tags: ['claims'] }],
};

/** The partner-mTLS story of NEG-PUSH-MTLS: every call and every callback over partner mTLS. */
const partnerCard = {
  ...plainCard,
  name: 'Contoso Claims Processor (partner mTLS)',
  securitySchemes: { partnerMtls: { mtlsSecurityScheme: { description: 'Mutual TLS with partner certificates' } } },
  securityRequirements: [{ schemes: { partnerMtls: { list: [] } } }],
};

const runtime = (partner: boolean, forge: Forgery[]): PeerRuntime => ({
  cardListener: 'tls',
  rpcListener: partner ? 'mtls' : 'tls',
  // Long enough that a client believing a forged end decides while the real task works.
  workMs: 900,
  streaming: false,
  // The task's state is posted at registration too: every receiver gets a genuine delivery before the end.
  push: { supported: true, delivery: partner ? 'partner-mtls' : 'plain', announceOnRegister: true, ...(forge.length ? { forge } : {}) },
  outputs: [{ mediaType: 'text/plain', channel: 'task' }],
});

const intent = (completion: CompletionPath = 'push', taskClass: TaskClass = 'async-completion') => ({
  taskClass,
  input: { mediaType: 'text/plain', text: 'Assess claim 4711' },
  acceptedOutputModes: ['text/plain'],
  completion,
});

const pushSignal = (partner: boolean) => [
  {
    pointer: '/capabilities/pushNotifications',
    kind: 'MUST' as const,
    note: 'push offered; the webhook is authenticated with the client-chosen credentials (§4.3.3)',
  },
  ...(partner
    ? [{ pointer: '/securityRequirements', kind: 'field' as const, note: 'partner mTLS for every call; by docs/duties.md §2 the callbacks too' }]
    : []),
];

/** Early in the task's life: the runtime holds the real end until these were attempted. */
const early = { after: 'registration' as const, afterMs: 50 };

const scenario = (
  s: Pick<Scenario, 'id' | 'rule' | 'title' | 'description' | 'expectation' | 'expect'> & {
    partner?: boolean;
    forge?: Forgery[];
    intent?: Scenario['intent'];
  },
): Scenario => ({
  id: s.id,
  rule: s.rule,
  title: s.title,
  description: s.description,
  expectation: s.expectation,
  spec: 'A2A v1.0.1 §4.3.3 (Client Responsibilities, Authentication), §13.2 (Client (Webhook Receiver) Requirements), §3.1.3',
  peer: {
    factory: 'contoso-mtls-push',
    card: s.partner ? partnerCard : plainCard,
    runtime: runtime(!!s.partner, s.forge ?? []),
    signals: pushSignal(!!s.partner),
  },
  profileConstraints: { callback: s.partner ? 'mtls' : 'https' },
  intent: s.intent ?? intent(),
  deadlineMs: 5000,
  expect: s.expect,
});

const AUTH = 'PUSH-AUTHENTICITY';
const MATCH = 'PUSH-TASK-MATCH';
const RECEIPT = 'PUSH-RECEIPT';

const told: Scenario[] = [
  scenario({
    id: 'push-auth/no-credentials-completed',
    rule: AUTH,
    title: 'A forged COMPLETED without credentials reaches the receiver',
    description:
      'While the task works, the peer posts to the registered receiver a Task in COMPLETED, with an artifact the real task never produces, carrying neither the Authorization the client registered nor its token. The real task completes later.',
    expectation: 'Refuse it or ignore it: follow the task to its real end (GetTask or the genuine push). Believing it decides a task that is still working.',
    forge: [{ ...early, credentials: 'none', state: 'COMPLETED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-auth/wrong-credentials-failed',
    rule: AUTH,
    title: 'A forged FAILED with wrong credentials',
    description: 'While the task works, the peer posts a status update in FAILED with credentials of the right shape but not the ones registered.',
    expectation: 'Refuse or ignore it; the task goes on to complete, and the client must see that.',
    forge: [{ ...early, credentials: 'wrong', state: 'FAILED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-auth/foreign-config-completed',
    rule: AUTH,
    title: 'A forged COMPLETED with another config’s credentials',
    description:
      'While the task works, the peer posts a COMPLETED with the credentials of another push config, one the client never gave this agent (§13.2: "the provided authentication credentials" are this config’s own).',
    expectation: 'Refuse or ignore it; follow the task to its real end.',
    forge: [{ ...early, credentials: 'foreign', state: 'COMPLETED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-auth/partner-mtls-no-credentials',
    rule: AUTH,
    partner: true,
    title: 'Partner mTLS: a forged COMPLETED over the partner handshake, without credentials',
    description:
      'The receiver does partner mTLS and the forged delivery comes over it (the dispatcher’s own partner certificate), but without the Authorization and token the client registered: the handshake is not the credentials.',
    expectation: 'Refuse or ignore it; follow the task to its real end.',
    forge: [{ ...early, credentials: 'none', state: 'COMPLETED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-auth/partner-mtls-other-sender',
    rule: AUTH,
    partner: true,
    title: 'Partner mTLS: a forged COMPLETED from a certificate the receiver never trusted',
    description:
      'The forged delivery comes from a certificate of another CA, with wrong credentials: a partner-mTLS receiver refuses it at the handshake, before any credential is read.',
    expectation: 'The handshake (or the credentials) refuse it; the client follows its task to its real end.',
    forge: [{ ...early, from: 'other', credentials: 'wrong', state: 'COMPLETED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-auth/polling-client',
    rule: AUTH,
    title: 'Forgeries scripted, but the client polls (nothing to forge to)',
    description: 'The same forger; the intent asks for polling, so a client registers no receiver.',
    expectation: 'Poll to the end; no delivery reaches a receiver that does not exist.',
    forge: [{ ...early, credentials: 'none', state: 'COMPLETED' }],
    intent: intent('poll'),
    expect: 'INFORMATIONAL',
  }),
  scenario({
    id: 'push-auth/fire-and-forget',
    rule: AUTH,
    title: 'Forgeries scripted, on a fire-and-forget task (rule does not bind)',
    description: 'The same forger; the task is fire-and-forget.',
    expectation: 'Send it; nothing to follow, nothing a forgery could move.',
    forge: [{ ...early, credentials: 'none', state: 'COMPLETED' }],
    intent: intent('poll', 'fire-and-forget'),
    expect: 'INFORMATIONAL',
  }),
  scenario({
    id: 'push-task/foreign-task-completed',
    rule: MATCH,
    title: 'A COMPLETED for a task the client never created, with its own credentials',
    description: 'While the task works, the peer posts, with the config’s genuine credentials, a Task in COMPLETED whose id the client never saw.',
    expectation: 'Check the task id: a delivery of another task decides nothing about this one. Follow the task to its real end.',
    forge: [{ ...early, taskId: 'foreign', state: 'COMPLETED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-task/foreign-task-failed-mtls',
    rule: MATCH,
    partner: true,
    title: 'Partner mTLS: a FAILED for a task the client never created',
    description: 'Over the partner handshake and with the genuine credentials, the peer posts a FAILED naming a task id the client never saw.',
    expectation: 'Check the task id; follow the client’s own task to its real end.',
    forge: [{ ...early, taskId: 'foreign', state: 'FAILED' }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-receipt/genuine',
    rule: RECEIPT,
    title: 'Genuine deliveries are acknowledged',
    description: 'No forgery: the peer posts each state change of the task to the registered receiver with its credentials.',
    expectation: 'Answer each with 2xx (§4.3.3, §13.2: MUST).',
    expect: 'PASS',
  }),
  scenario({
    id: 'push-receipt/duplicate',
    rule: RECEIPT,
    title: 'A genuine delivery posted twice',
    description:
      'The peer posts the task’s state to the receiver when it is registered, then the same delivery again, credentials and body as they were (§13.2: "duplicate deliveries may occur"); the task completes later.',
    expectation: 'Answer both with 2xx and act once: no second message, cancel or push config because of the duplicate.',
    forge: [{ duplicate: true }],
    expect: 'PASS',
  }),
  scenario({
    id: 'push-receipt/partner-mtls',
    rule: RECEIPT,
    partner: true,
    title: 'Partner mTLS: genuine deliveries are acknowledged',
    description: 'The receiver does partner mTLS; the peer posts each state change over it with the genuine credentials.',
    expectation: 'Answer each with 2xx.',
    expect: 'PASS',
  }),
  scenario({
    id: 'push-receipt/polling-client',
    rule: RECEIPT,
    title: 'Push offered, the client polls (rule does not bind)',
    description: 'The intent asks for polling; a client registers no receiver.',
    expectation: 'Poll to the end; no delivery to acknowledge.',
    intent: intent('poll'),
    expect: 'INFORMATIONAL',
  }),
];

export default defineScenarios(bothDialects(told));
