/**
 * The a2aproject's client conformance registry (a2aproject/a2a-cli, specification/COMPLIANCE.md and
 * compliance-report.template.yaml, spec version 0.2 of 2026-08-17): each requirement's id, tier, area
 * and the spec sections it cites (facts of the registry), what it asks in our own words, and what of
 * it this harness can see on the wire: the rules whose checks evidence it, whether they cover all of
 * it or a part, or why it cannot be seen. docs/a2a-cli.md is the same table (a test holds them together).
 */

export const A2A_CLI_SPEC = { version: '0.2', revision: '2026-08-17', repository: 'https://github.com/a2aproject/a2a-cli' } as const;

/** Why a requirement is not measured here. */
export const UNSEEN = {
  cli: 'a behaviour of the command line (its flags, output, exit codes or help): a2a-conformance drives a client through its NDJSON protocol and sees what it sends and receives, not its command line',
  state: 'what the tool stores or shows locally (configuration, tokens, session state): nothing of it reaches the wire',
  unexercised: 'visible on the wire in principle, but no scenario of this harness exercises it yet',
} as const;

export interface A2aCliRequirement {
  id: string;
  tier: 1 | 2 | 3;
  area: string;
  /** The a2a-cli SPEC.md sections the registry cites. */
  spec: string;
  /** What it asks, in our words. */
  asks: string;
  /** The rules whose checks evidence it (any scenario, or those whose id matches `scenarios`), and whether they cover all of it. */
  evidence?: { rules: string[]; scenarios?: RegExp; covers: 'all' | 'part'; unseen?: string };
  /** Why it is not measured here. */
  unseen?: keyof typeof UNSEEN;
}

const R = (id: string, tier: 1 | 2 | 3, spec: string, asks: string, more: Partial<A2aCliRequirement> = {}): A2aCliRequirement => ({
  id: `A2ACLI_${id}`,
  tier,
  area: id.replace(/_\d+$/, ''),
  spec,
  asks,
  ...(more.evidence ? {} : { unseen: 'cli' as const }),
  ...more,
});

export const A2A_CLI_REQUIREMENTS: A2aCliRequirement[] = [
  R('CARD_GET_001', 1, '§10.1, §13', 'fetches and parses an Agent Card from a host, a URL or a file, and picks the transport from it'),
  R('SEND_001', 1, '§10.2', 'send opens a new interaction'),
  R('SEND_002', 1, '§10.2, §6.5', 'send waits for the task by default; --async returns the ids at once'),
  R('SEND_003', 1, '§10.2, §9.2', '--stream reads SSE where offered, does not hang where not, and ends cleanly on a Message reply'),
  R('SEND_004', 1, '§10.2', 'shows every artifact, dropping no part'),
  R('SEND_005', 1, '§10.2', '--media-type sets the type of the part flag before it; the type is guessed only when none is given'),
  R('SEND_006', 1, '§10.2', 'repeated --text, --file and --data keep their order; --data - reads stdin'),
  R('TASK_GET_001', 1, '§10.3', 'task get shows state, artifacts and history by id'),
  R('TASK_CANCEL_001', 1, '§10.4', 'task cancel is safe to repeat and reports the resulting state'),
  R('INTERACT_001', 1, '§8.1', '--context-id continues an interaction'),
  R('INTERACT_002', 1, '§8.1', '--task-id with or without --context-id; a refused id exits non-zero, starts no task and shows the error'),
  R('INTERACT_003', 1, '§4.1, §4', 'never makes up ids the server owns, nor treats a context as a chat session', { unseen: 'unexercised' }),
  R('INTERACT_004', 1, '§8.2', 'prints task id, context id and state in a form to copy, and how to resume'),
  R('INTERACT_005', 1, '§6.3, §4.1, §8.3', 'keeps no session state, and no state held only in memory', { unseen: 'state' }),
  R('TASK_POLL_001', 1, '§9.3', 'a one-shot task get, and task get --wait that polls to the end or an interruption'),
  R('TASK_POLL_002', 1, '§9.3', 'polling is bounded: interval and timeout honoured, backing off, never a busy loop, interruptible', {
    evidence: {
      rules: ['WIRE-NO-BLIND-RETRY'],
      covers: 'part',
      unseen: 'the --poll-interval and --timeout flags; the wire shows the polls, their spacing after Retry-After, and no call repeated unchanged',
    },
  }),
  R('TASK_POLL_003', 1, '§9.1, §9.3', 'stops polling at INPUT_REQUIRED or AUTH_REQUIRED; keeps polling an unspecified state within the timeout', {
    unseen: 'unexercised',
  }),
  R('TASK_POLL_004', 1, '§9.3', 'when a streamed wait fails, falls back to polling until the task ends', {
    evidence: { rules: ['STREAM-RECOVERY', 'STREAM-REFUSAL'], covers: 'all' },
  }),
  R('OUT_001', 1, '§11.1, §11.5, §8.2', 'every task answer shows context, task and state; results on stdout, diagnostics on stderr'),
  R('OUT_002', 1, '§11.3, App. B', '-o json without --stream prints one terminal protocol document'),
  R('OUT_003', 1, '§11.3, §11.4, App. B', '-o json --stream prints JSONL, the terminal object last'),
  R('OUT_004', 1, '§11.4, App. B, App. D', 'errors in one machine-readable form on every transport, A2A error names apart from its own'),
  R('OUT_005', 1, '§11.2, §6.1', 'text output: stable labels, one per line, no escape codes'),
  R('OUT_006', 1, '§11.5', '--async still returns task id and context id'),
  R('EXIT_001', 1, '§11.6, App. D', 'exit codes 0, 1 and 2, and any reserved code with its meaning'),
  R('EXIT_002', 1, '§6.6, §11.6', 'exit 0 for a turn carried out, whatever state the task ended in'),
  R('AUTH_001', 1, '§12.1', 'credentials are presented as the scheme the card declares asks', {
    evidence: {
      rules: ['HS-CHALLENGE-SCHEME', 'CREDENTIAL-SCOPE'],
      covers: 'part',
      unseen: 'API-key and environment-variable credentials and --svc-param: the scenarios provision OAuth 2.0 client credentials only',
    },
  }),
  R('AUTH_002', 1, '§12.1, §6.5', 'every credential flag has an environment variable form'),
  R('AUTH_003', 1, '§12.1, §6.5', 'warns on stderr when credentials go out under --insecure'),
  R('AUTH_004', 1, '§12.1, §7.2', 'credentials are redacted from every diagnostic'),
  R('TX_001', 1, '§13.1', "picks the transport from the card, in the card's order of preference", {
    evidence: { rules: ['SPEC-INTERFACE-SELECTION'], covers: 'all' },
  }),
  R('TX_002', 1, '§13.1, §6.5', "with no preference of the user's, uses the first interface it supports; --transport is ordered", {
    evidence: { rules: ['SPEC-INTERFACE-SELECTION'], covers: 'part', unseen: 'the --transport flag' },
  }),
  R('TX_003', 1, '§13.1', "sends the interface's tenant exactly as declared, and none where none is", {
    evidence: { rules: ['SPEC-INTERFACE-SELECTION'], scenarios: /tenant/, covers: 'all' },
  }),
  R('VER_001', 1, '§13.2', 'always sends A2A-Version, never empty', { evidence: { rules: ['SPEC-A2A-VERSION'], covers: 'all' } }),
  R('DEFAULT_001', 1, '§6.5', 'ships the six baseline defaults, each overridable, and shows them'),
  R('CONFIG_001', 1, '§8.3', 'configuration at a conventional path, secrets at 0600, readable with config show', { unseen: 'state' }),
  R('CLI_001', 1, '§7.1, §7.2, §6.5', 'help and version flags'),
  R('SKILL_001', 1, '§14.1, §14.2', 'at most one lean skill, pointing to the help'),
  R('SKILL_002', 1, '§14.3', 'the skill does not restate the spec'),
  R('CARD_GET_002', 2, '§10.1', 'card get --validate checks a card against the A2A schema'),
  R('TASK_LIST_001', 2, '§7.1, App. A', 'task list, with paging and filters'),
  R('TASK_SUBSCRIBE_001', 2, '§7.1, §9.2', 'task subscribe attaches to a task’s event stream'),
  R('TASK_SUBSCRIBE_002', 2, '§9.4, §9.2', 'resumes the stream after a disconnect', {
    evidence: { rules: ['STREAM-RECOVERY'], covers: 'part', unseen: 'that it needs no extra get afterwards: the wire shows the follow-up, not why' },
  }),
  R('AUTH_005', 2, '§12.2', 'auth login with the OAuth 2.1 device-code flow'),
  R('AUTH_006', 2, '§12.2', 'auth login with the OAuth 2.1 client-credentials flow'),
  R('AUTH_007', 2, '§12.2', 'stores tokens safely and presents them on later calls', { unseen: 'state' }),
  R('TX_004', 2, '§13.1', 'speaks at least two transports, and the user chooses', {
    evidence: {
      rules: ['SPEC-INTERFACE-SELECTION'],
      scenarios: /\.(grpc|rest)$/,
      covers: 'part',
      unseen: 'the choice by the user: the wire shows the transports spoken',
    },
  }),
  R('VER_003', 2, '§13.3', "checks the card's capability before a streaming, push or extended-card call", { unseen: 'unexercised' }),
  R('CONFIG_002', 2, '§8.3', 'configuration precedence, per-card scope, and sources shown', { unseen: 'state' }),
  R('DOWNLOAD_001', 2, '§7.1', 'task download writes artifacts to disk'),
  R('OUT_007', 2, '§7.2', '--debug logs the raw wire messages to stderr'),
  R('CONFORM_001', 2, '§7.1', 'a conformance command smoke-tests a live agent'),
  R('CLI_002', 2, '§7.1', 'completion prints a shell completion script'),
  R('PUSH_001', 2, '§7.1, App. A', 'task push-config create, get, list and delete'),
  R('CARD_GET_003', 3, '§10.1, §12.4', 'fetches the extended card only through a scheme the public card advertises', { unseen: 'unexercised' }),
  R('CARD_GET_004', 3, '§10.1', 'verifies a card’s signatures where present, and reports verified, unverifiable or absent', {
    evidence: {
      rules: ['TRUST-BAD-SIGNATURE', 'TRUST-UNKNOWN-KID', 'TRUST-UNTRUSTED-JKU', 'TRUST-ALG'],
      covers: 'part',
      unseen: 'what the tool reports of a signature: the wire shows whether it acted on a card it could not verify',
    },
  }),
  R('CARD_GET_005', 3, '§10.1', 'takes a catalog or registry entry wherever a card is taken'),
  R('PUSH_002', 3, '§9.2', 'runs a local webhook receiver for push notifications', {
    evidence: { rules: ['PUSH-RECEIPT', 'PUSH-AUTHENTICITY'], covers: 'all' },
  }),
  R('CHAT_001', 3, '§8.1, §7.1', 'interactive chat keeps the context across turns'),
  R('TX_005', 3, '§13.1', 'speaks gRPC', { evidence: { rules: ['SPEC-INTERFACE-SELECTION'], scenarios: /\.grpc$/, covers: 'all' } }),
  R('AUTH_008', 3, '§12.4', 'never sends a credential to an endpoint whose card declares no scheme accepting it', {
    evidence: { rules: ['CREDENTIAL-SCOPE'], covers: 'all' },
  }),
  R('AUTH_009', 3, '§12.3', 'mutual TLS', { unseen: 'unexercised' }),
  R('AUTH_010', 3, '§12.3', 'OpenID Connect', { unseen: 'unexercised' }),
  R('AUTH_011', 3, '§12.3', 'handles AUTH_REQUIRED arising mid-task', { unseen: 'unexercised' }),
  R('DEMO_SERVER_001', 3, '§7.1, §3', 'a demo-server or mock-agent mode'),
  R('VER_002', 3, '§13.3, A2A §4.6', 'declares the server-required extensions it supports', { unseen: 'unexercised' }),
];

/** The template's error codes (emitted: yes|no each): a command-line matter, never seen here. */
export const A2A_CLI_ERROR_CODES = ['USAGE', 'CARD_NOT_FOUND', 'CARD_INVALID', 'UNREACHABLE', 'CREDENTIALS_MISSING', 'AUTH_FAILED', 'TIMEOUT', 'INTERNAL'].map(
  (c) => `A2ACLI_ERR_${c}`,
);

/** The template's DEFAULT_001 breakdown rows. */
export const A2A_CLI_DEFAULTS = [
  'transport_server_preference_order',
  'task_completion_wait_by_default',
  'output_human_readable_text',
  'detail_level_concise',
  'protocol_version_highest_mutual',
  'transport_security_tls_on',
];

const START = '<!-- a2a-cli:start -->';
const END = '<!-- a2a-cli:end -->';

/** docs/a2a-cli.md's table: each requirement, and what this harness sees of it. */
export function a2aCliTable(): string {
  const seen = (q: A2aCliRequirement) =>
    q.evidence
      ? `${q.evidence.rules.join(', ')}${q.evidence.scenarios ? ` (scenarios matching \`${q.evidence.scenarios.source}\`)` : ''}${q.evidence.covers === 'part' ? `; a part: not seen, ${q.evidence.unseen}` : ''}`
      : `not measured: ${q.unseen === 'unexercised' ? 'no scenario exercises it yet' : q.unseen === 'state' ? 'local state' : 'the command line'}`;
  return [
    '| requirement | tier | what it asks (our words) | what a2a-conformance grades it by |',
    '|---|---|---|---|',
    ...A2A_CLI_REQUIREMENTS.map((q) => `| \`${q.id}\` | ${q.tier} | ${q.asks.replace(/\|/g, '\\|')} | ${seen(q).replace(/\|/g, '\\|')} |`),
  ].join('\n');
}

/** docs/a2a-cli.md with its table regenerated between the markers. */
export function withA2aCliTable(doc: string): string {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/a2a-cli.md needs the markers ${START} and ${END}`);
  return `${doc.slice(0, a + START.length)}\n${a2aCliTable()}\n${doc.slice(b)}`;
}
