/**
 * The scenario model (docs/scenarios.md; docs/scenario.schema.json): plain data. A scenario names its rule, the peer the harness
 * scripts (a factory name, the exact card and how the runtime really behaves), the profile it
 * needs, the task intent and the verdict the reference client must get. Its parts by concern, beside
 * it: the card's signals and signing (./card.ts), the peer's runtime and its incidents (./runtime.ts),
 * the client's profile and dialects (./profile.ts), the author's assertions (./assertions.ts).
 */
import type { Level } from '../sources.js';
import type { Binding, Dialect, ProfileConstraints, TaskIntent } from '../protocol/types.js';
import type { VerdictKind } from '../verdict.js';
import type { Assertion } from './assertions.js';
import type { CardSignal, CardSigning } from './card.js';
import type { PeerRuntime } from './runtime.js';

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
  /** A live agent behind a recording proxy (`proxy`, docs/live.md): no scenario file can name one. */
  live?: LiveUpstream;
}

/** The real agent a live peer fronts (`proxy --upstream`), and what the proxy does to its traffic. */
export interface LiveUpstream {
  /** Where its card was read. */
  cardUrl: string;
  /** The card as the agent served it (its interfaces at the agent's own URLs). */
  card: Record<string, unknown>;
  /** Every event stream ended after its first event, the task left to go on (`--cut-streams`). */
  cutStreams?: boolean;
  /** The first call of this operation answered 503 with Retry-After: 1, not forwarded (`--refuse-first`). */
  refuseFirst?: string;
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
