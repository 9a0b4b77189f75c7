/**
 * How a peer's runtime really behaves (PeerRuntime): the truth the oracle grades against, apart from
 * the scenario model (./scenario.ts) that carries it; with the listeners and operations it names.
 * Each field's prose is the scenario schema's (docs/scenario.schema.json) and docs/peers.md's.
 */
import type { Forgery } from '../push.js';
import type { Binding, Dialect } from '../protocol/types.js';

/**
 * The listeners every worker runs (harness/net). `vendor-b` is another vendor's origin (its own port
 * and its own certificate, from the test CA): where a card's signing keys are published (docs/duties.md §7).
 * `cdn` is a CDN in front of a vendor's discovery: an origin of its own that serves the card while
 * the RPC lives elsewhere (docs/duties.md §11).
 */
export const LISTENER_KINDS = ['tls', 'mtls', 'untrusted-ca', 'wrong-host', 'expired', 'vendor-b', 'cdn'] as const;
export type ListenerKind = (typeof LISTENER_KINDS)[number];
export const BAD_CERT_LISTENERS: ReadonlySet<ListenerKind> = new Set(['untrusted-ca', 'wrong-host', 'expired']);
/** The listener kinds an RPC interface may sit on, each with an HTTP/2 gRPC listener beside it (peers/wires/grpc-v1/host.ts). */
export const GRPC_LISTENER_KINDS = ['tls', 'mtls', 'untrusted-ca', 'wrong-host', 'expired'] as const satisfies readonly ListenerKind[];

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
  /**
   * The dialect the card's main interface (`{{rpcUrl}}`) really speaks, whatever version the card
   * declares for it: a card that claims a version its endpoint does not speak (the other dialect's
   * method names get -32601). Unset: the peer's own dialect.
   */
  speaks?: Dialect;
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
     * four methods answered -32601 and an inline config in SendMessage silently ignored (docs/duties.md §10:
     * a capability flag with nothing behind it).
     */
    missing?: 'not-supported' | 'method-not-found';
    /** How the peer's dispatcher calls receivers: plain HTTPS, or partner mTLS. */
    delivery: 'plain' | 'partner-mtls';
    /**
     * A task whose push delivery was lost stays WORKING until the client cancels it. Off in every
     * built-in scenario: the task of the incident in docs/duties.md §2 still completes, only its callback is lost.
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
   * workflow whose caller is expected to read as it goes (docs/duties.md §7). A blocking
   * SendMessage is answered once the artifacts are shown, so a blocking client gets the task too.
   */
  staysWorking?: boolean;
  /**
   * The task stalls: it never ends on its own, nor shows an artifact; it stays WORKING until the
   * client cancels it or the run ends. Completing it is out of any client's reach; giving up on it
   * within the deadline, and canceling it, is not (a nemesis fault: docs/nemesis.md).
   */
  stalls?: boolean;
  /**
   * How SendMessage without a `taskId` deduplicates: `none` (default), every send mints a new task;
   * `message-id`, a `messageId` seen before returns the task it minted (A2A §3.3.1: "Agents may
   * utilize the messageId to detect duplicate messages").
   */
  idempotency?: 'none' | 'message-id';
  /**
   * Input modes the runtime takes per skill, overriding the card's defaults (docs/duties.md §8: an
   * agent that honours the skill's narrower value); a part in another mode gets -32005. A message names
   * its skill in `Message.metadata.skillId` (docs/extensions.md); one that names none goes to
   * `unnamedSkill` where that is set, else to the card's defaults.
   */
  skillInputModes?: Record<string, string[]>;
  unnamedSkill?: string;
  /**
   * The largest message the runtime takes, in bytes of the JSON-RPC request body: a larger one gets
   * HTTP 413 before any task is minted. A ceiling no card field can show (the residual risk of
   * docs/duties.md §8: a probe that passes, and a larger payload that fails).
   */
  maxRequestBytes?: number;
  /**
   * Who may call the RPC endpoint (docs/duties.md §9: the card's security schemes can describe
   * where the card is served, not where tasks are). The peer runs an OAuth 2.0 token endpoint (client credentials, RFC 6749 §4.4) over
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
   * stale and this one is fresh (docs/duties.md §11, HS-SPLIT-ORIGIN).
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
   * A connection lost before the answer: the first `calls` calls of `method` (absent: `calls` every
   * call, `method` any method) reach the runtime, which acts on them, and the connection is closed
   * before a byte of the answer, its status and headers included.
   */
  reset?: { calls?: number; method?: Operation; binding?: Binding };
  /**
   * The peer's push dispatcher fails its deliveries: the first `deliveries` of the run (absent: every
   * one) are never posted, or, with `lateMs`, posted that much later (not at all once the client has
   * answered), after later deliveries that were on time where only the first ones are held. The task
   * goes on as it would; each such delivery is noted in the transcript.
   */
  pushFails?: { deliveries?: number; lateMs?: number };
  /**
   * The card's origin is briefly down: the first `calls` GETs of the card are answered 503 with
   * `Retry-After: <retryAfterSeconds>`; later ones serve the card.
   */
  cardUnavailable?: { calls: number; retryAfterSeconds: number };
  /**
   * An event stream (SendStreamingMessage, SubscribeToTask) that ends cleanly after `afterEvents`
   * events without a terminal or interrupted one; the task goes on, so GetTask still finds its end.
   * `midEvent`: it ends uncleanly instead, mid-way through the event after those: the first half of
   * that event's bytes, then the connection reset (HTTP/1.1: the socket closed inside the chunked
   * body; gRPC: RST_STREAM). The event so cut is the task's own; the client never has it whole. Not
   * with `sseFraming.split`, whose pieces of the half event still queued would be dropped with it.
   */
  streamEnds?: { afterEvents: number; midEvent?: boolean };
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
