/**
 * The wire evidence of one scenario run (docs/results.schema.json): every request, handshake, task state
 * change and push attempt, each with a sequence number. Pure data plus a small recorder; the
 * listeners, the peers and the push dispatcher write into it, the oracle reads it.
 */

import type { BodyRecord } from './body.js';

/** Header a listener adds to the Request it hands to peer handlers: the transcript seq of the request. */
export const SEQ_HEADER = 'x-a2a-conformance-seq';

/**
 * Header a peer handler puts on its response for the listener to read and strip (`runtime.drop`):
 * send the headers and this many bytes of the body, then destroy the socket. Only the peer's own
 * handlers make responses, so a client cannot ask for it.
 */
export const DROP_HEADER = 'x-a2a-conformance-drop-after';
/** The DROP_HEADER value that closes the connection before any byte of the answer (runtime.reset). */
export const RESET_MARK = 'before-headers';

/** A2A v1.0 task states as ProtoJSON enum names. */
export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_FAILED',
  'TASK_STATE_REJECTED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Terminal states (spec §3.1.1): a task in one of these never changes again. */
export const TERMINAL_STATES: ReadonlySet<string> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED']);

export function isTerminal(state: string | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.has(state);
}

interface EventBase {
  seq: number;
  /** Milliseconds since the run started. */
  t: number;
}

export interface TlsEvent extends EventBase {
  kind: 'tls';
  listener: string;
  ok: boolean;
  /** The error the listener saw for a failed handshake. */
  error?: string;
  clientCert: boolean;
  clientCertSubject?: string;
  /**
   * The connection's handshake was made in another run (a client that pools connections across runs):
   * recorded at this run's first request on it, so every run shows the TLS context of what it used.
   */
  reused?: boolean;
}

export interface HttpEvent extends EventBase {
  kind: 'http';
  listener: string;
  origin: string;
  method: string;
  path: string;
  headers: {
    a2aVersion?: string;
    contentType?: string;
    accept?: string;
    /** Whether an Authorization header came (its scheme and a digest below; never the credential). */
    authorization?: boolean;
    authScheme?: string;
    /** First 12 hex digits of SHA-256 over the whole Authorization value: same digest, same credentials. */
    authDigest?: string;
    /** The `A2A-Extensions` header as sent (spec §3.2.6). */
    a2aExtensions?: string;
    ifNoneMatch?: string;
  };
  /** `A2A-Version` given as a query parameter instead of a header (spec §3.6.1). */
  versionQuery?: string;
  /** Response headers that matter to the rules. */
  response?: { wwwAuthenticate?: string; retryAfter?: string; etag?: string; a2aExtensions?: string };
  /** The body the peer answered with, bounded and redacted (core/body.ts); a stream's events as they went out. */
  responseBody?: BodyRecord;
  clientCert: { presented: boolean; subject?: string };
  /**
   * Filled by the dialect for JSON-RPC calls: `method` is the dialect-neutral operation (the spec's
   * operation names, v1.0 §3.1: SendMessage, GetTask…), `params` its neutral params; `wireMethod` is
   * the method as sent where the dialect spells it otherwise (v0.3: `message/send`).
   */
  rpc?: { method: string; id: unknown; params: unknown; wireMethod?: string };
  /** The binding of the interface whose endpoint (or gate in front of it) took the request (the card's `protocolBinding`). */
  binding?: 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});
  /** The card's URL of that interface. */
  interfaceUrl?: string;
  status?: number;
  /**
   * The A2A error the answer carried: `code` is always §5.4's JSON-RPC column (the neutral id: -32001
   * TaskNotFound…), whatever the binding; the binding's own form is beside it (`status`, `grpc`).
   */
  rpcError?: { code: number; message: string };
  /** gRPC: what the trailers carried (`status` above is then the HTTP status of the peer's answer before it became gRPC). */
  grpc?: { status: number; message?: string };
  /** The task this request concerned, and the task state its response carried. */
  taskId?: string;
  taskState?: string;
  /** SendMessage: whether the agent answered with a Task or a direct Message (spec §3.1.1). */
  reply?: 'task' | 'message';
  /** Media types of the artifact parts the response carried (a Task with artifacts). */
  artifactTypes?: string[];
  /** SendMessage: the `messageId` of the message (first 128 characters), and whether the peer deduplicated it (§3.3.1). */
  messageId?: string;
  deduplicated?: boolean;
  /** Media types of the message's parts as sent (a part without one: its kind's, text/plain or application/json). */
  partTypes?: string[];
  /** The skill the message named (`Message.metadata.skillId`, docs/extensions.md). */
  skillId?: string;
  /** A message that named no skill: the skill the runtime routed it to on its own (`unnamedSkill`, a route no card field shows). */
  routedSkill?: string;
  /** `Message.extensions` of the message this request carried. */
  messageExtensions?: string[];
  /** SHA-256 (hex) of the body served, for the card. */
  bodyDigest?: string;
  /** SHA-256 (hex, first 16) of the request body as it came (any request with a body). */
  requestDigest?: string;
  /** SHA-256 (hex, first 16) of the JSON-RPC params with every `messageId` left out: "the same params". */
  paramsDigest?: string;
  /** Free text from the peer, for the report. */
  note?: string;
  /**
   * How a streaming answer ended, in ms since the run started: the peer wrote its end (`peer`), or the
   * client closed the connection or reset the stream first (`client`). Absent: still open when the run
   * was sealed (the harness closed it then).
   */
  streamEnd?: { by: 'peer' | 'client'; t: number };
  /** Bytes of an event stream's body the listener wrote to the client's connection (while the run recorded). */
  streamBytes?: number;
}

/** Bytes of a hostile stream's endless line or event a peer writes before it stops (runtime.hostileStream; STREAM-BOUNDS). */
export const HOSTILE_STREAM_BYTES = 24 * 1024 * 1024;

/** How long after its report a client has to close a stream still open then: the run waits that long for it (STREAM-CLOSE). */
export const STREAM_CLOSE_MS = 1000;

export interface TaskEvent extends EventBase {
  kind: 'task';
  taskId: string;
  state: string;
  cause: 'minted' | 'runtime' | 'input' | 'canceled';
  /** The request that caused it, if any. */
  requestSeq?: number;
}

export interface PushRegisterEvent extends EventBase {
  kind: 'push-register';
  taskId: string;
  url: string;
  via: 'inline' | 'create';
  requestSeq: number;
}

export interface PushAttemptEvent extends EventBase {
  kind: 'push-attempt';
  taskId: string;
  url: string;
  state: string;
  /**
   * How far the post got: refused or no connection (`connect-error`), a TLS failure the sender saw
   * (`tls-error`), no connection or handshake in time (`timeout`), the request written in full and no
   * answer (`unanswered`), or a status (`delivered` for 2xx, `http-error`).
   */
  outcome: 'delivered' | 'tls-error' | 'connect-error' | 'http-error' | 'timeout' | 'unanswered';
  /**
   * Why an `unanswered` post got no answer: the receiver held it past the dispatcher's wait, closed the
   * connection without a status (a receiver refusing the sender's certificate under TLS 1.3 does the
   * same), or answered with headers that could not be read.
   */
  unanswered?: 'held' | 'closed' | 'unreadable';
  error?: string;
  status?: number;
  /** What the dispatcher presented and trusted. */
  presentedClientCert: boolean;
  /** The body the peer posted, bounded and redacted (core/body.ts). */
  body?: BodyRecord;
  /** Which certificate of the run's PKI the sender presented (`partnerClient`, `untrusted`); absent: none. */
  senderCert?: string;
  /** Whether the delivery was the runtime's own (a duplicate of one included); false for a forged one. */
  genuine?: boolean;
  /** What the forger did, in short (`credentials:none`, `state:COMPLETED`, `task:foreign`, `duplicate`, `from:other`, space-separated). */
  forgery?: string;
  /** The Authorization presented: its scheme and a digest of the whole header (sha256, 12 hex), never the credential. */
  authScheme?: string;
  authDigest?: string;
  /** The X-A2A-Notification-Token presented, as a digest (sha256, 12 hex). */
  tokenDigest?: string;
  /**
   * Milliseconds since the run started when the post began (`t` is when its outcome was known): a
   * receiver may act on a delivery before the dispatcher has read the answer, so "before the client
   * decided" is judged by this.
   */
  sentT?: number;
  /**
   * Milliseconds since the run started when the connection to the receiver was up (its TLS handshake
   * done, from the sender's side): the receiver cannot have had the delivery before. On a loaded
   * machine the handshake can take a while after `sentT`, and what the client learned meanwhile came
   * before the delivery. Absent where no connection was made.
   */
  openT?: number;
}

export interface StreamEvent extends EventBase {
  kind: 'sse';
  requestSeq: number;
  taskId: string;
  state?: string;
  artifactMediaTypes?: string[];
}

/** The moment the runner had the client's answer (or gave up on it): everything before it came first. */
export interface DecisionEvent extends EventBase {
  kind: 'decision';
  outcome: 'reported' | 'timeout' | 'crashed';
  decision?: string;
}

export interface HarnessEvent extends EventBase {
  kind: 'harness';
  level: 'error' | 'info';
  message: string;
}

export type WireEvent = TlsEvent | HttpEvent | TaskEvent | PushRegisterEvent | PushAttemptEvent | StreamEvent | DecisionEvent | HarnessEvent;

type WithoutBase<E> = E extends EventBase ? Omit<E, 'seq' | 't'> : never;
export type NewWireEvent = WithoutBase<WireEvent>;

/** One task on the peer, as the ledger knows it. */
export interface TaskRecord {
  id: string;
  contextId: string;
  state: string;
  mintedSeq: number;
  /** Every state the task went through, with the sequence number of the change. */
  history: Array<{ seq: number; state: string }>;
  /**
   * Set in the results, after the run: the client minted this task and canceled it itself before it
   * sent the message that mints another, or before it declined (a probe: docs/rules.md, "Probes").
   */
  probe?: boolean;
}

/** Most events one run records; a flooding client cannot exhaust memory. */
export const MAX_EVENTS = 20_000;
/**
 * Characters of payloads (request params, response and push bodies, stream events) one run keeps
 * whole; beyond it a payload keeps its size and digest only, marked truncated. A real run keeps a
 * few hundred KiB; 8,000 requests of 60 KB each kept whole held 2 GiB.
 */
export const KEPT_PAYLOAD_CHARS = 8 * 1024 * 1024;
/**
 * Bytes of request bodies a client may send in one run; past it the peers answer 429 and record
 * nothing more of the run, as past MAX_EVENTS: what a peer stores of a run (task histories, push
 * configs) stays within a small multiple of it. Far above any scenario's own traffic.
 */
export const RUN_INPUT_BYTES = 32 * 1024 * 1024;

/** The transcript that recorded each HTTP event: where a payload on it asks for room (keepOn). */
const RECORDED_BY = new WeakMap<object, Transcript>();

/**
 * Whether a payload of `chars` characters may be kept whole on this recorded event: within its
 * run's KEPT_PAYLOAD_CHARS (counted if so). An event of no transcript keeps it.
 */
export function keepOn(event: object, chars: number): boolean {
  return RECORDED_BY.get(event)?.keep(chars, event) ?? true;
}

/** Sequence-numbered recorder for one scenario run. */
export class Transcript {
  readonly events: WireEvent[] = [];
  private readonly start: number;
  private sealed = false;
  /** Events not recorded: after the run was sealed, or over MAX_EVENTS (in a ring: the oldest, let go). */
  dropped = 0;
  private count = 0;
  private readonly ring: number | undefined;
  /** Characters of payloads kept whole so far, and by which event (a ring gives them back as it lets events go). */
  private kept = 0;
  private readonly keptBy = new WeakMap<object, number>();
  /** Payloads kept as size and digest only: the run was past KEPT_PAYLOAD_CHARS. */
  shed = 0;
  /** Bytes of request bodies received in this run. */
  received = 0;
  /** Called with each recorded event (the `serve` command logs them live). */
  onRecord?: (event: WireEvent) => void;
  /** Called when a recorded request has been answered (its status is known). */
  onAnswer?: (event: HttpEvent) => void;
  /**
   * A scenario run records at most MAX_EVENTS and then answers 429. With `ring`, the transcript keeps
   * the latest `ring` events and never fills (`serve`: sequence numbers keep counting).
   */
  constructor(
    private readonly clock: () => number,
    o: { ring?: number } = {},
  ) {
    this.start = clock();
    this.ring = o.ring;
  }

  /** Records an event and returns it with its sequence number (0 when it was not recorded). */
  record<E extends NewWireEvent>(event: E): E & EventBase {
    const recordable = !this.sealed && (this.ring !== undefined || (this.events.length < MAX_EVENTS && this.received <= RUN_INPUT_BYTES));
    const full = { ...event, seq: recordable ? ++this.count : 0, t: Math.round(this.clock() - this.start) } as E & EventBase;
    if (recordable) {
      this.events.push(full as unknown as WireEvent);
      if (full.kind === 'http') RECORDED_BY.set(full, this);
      // Let the oldest go in batches: a shift per event would copy the whole ring each time.
      if (this.ring !== undefined && this.events.length >= this.ring * 2) {
        this.dropped += this.events.length - this.ring;
        for (const gone of this.events.splice(0, this.events.length - this.ring)) {
          this.kept -= this.keptBy.get(gone) ?? 0;
          // A stream still adding to an event let go is not counted: the ring no longer holds what it adds.
          RECORDED_BY.delete(gone);
        }
      }
      this.onRecord?.(full as unknown as WireEvent);
    } else this.dropped++;
    return full;
  }

  /**
   * Whether a payload of `chars` characters may be kept whole: within KEPT_PAYLOAD_CHARS for the run
   * (for a ring, for the events it still holds). Counted against `event` when given and kept.
   */
  keep(chars: number, event?: object): boolean {
    if (this.kept + chars > KEPT_PAYLOAD_CHARS) {
      this.shed++;
      return false;
    }
    this.kept += chars;
    if (event) this.hold(event, chars);
    return true;
  }

  /** Says that `chars` kept earlier (keep without an event) are held by this recorded event: a ring gives them back with it. */
  hold(event: object, chars: number): void {
    if (this.ring !== undefined && chars > 0) this.keptBy.set(event, (this.keptBy.get(event) ?? 0) + chars);
  }

  /** Counts a request body of the client's; false once the run is past RUN_INPUT_BYTES (a ring never is). */
  receive(bytes: number): boolean {
    if (this.ring !== undefined) return true;
    this.received += bytes;
    return this.received <= RUN_INPUT_BYTES;
  }

  /** The recorded event with this sequence number, if it is still kept. */
  bySeq(seq: number): WireEvent | undefined {
    const first = this.events[0]?.seq ?? 1;
    return seq >= first ? this.events[seq - first] : undefined;
  }

  /** Ends recording: the run is over and about to be graded. */
  seal(): void {
    this.sealed = true;
  }

  get isSealed(): boolean {
    return this.sealed;
  }

  elapsed(): number {
    return this.clock() - this.start;
  }
}

/** The task ledger: every task minted in a run and its state, recorded as it changes. */
export class TaskLedger {
  private readonly tasks = new Map<string, TaskRecord>();
  constructor(private readonly transcript: Transcript) {}

  mint(id: string, contextId: string, state: string, requestSeq?: number): TaskRecord {
    const ev = this.transcript.record({ kind: 'task', taskId: id, state, cause: 'minted', requestSeq });
    const rec: TaskRecord = { id, contextId, state, mintedSeq: ev.seq, history: [{ seq: ev.seq, state }] };
    this.tasks.set(id, rec);
    return rec;
  }

  transition(id: string, state: string, cause: TaskEvent['cause'], requestSeq?: number): TaskRecord {
    const rec = this.tasks.get(id);
    if (!rec) throw new Error(`[harness] ledger: unknown task ${id}`);
    if (isTerminal(rec.state)) throw new Error(`[harness] ledger: task ${id} is already ${rec.state}`);
    const ev = this.transcript.record({ kind: 'task', taskId: id, state, cause, requestSeq });
    rec.state = state;
    rec.history.push({ seq: ev.seq, state });
    return rec;
  }

  get(id: string): TaskRecord | undefined {
    return this.tasks.get(id);
  }

  /** Lets a finished task go (`serve` keeps only the latest; its events stay in the transcript's ring). */
  forget(id: string): void {
    this.tasks.delete(id);
  }

  all(): TaskRecord[] {
    return [...this.tasks.values()];
  }

  /** A deep copy, for results and the oracle. */
  snapshot(): TaskRecord[] {
    return this.all().map((t) => ({ ...t, history: t.history.map((h) => ({ ...h })) }));
  }
}
