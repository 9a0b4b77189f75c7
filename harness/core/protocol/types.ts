/**
 * The harness's words a client shares (harness/core/protocol/, docs/architecture.md). No I/O, no `node:` imports.
 *
 * Clients under test may import anything in this folder (harness/core/protocol/) and nothing
 * else of the harness: the rules and the oracle are not theirs to see (test/architecture.test.ts).
 */
import type { AbsentCapability } from './capabilities.js';

/** A2A dialects a client may speak, and the peers speak: v1.0 and v0.3 (JSON-RPC). */
export const DIALECTS = ['a2a-v1', 'a2a-v0.3'] as const;
export type Dialect = (typeof DIALECTS)[number];

/**
 * The standard protocol bindings of A2A v1.0 (§5, §8.3.2: a card's `protocolBinding`), each of which
 * a client may speak: JSON-RPC (§9), gRPC (§10), HTTP+JSON (§11).
 */
export const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
export type Binding = (typeof BINDINGS)[number];

/** How the client's push receiver can be reached (docs/duties.md §2). */
export type CallbackProfile = 'none' | 'https' | 'mtls';

/** The client's fixed transport profile. */
export interface ClientProfile {
  /** Input media types the client can buffer into one complete payload. */
  bufferableInputModes: string[];
  /** Input media types the client can only produce live, frame by frame. */
  liveOnlyInputModes: string[];
  /** What kind of push receiver the client can host. */
  callback: CallbackProfile;
  /** The client's decoder registry: media types it can interpret, parameters significant. */
  mediaTypes: string[];
  /** Whether the client consumes artifacts at all (a status-only consumer does not). */
  consumesArtifacts: boolean;
  /** Whether the client can acquire capabilities at negotiation time (defers the rules). */
  canRenegotiate: boolean;
  /** Extension URIs the client understands. */
  knownExtensions: string[];
  requireSignedCards: boolean;
  trustedJwks: string[];
  dialects: Dialect[];
  /** The protocol bindings the client speaks (§8.3.2 picks among them in the card's order); absent: JSON-RPC only. */
  bindings?: Binding[];
}

/**
 * A scenario's demands on a profile: scalars must be equal, lists must be included. Not the bindings:
 * which binding a scenario is told over is the run's choice (`--binding`, harness/core/card-binding.ts),
 * and one the client does not speak is not run (docs/scenario.schema.json has no such field either).
 */
export type ProfileConstraints = Partial<Omit<ClientProfile, 'bindings'>>;

export const TASK_CLASSES = ['text', 'live-input', 'async-completion', 'artifact', 'delegation', 'fire-and-forget'] as const;
export type TaskClass = (typeof TASK_CLASSES)[number];

export type CompletionPath = 'poll' | 'push' | 'stream';

/** The input the client is asked to send. Live input comes as frames of equal size. */
export interface TaskInput {
  mediaType: string;
  /** For text-like inputs. */
  text?: string;
  /** For live or bufferable binary inputs: number of frames and bytes per frame. */
  frames?: number;
  frameBytes?: number;
}

/** What the client is asked to do in one scenario run. */
export interface TaskIntent {
  taskClass: TaskClass;
  input: TaskInput;
  /** Output media types the application accepts, in preference order. */
  acceptedOutputModes: string[];
  /** The output mode the application cannot do without, if any. */
  requiredOutputMode?: string;
  /** The completion path the application prefers. */
  completion: CompletionPath;
  skillId?: string;
}

export const DECISIONS = ['proceeded', 'downgraded', 'rejected', 'escalated', 'unsupported'] as const;
export type Decision = (typeof DECISIONS)[number];

export const ERROR_CLASSES = ['unnegotiable-card', 'media-type', 'untrusted-card', 'handshake'] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/**
 * The degradation records a result may carry (docs/protocol.md): a closed list. `push->polling` and
 * `resubscribe->polling` are read by rules (a missing one is NON_STRICT where the rule binds);
 * `stream->polling` and `skill <from>-><to>` are shown, never graded. Any other record is kept as a
 * claim and costs a protocol warning, never a verdict.
 */
export const DEGRADATION_RECORDS = ['push->polling', 'resubscribe->polling', 'stream->polling'] as const;
/** `skill <from>-><to>`: the client turned from the skill asked for to another (ids as the card gives them; `(default)` for none); `skill->card-minimum` too (docs/protocol.md). */
export const SKILL_DEGRADATION = /^skill( \S.*)?->\S/;
export const isKnownDegradation = (d: string): boolean => (DEGRADATION_RECORDS as readonly string[]).includes(d) || SKILL_DEGRADATION.test(d);

/**
 * What a client says it did. Kept apart as `claims`: it never decides a binding rule on its own.
 */
export interface ClientReport {
  decision: Decision;
  errorClass?: ErrorClass;
  /** Degradation records such as `push->polling`. */
  degradations: string[];
  /** Ids of the tasks the client caused, as the peer returned them. */
  taskIds: string[];
  notes?: string;
}

/** The answer to `hello`: who the client is, its profile (`null`: any per run), its task classes. */
export interface Hello {
  name: string;
  version: string;
  profile: ClientProfile | null;
  taskClasses: TaskClass[];
  /** Extension URIs the client implements; the harness never hands a client any other (protocol addition). */
  extensions?: string[];
  /** The A2A dialects the client speaks; absent: not declared, A2A v1.0 assumed (scenarios for another are not run). */
  dialects?: Dialect[];
  /**
   * The client speaks only the `profile.dialects` of each run, so the harness may narrow it to a
   * scenario's dialects (a client that declared both). Absent: it is handed, and graded by, every
   * dialect it declared (protocol addition, docs/protocol.md).
   */
  dialectsPerRun?: boolean;
  /**
   * The protocol bindings the client speaks (`JSONRPC`, `HTTP+JSON`, `GRPC`); absent: JSON-RPC only.
   * Each run's `profile.bindings` hands them back, and scenarios told over a binding the client does
   * not declare are not run (protocol addition, docs/protocol.md).
   */
  bindings?: Binding[];
  /**
   * How many runs one process of a `--client-cmd` client takes at once (1–64; absent: one). With more
   * than one, the harness sends up to that many `run` messages before their results and the lanes
   * share processes (protocol addition, docs/protocol.md).
   */
  concurrency?: number;
  /**
   * Choices of the glue around a library under test, not of the library (a shim's policy: how it sends
   * live input, which keys its trust callback hands over…), each with the readable scenario ids (globs)
   * whose verdict follows from it. The report names the glue beside those verdicts, so a table of a
   * library's results blames the right party; grading never reads it (protocol addition).
   */
  glue?: GlueChoice[];
  /**
   * Capabilities the client does not implement, from a closed list (harness/core/protocol/capabilities.ts),
   * each with the client's reason: scenarios whose premise needs one are not run, and say why; a tier
   * is then for the declared capabilities (protocol addition, docs/protocol.md "Declared capabilities").
   */
  notImplemented?: AbsentCapability[];
}

/** One choice of a shim's glue, and the scenarios whose verdict follows from it. */
export interface GlueChoice {
  /** Readable scenario ids or globs (`neg-live-input/*`). */
  scenarios: string[];
  /** The choice, in plain words, and why it is the glue's. */
  note: string;
}

/** TLS material handed to a client for one run (file paths; docs/protocol.md). */
export interface ClientTls {
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  receiver?: { certFile: string; keyFile: string; clientCaFile?: string };
}

/**
 * Credentials provisioned out of band for one run (A2A §7.3, step 2: "The client obtains the
 * necessary credentials through an out-of-band process"): an OAuth 2.0 client registered at a token
 * endpoint, for the client credentials grant (RFC 6749 §4.4). Which card scheme they serve is for
 * the client to read from the card (`tokenUrl` of a `clientCredentials` flow).
 */
export interface ClientCredentials {
  kind: 'oauth2-client-credentials';
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** One scenario run as the client sees it: no rule name, an opaque scenario id. */
export interface RunRequest {
  id: string;
  scenario: string;
  cardUrl: string;
  intent: TaskIntent;
  profile: ClientProfile;
  deadlineMs: number;
  tls: ClientTls;
  /** Credentials for this run, where the peer's card names a scheme that needs them. */
  credentials?: ClientCredentials[];
}

export const DEFAULT_PROFILE: ClientProfile = Object.freeze({
  bufferableInputModes: ['text/plain', 'application/json'],
  liveOnlyInputModes: [],
  callback: 'none',
  mediaTypes: ['text/plain', 'application/json'],
  consumesArtifacts: true,
  canRenegotiate: false,
  knownExtensions: [],
  requireSignedCards: false,
  trustedJwks: [],
  dialects: ['a2a-v1'],
  bindings: ['JSONRPC'],
}) as ClientProfile;
