/**
 * The scenario model (DESIGN.md §4.4): plain data. A scenario names its rule, the peer the harness
 * scripts (a factory name, the exact card and how the runtime really behaves), the profile it
 * needs, the task intent and the verdict the reference client must get.
 */
import type { Forgery } from './push.js';
import type { Level } from './sources.js';
import { DEFAULT_PROFILE, type Binding, type ClientProfile, type Dialect, type Hello, type ProfileConstraints, type TaskIntent } from './vocabulary/types.js';
import type { VerdictKind } from './verdict.js';

/**
 * The listeners every worker runs (harness/net). `vendor-b` is another vendor's origin (its own port
 * and its own certificate, from the test CA): where a card's signing keys are published (seed 001).
 * `cdn` is a CDN in front of a vendor's discovery: an origin of its own that serves the card while
 * the RPC lives elsewhere (seed 003, "Condition of Validity").
 */
export const LISTENER_KINDS = ['tls', 'mtls', 'untrusted-ca', 'wrong-host', 'expired', 'vendor-b', 'cdn'] as const;
export type ListenerKind = (typeof LISTENER_KINDS)[number];
export const BAD_CERT_LISTENERS: ReadonlySet<ListenerKind> = new Set(['untrusted-ca', 'wrong-host', 'expired']);
/** The listener kinds an RPC interface may sit on, each with an HTTP/2 gRPC listener beside it (harness/net/grpc-host.ts). */
export const GRPC_LISTENER_KINDS = ['tls', 'mtls', 'untrusted-ca', 'wrong-host', 'expired'] as const satisfies readonly ListenerKind[];

/** Where an output mode can be had on the peer. */
export type OutputChannel = 'task' | 'subscribe-only';

/**
 * How the peer's runtime really behaves: the truth the oracle grades against. The card may say
 * otherwise; that gap is what the scenarios are about.
 */
export interface PeerRuntime {
  /** Listener that serves the card. */
  cardListener: ListenerKind;
  /** Listener that serves the JSON-RPC interface the card points to. */
  rpcListener: ListenerKind;
  /** Time a task with complete input spends WORKING before it completes. */
  workMs: number;
  /** Binary input handling (live audio). Absent: the peer takes any declared input whole. */
  input?: {
    mediaType: string;
    /** Size of one whole payload: a message carrying all of it completes the task. */
    payloadBytes: number;
    /** The size ceiling the card never shows. */
    ceilingBytes: number;
    /** Whether further frames to the same task are accepted (false: HTTP 415 on frame 2). */
    acceptsFrames: boolean;
    /**
     * An extension URI (declared in the card's `capabilities.extensions`) that opens a live session:
     * a task whose first message opts into it (`A2A-Extensions` header or `Message.extensions`)
     * takes frame after frame even where `acceptsFrames` is false (NEG-ESCALATE; docs/extensions.md).
     */
    sessionExtension?: string;
  };
  /** Whether SendStreamingMessage / SubscribeToTask really work (false: -32004). */
  streaming: boolean;
  push: {
    supported: boolean;
    /**
     * How the push methods fail where `supported` is false: `not-supported` (default), every push call
     * and an inline config answered -32003 (PushNotificationNotSupportedError); `method-not-found`, the
     * four methods answered -32601 and an inline config in SendMessage silently ignored (seed 003: a
     * capability flag with nothing behind it).
     */
    missing?: 'not-supported' | 'method-not-found';
    /** How the peer's dispatcher calls receivers: plain HTTPS, or partner mTLS. */
    delivery: 'plain' | 'partner-mtls';
    /**
     * A task whose push delivery was lost stays WORKING until the client cancels it. Off in every
     * built-in scenario: the seed's task still completes, only its callback is lost.
     */
    stallOnLostPush?: boolean;
    /**
     * A config registered while its task works is sent the task's current state at once (a genuine
     * delivery before the end, which a duplicate can repeat). Off by default: deliveries come at
     * state changes only.
     */
    announceOnRegister?: boolean;
    /** Deliveries the peer forges to the client's receiver (harness/core/push.ts `Forgery`); none by default. */
    forge?: Forgery[];
  };
  /**
   * What the runtime emits, and on which channel. An output with a `skill` is emitted only for tasks
   * whose first message names that skill (`Message.metadata.skillId`, docs/extensions.md); outputs
   * without one are emitted for every task that names no skill with outputs of its own.
   */
  outputs: Array<{ mediaType: string; channel: OutputChannel; skill?: string }>;
  /**
   * The task shows its artifacts while WORKING and stays WORKING until the client cancels it: a long
   * workflow whose caller is expected to read as it goes (seed 001's incident). A blocking
   * SendMessage is answered once the artifacts are shown, so a blocking client gets the task too.
   */
  staysWorking?: boolean;
  /**
   * How SendMessage without a `taskId` deduplicates: `none` (default), every send mints a new task;
   * `message-id`, a `messageId` seen before returns the task it minted (A2A §3.3.1: "Agents may
   * utilize the messageId to detect duplicate messages").
   */
  idempotency?: 'none' | 'message-id';
  /**
   * Input modes the runtime takes per skill, overriding the card's defaults (seed 003: "the delegate's
   * runtime honored the skill-level override"); a part in another mode gets -32005. A message names
   * its skill in `Message.metadata.skillId` (docs/extensions.md); one that names none goes to
   * `unnamedSkill` where that is set, else to the card's defaults.
   */
  skillInputModes?: Record<string, string[]>;
  unnamedSkill?: string;
  /**
   * The largest message the runtime takes, in bytes of the JSON-RPC request body: a larger one gets
   * HTTP 413 before any task is minted. A ceiling no card field can show (seed 003's residual risk: "a
   * delegate that passes the probe but fails on a larger payload").
   */
  maxRequestBytes?: number;
  /**
   * Who may call the RPC endpoint (seed 003, "securitySchemes present but not bound to the task
   * endpoint"). The peer runs an OAuth 2.0 token endpoint (client credentials, RFC 6749 §4.4) over
   * TLS at `{{tokenUrl}}`, for the client credentials the run hands the client. `taskScheme` is what
   * the RPC endpoint accepts: `Bearer`, a token from that endpoint (RFC 6750); `DPoP`, a scheme the
   * card never lists, so every call gets 401 with `WWW-Authenticate: DPoP …` whatever it carries.
   * Tokens live `tokenTtlSeconds`; an expired one gets 401 `Bearer error="invalid_token"`.
   * `tokenListener`: the token endpoint at an identity provider's origin (e.g. `vendor-b`), not the RPC's.
   */
  auth?: { taskScheme: 'Bearer' | 'DPoP'; tokenTtlSeconds: number; tokenListener?: ListenerKind };
  /**
   * The card the runtime really has, served by GetExtendedAgentCard when the served card declares
   * `capabilities.extendedAgentCard` (placeholders as in `card`): after a redeploy the CDN's copy is
   * stale and this one is fresh (seed 003, HS-SPLIT-ORIGIN).
   */
  extendedCard?: Record<string, unknown>;
  /**
   * The RPC endpoint is briefly unavailable: the first `calls` JSON-RPC calls of `method` (absent:
   * of any method) are answered HTTP `status` with `Retry-After: <retryAfterSeconds>` before the
   * runtime sees them (no task is minted). Later calls are served as usual.
   */
  unavailable?: { status: 503 | 429; retryAfterSeconds: number; calls: number; method?: Operation; binding?: Binding };
  /** A slow answer: every call of `method` (absent: of any method) waits `ms` before it is served. */
  slow?: { ms: number; method?: Operation };
  /**
   * A connection dropped mid-response: the answer to the first `calls` calls of `method` (absent:
   * `calls` every call, `method` any method) sends its headers and `afterBytes` bytes of its body,
   * then the socket is destroyed. `afterBytes: 0` cuts right after the headers.
   */
  drop?: { afterBytes: number; calls?: number; method?: Operation; binding?: Binding };
  /**
   * An event stream (SendStreamingMessage, SubscribeToTask) that ends cleanly after `afterEvents`
   * events without a terminal or interrupted one; the task goes on, so GetTask still finds its end.
   */
  streamEnds?: { afterEvents: number };
  /**
   * How the event streams of the JSON bindings frame each event, all of it legal Server-Sent Events
   * (WHATWG HTML §9.2.6): `multiline`, each event's JSON over several `data:` lines (a client joins
   * them with a line feed); `lineEnd`, the line end (`lf` by default, `crlf`, or a lone `cr`);
   * `fields`, a comment line and `event:`, `id:` and `retry:` fields with each event; `lineBytes`, each
   * event's one `data:` line padded with JSON whitespace to at least this many bytes (not with
   * `multiline`). gRPC frames no SSE.
   */
  sseFraming?: SseFraming;
  /** After its first event, each JSON event stream sends a line, or an event, that never ends (24 MiB, then held open). */
  hostileStream?: 'no-line-end' | 'endless-event';
  /**
   * Every streaming call (SendStreamingMessage, SubscribeToTask) is refused before any event, with an
   * internal error (no task is minted; SendMessage and GetTask are served as usual), in the form SDK
   * servers answer such a call: `json`, the binding's plain error answer (JSON-RPC: 200
   * `application/json`; HTTP+JSON: an HTTP error with a `google.rpc.Status` body; gRPC: a status
   * before any message); `untyped`, the same body with no Content-Type; `sse-error`, an event stream
   * whose one event is the error. gRPC has one form for all three: a status before any message.
   */
  refuseStreams?: 'json' | 'untyped' | 'sse-error';
  /**
   * Only SubscribeToTask is refused before any event, in a `refuseStreams` form (the rest served); with
   * `streamEnds`, the subscription a client follows its early-ended stream with. The task goes on.
   */
  refuseSubscribe?: 'json' | 'untyped' | 'sse-error';
  /**
   * Members no version of the protocol defines, added to every successful answer and stream event of
   * the JSON bindings (JSON-RPC, HTTP+JSON), as a later version of the protocol might send them
   * (§5.7: implementations SHOULD ignore unrecognized fields): `top`, one beside the result's own
   * members (and each event's); `every`, one in every object of it, the Task, its status, messages,
   * parts and artifacts included. Free-form values (`metadata`, a data part's `data`) and the JSON-RPC
   * envelope are left as they are. gRPC's protobuf carries no unknown member by name: not there.
   */
  unknownFields?: 'top' | 'every';
  /**
   * Values no version defines in the JSON bindings' successful answers and events: `state`, WORKING named
   * `TASK_STATE_DEFERRED` (v0.3 `deferred`); `part`, each artifact's parts followed by one whose content
   * is a kind no version has (`futureContent`, media type `text/plain`). gRPC: not there.
   */
  futureValues?: 'state' | 'part';
  /**
   * After the event of a task's terminal state, its stream is not closed: it stays open, with nothing
   * more on it, until the client closes it or the run ends (an interrupted state closes it). §3.1.2
   * has the server close it; a client that waits for the end of the stream instead of reading the
   * terminal event stalls, and one that reports and never closes it leaves it open. gRPC: no trailers.
   */
  streamsStayOpen?: boolean;
  /** Subscribe-only outputs are also served on GetTask: a fallback the card omits. */
  pollFallback?: boolean;
  /** How SendMessage answers: with a Task (default), or with a direct Message and no task (spec §3.1.1). */
  reply?: 'task' | 'message';
  /** Deprecated, ignored since ruleset 2 (escalation is `input.sessionExtension`); still accepted in scenario files. */
  negotiation?: { path: string; extension: string };
}

/** Legal framings of an event stream (PeerRuntime.sseFraming). */
export interface SseFraming {
  multiline?: boolean;
  lineEnd?: 'lf' | 'crlf' | 'cr';
  fields?: boolean;
  lineBytes?: number;
  /** Each event written in pieces of a few bytes, apart in time (split mid-line and mid-UTF-8: it carries non-ASCII metadata). */
  split?: boolean;
}

/**
 * How a client could know what a signal means: at a level (DESIGN.md §3), or by the names of ruleset
 * 1, kept for old scenario files: `spec-derivable` caps nothing (the rule's sources decide) and
 * `harness-convention` is `convention`.
 */
export type SignalKind = Level | 'spec-derivable' | 'harness-convention';

/** One signal a scenario's card relies on, and how a client could know it. */
export interface CardSignal {
  /** JSON pointer into the card. */
  pointer: string;
  kind: SignalKind;
  note: string;
}

/** The level a scenario's signal kind caps a rule at; `undefined`: no cap. */
export function signalLevel(kind: SignalKind): Level | undefined {
  if (kind === 'spec-derivable') return undefined;
  if (kind === 'harness-convention') return 'convention';
  return kind;
}

/**
 * How a peer signs its card (A2A §8.4), as data. The vendor's published keys live in a JWKS on
 * another vendor's origin (the `vendor-b` listener), each with an `x5c` certificate whose validity
 * window says when the key may be used. `key` picks the signer:
 * - `published`: the vendor's current key;
 * - `expired` / `not-yet-valid`: a published key whose certificate says it is outside its window;
 * - `unlisted`: a key no JWKS lists;
 * - `own-origin`: a key published only in a JWKS on the peer's own card origin, named by `jku`.
 */
export interface CardSigning {
  key: 'published' | 'expired' | 'not-yet-valid' | 'unlisted' | 'own-origin';
  /** Whether the protected header carries `jku` (always for `own-origin`). */
  jku?: boolean;
  /** A signature made the wrong way: `alg: none`, or HS256 keyed with the public key. */
  breaker?: 'alg-none' | 'hmac-public-key';
  /** A change made to the card after it was signed: the value at a JSON pointer replaced. */
  tamper?: { pointer: string; value: unknown };
  /** The vendor JWKS answers its first `jwksBusy` fetches 503 with `Retry-After: 1` (a key store briefly down). */
  jwksBusy?: number;
}

/** The vendor's card-signing keys of a run (PEM), each with a certificate whose window says when it may be used. */
export interface CardSigners {
  published: { cert: string; key: string };
  expired: { cert: string; key: string };
  notYetValid: { cert: string; key: string };
}

export interface PeerDescription {
  /** The peer factory in peers/ (e.g. `contoso-audio-batch`). */
  factory: string;
  /**
   * The A2A dialect the peer speaks: `a2a-v1` (default) or `a2a-v0.3` (its card in v0.3 form, its
   * JSON-RPC methods and spellings v0.3's; the runtime is the same).
   */
  dialect?: Dialect;
  /**
   * The exact card JSON the peer serves. Strings may hold `{{rpcUrl}}` (and, for old scenario files,
   * `{{negotiationUrl}}`), filled in per run with loopback URLs.
   */
  card: Record<string, unknown>;
  runtime: PeerRuntime;
  signals: CardSignal[];
  /** The card is signed after its placeholders are filled (seed 001). */
  signing?: CardSigning;
}

export interface Scenario {
  /** Stable, readable id; unique across the catalogue. */
  id: string;
  rule: string;
  title: string;
  /** What happens, in plain words. */
  description: string;
  /** What a correct client does, in plain words. */
  expectation: string;
  /** The seed or spec section it comes from. */
  spec: string;
  peer: PeerDescription;
  profileConstraints: ProfileConstraints;
  intent: TaskIntent;
  deadlineMs: number;
  /** The verdict the reference client must get. */
  expect: VerdictKind;
  /**
   * The author's own assertions (docs/scenarios.md), graded from the wire beside the rules: each is
   * a check of its own (`VENDOR:<id>`), FAIL when missed unless it says `onMiss: NON_STRICT`.
   */
  assertions?: Assertion[];
  /**
   * `only`: the scenario is about a client that speaks only the dialects its constraint lists (a v0.3
   * client facing a card that offers v1.0 too). A client that declared more and cannot be narrowed per
   * run (no `dialectsPerRun` in its hello) does not run it.
   */
  dialectPremise?: 'only';
  /**
   * The strongest level at which any up-front miss in this scenario is graded, and why: where the
   * scenario carries a source beyond its scope (seed 003, scoped to A2A v1.0, told by a v0.3 peer),
   * a miss grades at this weaker reading (DESIGN.md §3). Harm is FAIL whatever it says.
   */
  levelCap?: { level: Level; why: string };
  /** The binding this scenario is told over, where a telling made it (harness/core/card-binding.ts: `<id>.grpc`, `<id>.rest`); never in a scenario file. */
  binding?: Binding;
}

/** The A2A operations an assertion may name (v1.0 §3.1; a v0.3 call is recorded under its operation). */
export const OPERATIONS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The request headers the transcript keeps, so an assertion can name them. */
export const ASSERTABLE_HEADERS = ['A2A-Version', 'A2A-Extensions', 'Authorization', 'Accept', 'Content-Type'] as const;

interface AssertionBase {
  /** A short name, unique in the scenario: the check is `VENDOR:<id>`. */
  id: string;
  /** Why, in the author's words (the incident, the requirement): shown as the check's source. */
  because: string;
  /** The verdict of a miss (default FAIL). */
  onMiss?: 'FAIL' | 'NON_STRICT';
}

/** One of the declarative checks a scenario may carry. */
export type Assertion = AssertionBase &
  (
    | { kind: 'no-task' }
    | { kind: 'max-tasks'; max: number }
    | { kind: 'never-calls'; method: Operation }
    | { kind: 'calls'; method: Operation; before?: Operation | Operation[] }
    | { kind: 'header'; name: (typeof ASSERTABLE_HEADERS)[number]; method?: Operation; equals?: string }
    | { kind: 'saw-state'; state: string }
  );

/**
 * The profile a per-run (`profile: null`) client is handed: defaults, then the constraints. Known
 * extensions are only those the client declared in its hello: the harness never assigns others.
 */
export function profileFor(base: ClientProfile, constraints: ProfileConstraints, declaredExtensions: readonly string[] = []): ClientProfile {
  const p: ClientProfile = { ...base, ...structuredCloneSafe(constraints) };
  p.knownExtensions = p.knownExtensions.filter((u) => declaredExtensions.includes(u));
  // A mode named live-only cannot also be bufferable.
  p.bufferableInputModes = p.bufferableInputModes.filter((m) => !p.liveOnlyInputModes.includes(m));
  return p;
}

function structuredCloneSafe<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * The dialects a per-run client is handed: the scenario's, as far as the client speaks them (its
 * hello's `dialects`; a client that declares none is taken to speak A2A v1.0). The harness never
 * hands a client a dialect it did not declare, as with extensions.
 */
/**
 * The dialects a per-run client is handed for a scenario (`profile.dialects`). A client whose hello
 * says it takes `profile.dialects` per run (`dialectsPerRun`) is narrowed to those of the scenario's
 * it declared; any other is handed, and graded by, all it declared: a client that cannot be narrowed
 * (the official Python SDK picks among what it speaks, by §8.3.2) is never graded by a narrowing it
 * was not told to honour.
 */
export function dialectsFor(hello: Pick<Hello, 'dialects' | 'dialectsPerRun'>, s: Pick<Scenario, 'profileConstraints' | 'dialectPremise'>): Dialect[] {
  const spoken = hello.dialects ?? DEFAULT_PROFILE.dialects;
  const shared = (s.profileConstraints.dialects ?? DEFAULT_PROFILE.dialects).filter((d) => spoken.includes(d));
  if (shared.length === 0) return [];
  return hello.dialectsPerRun === true ? shared : [...spoken];
}

/** Why a per-run client cannot run a scenario for its dialects, or undefined. */
export function dialectProblem(
  hello: Pick<Hello, 'dialects' | 'dialectsPerRun'>,
  s: Pick<Scenario, 'profileConstraints' | 'dialectPremise'>,
): string | undefined {
  const wanted = s.profileConstraints.dialects ?? DEFAULT_PROFILE.dialects;
  const spoken = hello.dialects ?? DEFAULT_PROFILE.dialects;
  const given = dialectsFor(hello, s);
  if (given.length === 0)
    return `the scenario needs a client that speaks ${wanted.join(' or ')}; the client speaks ${spoken.join(', ')}${hello.dialects ? '' : ' (none declared in hello: A2A v1.0 assumed)'}`;
  if (s.dialectPremise === 'only' && given.some((d) => !wanted.includes(d)))
    return `the scenario is about a client that speaks only ${wanted.join(', ')}; the client declared ${spoken.join(', ')} and is graded by what it declared (its hello does not say it takes profile.dialects per run: dialectsPerRun)`;
  return undefined;
}

/** Whether a fixed profile meets a scenario's constraints; the reason when it does not. */
export function unmetConstraint(profile: ClientProfile, constraints: ProfileConstraints): string | undefined {
  for (const [key, want] of Object.entries(constraints) as Array<[keyof ClientProfile, unknown]>) {
    const have = profile[key];
    if (Array.isArray(want)) {
      const list = Array.isArray(have) ? (have as unknown[]) : [];
      const perRun = want.filter((w) => typeof w === 'string' && /\{\{\w+\}\}/.test(w));
      if (perRun.length) return `profile.${key} must hold ${perRun.join(', ')}, filled per run; a fixed profile cannot (answer hello with profile null)`;
      const missing = want.filter((w) => !list.includes(w));
      if (missing.length) return `profile.${key} lacks ${missing.join(', ')}`;
      if (key === 'liveOnlyInputModes') {
        const both = want.filter((w) => profile.bufferableInputModes.includes(w as string));
        if (both.length) return `profile can buffer ${both.join(', ')}, the scenario needs it live-only`;
      }
    } else if (have !== want) {
      return `profile.${key} is ${JSON.stringify(have)}, the scenario needs ${JSON.stringify(want)}`;
    }
  }
  return undefined;
}

/** Where a peer publishes a JWKS, under a run's base URL on a listener. */
export const JWKS_PATH = '/.well-known/jwks.json';

/**
 * The profile with its per-run placeholders filled: `{{vendorJwksUrl}}` in `trustedJwks`, the JWKS
 * on another vendor's origin where a signing peer publishes its keys.
 */
export function fillProfile(profile: ClientProfile, vars: Record<string, string>): ClientProfile {
  return { ...profile, trustedJwks: fillCard({ l: profile.trustedJwks }, vars).l as string[] };
}

/** Fills `{{name}}` placeholders in every string of a card template. */
export function fillCard(card: Record<string, unknown>, vars: Record<string, string>): Record<string, unknown> {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(/\{\{(\w+)\}\}/g, (m, k: string) => (Object.hasOwn(vars, k) ? vars[k]! : m));
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(card) as Record<string, unknown>;
}
