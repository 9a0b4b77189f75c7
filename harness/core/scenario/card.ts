/**
 * A scenario's card, as data beside the card itself: the signals it relies on (and the level each caps
 * a rule at), how the peer signs it (A2A §8.4), the signing keys of a run, and the placeholders filled
 * per run (docs/scenarios.md).
 */
import type { Level } from '../sources.js';

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

/** Where a peer publishes a JWKS, under a run's base URL on a listener. */
export const JWKS_PATH = '/.well-known/jwks.json';

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
