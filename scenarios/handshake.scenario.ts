/**
 * Discovery is not negotiation (docs/duties.md §8–11): a card can be clean and still not describe
 * what the runtime binds. Four stories, each with the variants where the signal is absent or the
 * probe passes, and one where a probe passes but a larger payload fails (the residual risk of
 * docs/duties.md §8, which no signal covers: INFORMATIONAL).
 *
 * - A skill re-declares the card's input modes, narrower: the proto says the skill's list overrides.
 * - The card advertises OAuth 2.0 client credentials (a real token endpoint on the peer, over TLS);
 *   the task endpoint challenges with a scheme the card never lists, or takes the token, or lets it
 *   expire mid-task.
 * - `pushNotifications: true` with nothing behind it: push-config calls fail (-32003, -32601).
 * - The card comes from a CDN origin of its own, stale after a redeploy; the runtime's own card is
 *   one idempotent read away (GetExtendedAgentCard).
 *
 * The incidents behind these duties used pre-1.0 paths (`/v1/tasks/send`,
 * `tasks/pushNotificationConfig/set`); these peers speak v1.0. The fallback of docs/duties.md §10
 * ("its defaults, no skill overrides") contradicts the proto for a skill's modes, so the skill's
 * modes rule here (docs/rules.md, HS-SKILL-OVERRIDE).
 */
import { defineScenarios } from '../harness/runner/load/define.js';
import { bothDialects } from '../harness/core/card-v03.js';
import type { PeerRuntime } from '../harness/core/scenario/runtime.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';

const JSON_MT = 'application/json';

const card = {
  name: 'Contoso Intake',
  description: 'Files support tickets and returns them as JSON records.',
  supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  provider: { organization: 'Contoso', url: 'https://contoso.example' },
  version: '2.4.0',
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain', JSON_MT],
  defaultOutputModes: [JSON_MT],
  skills: [{ id: 'notes', name: 'Notes', description: 'Files a free-text note on a ticket', tags: ['tickets'] }],
};

const runtime: PeerRuntime = {
  cardListener: 'tls',
  rpcListener: 'tls',
  workMs: 150,
  streaming: false,
  push: { supported: false, delivery: 'plain' },
  outputs: [{ mediaType: JSON_MT, channel: 'task' }],
};

const textIntent = {
  taskClass: 'async-completion' as const,
  input: { mediaType: 'text/plain', text: 'Printer on floor 3 is jammed again' },
  acceptedOutputModes: [JSON_MT],
  completion: 'poll' as const,
};

/** A payload well over the 2,048-byte ceiling of the residual variants, and a probe well under it. */
const LARGE_TEXT = 'Line of the incident log, kept for the ticket. '.repeat(130);
const CEILING = 2048;

// --- HS-SKILL-OVERRIDE ------------------------------------------------------------------------

const intakeSkill = { id: 'intake', name: 'Structured intake', description: 'Files a ticket from a JSON record', tags: ['tickets'], inputModes: [JSON_MT] };
const narrowed = { ...card, skills: [intakeSkill] };
const narrowedRuntime: PeerRuntime = { ...runtime, skillInputModes: { intake: [JSON_MT] }, unnamedSkill: 'intake' };
const skillSignals = [{ pointer: '/skills/0/inputModes', kind: 'MUST' as const, note: 'skill intake takes application/json only, overriding the defaults' }];
const skillSpec = 'docs/duties.md §8; A2A v1.0.1 proto AgentSkill.input_modes';
const jsonIntent = { ...textIntent, input: { mediaType: JSON_MT, text: '{"summary":"Printer on floor 3 is jammed again","floor":3}' }, skillId: 'intake' };

const skillScenarios: Scenario[] = [
  {
    id: 'hs-skill-override/text-to-json-skill',
    rule: 'HS-SKILL-OVERRIDE',
    title: 'Text to a skill whose own input modes leave text out',
    description:
      "The card's defaults take text/plain and application/json; its only skill, intake, re-declares inputModes as application/json alone, and the runtime honours the skill (text/plain to it gets -32005).",
    expectation: "Read the skill's modes as overriding the defaults (the proto says so) and decline before sending text/plain to intake.",
    spec: skillSpec,
    peer: { factory: 'contoso-skill-override', card: narrowed, runtime: narrowedRuntime, signals: skillSignals },
    profileConstraints: {},
    intent: { ...textIntent, skillId: 'intake' },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-skill-override/json-to-json-skill',
    rule: 'HS-SKILL-OVERRIDE',
    title: 'A JSON record to the same skill (the skill takes it)',
    description: 'The same card and runtime; the intent carries an application/json record to intake.',
    expectation: 'Proceed: send the record to intake (Message.metadata.skillId) and poll it to completion.',
    spec: skillSpec,
    peer: { factory: 'contoso-skill-override', card: narrowed, runtime: narrowedRuntime, signals: skillSignals },
    profileConstraints: {},
    intent: jsonIntent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-skill-override/unnamed-to-defaults',
    rule: 'HS-SKILL-OVERRIDE',
    title: 'Text to the agent, naming no skill, on a card where one skill narrows (the defaults apply)',
    description:
      "The card has two skills: intake (application/json only) and notes (no modes of its own). The intent names no skill; the runtime takes unnamed messages on the card's defaults.",
    expectation: 'Proceed: a skill that re-declares modes narrows only itself; rejecting the whole card loses a working channel.',
    spec: skillSpec,
    peer: {
      factory: 'contoso-skill-override',
      card: { ...card, skills: [intakeSkill, ...card.skills] },
      runtime: { ...runtime, skillInputModes: { intake: [JSON_MT] } },
      signals: skillSignals,
    },
    profileConstraints: {},
    intent: textIntent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-skill-override/clean-skill',
    rule: 'HS-SKILL-OVERRIDE',
    title: 'Text to a skill that declares no modes of its own (no signal)',
    description: "The card's only skill, notes, re-declares nothing; the runtime takes the card's defaults.",
    expectation: 'Proceed and poll to completion.',
    spec: skillSpec,
    peer: { factory: 'contoso-control', card, runtime, signals: [] },
    profileConstraints: {},
    intent: { ...textIntent, skillId: 'notes' },
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-skill-override/residual-large-record',
    rule: 'HS-SKILL-OVERRIDE',
    title: 'A JSON record the skill takes, over a ceiling no card field shows (residual risk)',
    description: `As json-to-json-skill, but the runtime refuses requests over ${CEILING} bytes with HTTP 413, and this record is larger. A small probe would pass.`,
    expectation:
      'Nothing on the card says so (docs/duties.md §8: only a check of the payload itself catches it): INFORMATIONAL. The 413 is never repeated unchanged, and no task is left open.',
    spec: `${skillSpec} (the residual risk)`,
    peer: { factory: 'contoso-skill-override', card: narrowed, runtime: { ...narrowedRuntime, maxRequestBytes: CEILING }, signals: skillSignals },
    profileConstraints: {},
    intent: { ...jsonIntent, input: { mediaType: JSON_MT, text: JSON.stringify({ summary: 'Printer on floor 3 is jammed again', log: LARGE_TEXT }) } },
    deadlineMs: 3000,
    expect: 'INFORMATIONAL',
  },
];

// --- HS-CHALLENGE-SCHEME ----------------------------------------------------------------------

const oauthCard = {
  ...card,
  securitySchemes: {
    'contoso-oauth': {
      oauth2SecurityScheme: {
        description: 'OAuth 2.0 client credentials; tokens are presented as Bearer tokens (RFC 6750)',
        flows: { clientCredentials: { tokenUrl: '{{tokenUrl}}', scopes: { 'a2a:tasks': 'Send and follow tasks' } } },
      },
    },
  },
  securityRequirements: [{ schemes: { 'contoso-oauth': { list: ['a2a:tasks'] } } }],
};
const { securityRequirements: _required, ...listedOnly } = oauthCard;
const authSignals = [{ pointer: '/securitySchemes', kind: 'field' as const, note: 'OAuth 2.0 client credentials, with a token endpoint on the peer' }];
const authSpec = 'docs/duties.md §9; A2A v1.0.1 §7.3; RFC 9110 §15.5.2; RFC 6750 §3.1';

const authScenarios: Scenario[] = [
  {
    id: 'hs-challenge/unlisted-scheme',
    rule: 'HS-CHALLENGE-SCHEME',
    title: 'The task endpoint challenges with a scheme the card never lists (split-brain auth)',
    description:
      'The card advertises OAuth 2.0 client credentials, and its token endpoint issues tokens; the task endpoint answers every call 401 with WWW-Authenticate: DPoP, a scheme absent from securitySchemes. Discovery works.',
    expectation: 'Get a token per the card, call once, read the challenge, and stop with a handshake error: never repeat the call with the same credentials.',
    spec: authSpec,
    peer: { factory: 'contoso-split-auth', card: oauthCard, runtime: { ...runtime, auth: { taskScheme: 'DPoP', tokenTtlSeconds: 300 } }, signals: authSignals },
    profileConstraints: {},
    intent: textIntent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-challenge/token-works',
    rule: 'HS-CHALLENGE-SCHEME',
    title: "The token from the card's token endpoint works (no signal)",
    description: "The same card; the task endpoint takes the Bearer token the token endpoint issues for the run's client credentials.",
    expectation: 'Get a token over TLS, present it on every call, and poll the task to completion.',
    spec: authSpec,
    peer: {
      factory: 'contoso-split-auth',
      card: oauthCard,
      runtime: { ...runtime, auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300 } },
      signals: authSignals,
    },
    profileConstraints: {},
    intent: textIntent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-challenge/listed-not-required',
    rule: 'HS-CHALLENGE-SCHEME',
    title: 'The card lists the scheme without requiring it; the challenge names it',
    description:
      'The card has securitySchemes but no securityRequirements; a call without a token is answered 401 with WWW-Authenticate: Bearer, which the listed OAuth 2.0 scheme meets.',
    expectation: 'Meet the challenge: get a token per the listed scheme and call again with it (new credentials), then complete.',
    spec: authSpec,
    peer: {
      factory: 'contoso-split-auth',
      card: listedOnly,
      runtime: { ...runtime, auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300 } },
      signals: authSignals,
    },
    profileConstraints: {},
    intent: textIntent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-challenge/token-expires-mid-task',
    rule: 'HS-CHALLENGE-SCHEME',
    title: 'The token expires while the task is still working',
    description:
      'Tokens live 1 s; the task works for 1.6 s. A call with the expired token is answered 401 with WWW-Authenticate: Bearer error="invalid_token".',
    expectation:
      'Get a new token (RFC 6750 §3.1: "The client MAY request a new access token and retry") and go on polling to completion; never repeat the call with the expired token.',
    spec: authSpec,
    peer: {
      factory: 'contoso-split-auth',
      card: oauthCard,
      runtime: { ...runtime, workMs: 1600, auth: { taskScheme: 'Bearer', tokenTtlSeconds: 1 } },
      signals: authSignals,
    },
    profileConstraints: {},
    intent: textIntent,
    deadlineMs: 6000,
    expect: 'PASS',
  },
  {
    id: 'hs-challenge/residual-large-payload',
    rule: 'HS-CHALLENGE-SCHEME',
    title: 'The token works, the payload is over a ceiling no card field shows (residual risk)',
    description: `As token-works, but the runtime refuses requests over ${CEILING} bytes with HTTP 413, and this message is larger.`,
    expectation: 'INFORMATIONAL for the rule; the 413 is never repeated unchanged.',
    spec: `${authSpec}; docs/duties.md §8 (the residual risk)`,
    peer: {
      factory: 'contoso-split-auth',
      card: oauthCard,
      runtime: { ...runtime, maxRequestBytes: CEILING, auth: { taskScheme: 'Bearer', tokenTtlSeconds: 300 } },
      signals: authSignals,
    },
    profileConstraints: {},
    intent: { ...textIntent, input: { mediaType: 'text/plain', text: LARGE_TEXT } },
    deadlineMs: 3000,
    expect: 'INFORMATIONAL',
  },
];

// --- HS-ASPIRATIONAL-CAPABILITY ---------------------------------------------------------------

const pushCard = { ...card, capabilities: { streaming: false, pushNotifications: true } };
const pushSignals = [{ pointer: '/capabilities/pushNotifications', kind: 'field' as const, note: 'push claimed' }];
const pushIntent = { ...textIntent, completion: 'push' as const };
const pushSpec = 'docs/duties.md §10; A2A v1.0.1 §3.1.7';

const pushScenarios: Scenario[] = [
  {
    id: 'hs-aspirational/push-not-supported',
    rule: 'HS-ASPIRATIONAL-CAPABILITY',
    title: 'pushNotifications: true, but every push-config call answers -32003',
    description:
      'The card claims push; the runtime answers CreateTaskPushNotificationConfig (and an inline config) with PushNotificationNotSupportedError. Tasks complete all the same.',
    expectation: 'Register per task right after minting, see the refusal, poll to completion, and record push->polling.',
    spec: pushSpec,
    peer: {
      factory: 'contoso-aspirational-push',
      card: pushCard,
      runtime: { ...runtime, workMs: 250, push: { supported: false, missing: 'not-supported', delivery: 'plain' } },
      signals: pushSignals,
    },
    profileConstraints: { callback: 'https' },
    intent: pushIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-aspirational/push-method-missing',
    rule: 'HS-ASPIRATIONAL-CAPABILITY',
    title: 'pushNotifications: true, but the push methods do not exist (-32601)',
    description:
      'The card claims push; the runtime has no push at all: the push-config methods answer -32601 (method not found), and an inline config in SendMessage is silently dropped.',
    expectation: 'See the method fail, poll to completion, and record push->polling; never wait on a push that cannot come.',
    spec: pushSpec,
    peer: {
      factory: 'contoso-aspirational-push',
      card: pushCard,
      runtime: { ...runtime, workMs: 250, push: { supported: false, missing: 'method-not-found', delivery: 'plain' } },
      signals: pushSignals,
    },
    profileConstraints: { callback: 'https' },
    intent: pushIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-aspirational/push-works',
    rule: 'HS-ASPIRATIONAL-CAPABILITY',
    title: 'pushNotifications: true, and push works (the control)',
    description: "The same card; registration succeeds and the peer delivers to the client's HTTPS receiver with the credentials the client chose.",
    expectation: 'Register and complete (by push or by polling).',
    spec: pushSpec,
    peer: {
      factory: 'contoso-aspirational-push',
      card: pushCard,
      runtime: { ...runtime, workMs: 250, push: { supported: true, delivery: 'plain' } },
      signals: pushSignals,
    },
    profileConstraints: { callback: 'https' },
    intent: pushIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-aspirational/poll-intent',
    rule: 'HS-ASPIRATIONAL-CAPABILITY',
    title: 'The same aspirational card, for an intent that polls',
    description: "push-not-supported's card and runtime; the intent prefers polling.",
    expectation: 'Proceed and poll to completion: the flag costs this intent nothing.',
    spec: pushSpec,
    peer: {
      factory: 'contoso-aspirational-push',
      card: pushCard,
      runtime: { ...runtime, push: { supported: false, missing: 'not-supported', delivery: 'plain' } },
      signals: pushSignals,
    },
    profileConstraints: { callback: 'https' },
    intent: textIntent,
    deadlineMs: 3000,
    expect: 'PASS',
  },
  {
    id: 'hs-aspirational/residual-large-payload',
    rule: 'HS-ASPIRATIONAL-CAPABILITY',
    title: 'Push works, the payload is over a ceiling no card field shows (residual risk)',
    description: `As push-works, but the runtime refuses requests over ${CEILING} bytes with HTTP 413, and this message is larger.`,
    expectation: 'INFORMATIONAL for the rule; the 413 is never repeated unchanged, and nothing waits on a push for a task that was never minted.',
    spec: `${pushSpec}; docs/duties.md §8 (the residual risk)`,
    peer: {
      factory: 'contoso-aspirational-push',
      card: pushCard,
      runtime: { ...runtime, maxRequestBytes: CEILING, push: { supported: true, delivery: 'plain' } },
      signals: pushSignals,
    },
    profileConstraints: { callback: 'https' },
    intent: { ...pushIntent, input: { mediaType: 'text/plain', text: LARGE_TEXT } },
    deadlineMs: 3000,
    expect: 'INFORMATIONAL',
  },
];

// --- HS-SPLIT-ORIGIN --------------------------------------------------------------------------

/** What the runtime really is after the redeploy: no streaming. */
const redeployed = { ...card, capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: true } };
/** The CDN's copy from before it: it still offers streaming. */
const stale = { ...card, capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true } };
const cdnRuntime: PeerRuntime = { ...runtime, cardListener: 'cdn', rpcListener: 'tls', workMs: 200 };
const splitSignals = [{ pointer: '/supportedInterfaces/0/url', kind: 'field' as const, note: 'the RPC is on another origin than the card' }];
const streamIntent = { ...textIntent, completion: 'stream' as const };
const splitSpec = 'docs/duties.md §11, §10; A2A v1.0.1 §3.1.11, §3.3.1';

const splitScenarios: Scenario[] = [
  {
    id: 'hs-split-origin/stale-with-extended-card',
    rule: 'HS-SPLIT-ORIGIN',
    title: "A stale card from the CDN; the runtime's own card is one read away",
    description:
      "The card comes from a CDN origin of its own and still offers streaming; the runtime behind the RPC origin was redeployed without it (SendStreamingMessage gets -32004). The card declares extendedAgentCard, and GetExtendedAgentCard serves the runtime's own card.",
    expectation: 'Probe before binding: read the extended card (an idempotent read), replace the public card with it (§3.1.11), and complete by polling.',
    spec: splitSpec,
    peer: { factory: 'contoso-cdn-stale', card: stale, runtime: { ...cdnRuntime, extendedCard: redeployed }, signals: splitSignals },
    profileConstraints: {},
    intent: streamIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-split-origin/stale-no-extended-card',
    rule: 'HS-SPLIT-ORIGIN',
    title: 'A stale card from the CDN, with nothing to read it against',
    description: 'As above, but the card declares no extended card: the only way to learn it is stale is to try.',
    expectation:
      'Probe cheaply before the task (an idempotent read such as ListTasks, or a minimal task canceled before the next), then, when the stream is refused, complete by polling: the surface that works. Never repeat the refused call unchanged.',
    spec: splitSpec,
    peer: {
      factory: 'contoso-cdn-stale',
      card: { ...stale, capabilities: { streaming: true, pushNotifications: false } },
      runtime: cdnRuntime,
      signals: splitSignals,
    },
    profileConstraints: {},
    intent: streamIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-split-origin/fresh-card',
    rule: 'HS-SPLIT-ORIGIN',
    title: 'A fresh card on the same split (the control)',
    description: 'The card comes from the CDN origin, the RPC from another; this time the card is true: the runtime streams.',
    expectation: 'Probe, then stream to completion. Refusing a card for its origin alone is over-rejection.',
    spec: splitSpec,
    peer: { factory: 'contoso-cdn-stale', card: stale, runtime: { ...cdnRuntime, streaming: true, extendedCard: stale }, signals: splitSignals },
    profileConstraints: {},
    intent: streamIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-split-origin/same-origin',
    rule: 'HS-SPLIT-ORIGIN',
    title: 'The card from the RPC origin itself (no signal)',
    description: 'A clean card, served by the origin that serves the RPC; the runtime streams.',
    expectation: 'Proceed and stream to completion; no probe is needed.',
    spec: splitSpec,
    peer: {
      factory: 'contoso-control',
      card: { ...card, capabilities: { streaming: true, pushNotifications: false } },
      runtime: { ...runtime, streaming: true, workMs: 200 },
      signals: [],
    },
    profileConstraints: {},
    intent: streamIntent,
    deadlineMs: 4000,
    expect: 'PASS',
  },
  {
    id: 'hs-split-origin/residual-large-payload',
    rule: 'HS-SPLIT-ORIGIN',
    title: 'A fresh split card; the probe passes, the payload is over a ceiling no card field shows (residual risk)',
    description: `The card from the CDN is true, and a probe passes; the runtime refuses requests over ${CEILING} bytes with HTTP 413, and this message is larger.`,
    expectation:
      'INFORMATIONAL for the rule (docs/duties.md §8: no signal covers it, only a check of the payload itself); the 413 is never repeated unchanged.',
    spec: `${splitSpec}; docs/duties.md §8 (the residual risk)`,
    peer: {
      factory: 'contoso-cdn-stale',
      card: redeployed,
      runtime: { ...cdnRuntime, maxRequestBytes: CEILING, extendedCard: redeployed },
      signals: splitSignals,
    },
    profileConstraints: {},
    intent: { ...textIntent, input: { mediaType: 'text/plain', text: LARGE_TEXT } },
    deadlineMs: 3000,
    expect: 'INFORMATIONAL',
  },
];

export default defineScenarios(bothDialects([...skillScenarios, ...authScenarios, ...pushScenarios, ...splitScenarios]));
