/**
 * The scenario model (DESIGN.md §4.4): plain data. A scenario names its rule, the peer the harness
 * scripts (a factory name, the exact card and how the runtime really behaves), the profile it
 * needs, the task intent and the verdict the reference client must get.
 */
import type { Level } from './sources.js';
import type { ClientProfile, ProfileConstraints, TaskIntent } from './vocabulary/types.js';
import type { VerdictKind } from './verdict.js';

/** The listeners a peer can be reached on (harness/net). */
/**
 * The listeners every worker runs. `vendor-b` is another vendor's origin (its own port and its own
 * certificate, from the test CA): where a card's signing keys are published (seed 001).
 */
export const LISTENER_KINDS = ['tls', 'mtls', 'untrusted-ca', 'wrong-host', 'expired', 'vendor-b'] as const;
export type ListenerKind = (typeof LISTENER_KINDS)[number];
export const BAD_CERT_LISTENERS: ReadonlySet<ListenerKind> = new Set(['untrusted-ca', 'wrong-host', 'expired']);

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
    /** How the peer's dispatcher calls receivers: plain HTTPS, or partner mTLS. */
    delivery: 'plain' | 'partner-mtls';
    /**
     * A task whose push delivery was lost stays WORKING until the client cancels it. Off in every
     * built-in scenario: the seed's task still completes, only its callback is lost.
     */
    stallOnLostPush?: boolean;
  };
  /** What the runtime emits, and on which channel. */
  outputs: Array<{ mediaType: string; channel: OutputChannel }>;
  /** Subscribe-only outputs are also served on GetTask: a fallback the card omits. */
  pollFallback?: boolean;
  /** How SendMessage answers: with a Task (default), or with a direct Message and no task (spec §3.1.1). */
  reply?: 'task' | 'message';
  /**
   * Deprecated and ignored since ruleset 2: escalation goes through the spec's extension mechanism
   * (`input.sessionExtension`), not an endpoint only our docs name. Still accepted in scenario files.
   */
  negotiation?: { path: string; extension: string };
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

export interface PeerDescription {
  /** The peer factory in peers/ (e.g. `contoso-audio-batch`). */
  factory: string;
  /**
   * The exact card JSON the peer serves. Strings may hold `{{rpcUrl}}` (and, for old scenario files,
   * `{{negotiationUrl}}`), filled in per run with loopback URLs.
   */
  card: Record<string, unknown>;
  runtime: PeerRuntime;
  signals: CardSignal[];
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
}

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

/** Whether a fixed profile meets a scenario's constraints; the reason when it does not. */
export function unmetConstraint(profile: ClientProfile, constraints: ProfileConstraints): string | undefined {
  for (const [key, want] of Object.entries(constraints) as Array<[keyof ClientProfile, unknown]>) {
    const have = profile[key];
    if (Array.isArray(want)) {
      const list = Array.isArray(have) ? (have as unknown[]) : [];
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
