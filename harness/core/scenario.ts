/**
 * The scenario model (docs/scenarios.md; docs/scenario.schema.json): plain data. A scenario names its rule, the peer the harness
 * scripts (a factory name, the exact card and how the runtime really behaves), the profile it
 * needs, the task intent and the verdict the reference client must get.
 */
import type { Level } from './sources.js';
import { DEFAULT_PROFILE, type Binding, type ClientProfile, type Dialect, type Hello, type ProfileConstraints, type TaskIntent } from './protocol/types.js';
import type { VerdictKind } from './verdict.js';

export {
  BAD_CERT_LISTENERS,
  GRPC_LISTENER_KINDS,
  LISTENER_KINDS,
  type ListenerKind,
  OPERATIONS,
  type Operation,
  type OutputChannel,
  type PeerRuntime,
  type SseFraming,
} from './peer-runtime.js';
import type { Operation, PeerRuntime } from './peer-runtime.js';

/**
 * How a client could know what a signal means: at a level (docs/rules.md), or by older names kept for
 * old scenario files: `spec-derivable` (ruleset 1) caps nothing (the rule's sources decide),
 * `harness-convention` (ruleset 1) is `convention`, and `seed` (before a2a-1.0.1@15) is `field`.
 */
export type SignalKind = Level | 'spec-derivable' | 'harness-convention' | 'seed';

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
  if (kind === 'seed') return 'field';
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
  /** The card is signed after its placeholders are filled (docs/duties.md §7; A2A v1.0.1 §8.4). */
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
   * scenario carries a source beyond its scope (the handshake duties of docs/duties.md, told by a v0.3 peer:
   * §12), a miss grades at this weaker reading (docs/rules.md, principle 8). Harm is FAIL whatever it says.
   */
  levelCap?: { level: Level; why: string };
  /** The binding this scenario is told over, where a telling made it (harness/core/card-binding.ts: `<id>.grpc`, `<id>.rest`); never in a scenario file. */
  binding?: Binding;
}

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
