/**
 * `clientProfile`: the profile constraints a generated case hands a per-run client (merged over the
 * defaults by `profileFor`, as for any scenario). Each mode the client produces is live-only or
 * bufferable, each decoder present or not, the receiver one of the allowed kinds.
 */
import fc from 'fast-check';
import type { CallbackProfile, ProfileConstraints } from '../core/protocol/types.js';

export interface ClientProfileConstraints {
  /** Binary modes the client produces: each is generated live-only or bufferable. */
  produces?: string[];
  /** Produced modes that are always live-only (the story needs it so). */
  liveOnly?: string[];
  /** The receivers the client may host (one is picked); default `none`. */
  callbacks?: CallbackProfile[];
  /** Media types the client always decodes, beyond the defaults. */
  decoders?: string[];
  /** Media types it may decode. */
  maybeDecoders?: string[];
  /** Whether `canRenegotiate` may be generated true (rarely, one case in eight). */
  mayRenegotiate?: boolean;
  /** Extension URIs the client may know (each generated in or out); the run keeps only those its hello declares. */
  mayKnow?: string[];
}

const BASE_MODES = ['text/plain', 'application/json'];

export function clientProfile(c: ClientProfileConstraints = {}): fc.Arbitrary<ProfileConstraints> {
  const callbacks = c.callbacks ?? ['none'];
  if (callbacks.length === 0) throw new Error('clientProfile: callbacks must name at least one receiver kind');
  const always = new Set(c.liveOnly ?? []);
  const free = (c.produces ?? []).filter((m) => !always.has(m));
  return fc
    .record({
      live: fc.subarray(free),
      callback: fc.constantFrom(...callbacks),
      maybe: fc.subarray(c.maybeDecoders ?? []),
      known: fc.subarray(c.mayKnow ?? []),
      renegotiate: c.mayRenegotiate ? fc.integer({ min: 0, max: 7 }).map((n) => n === 7) : fc.constant(false),
    })
    .map(({ live, callback, maybe, known, renegotiate }) => {
      const liveOnly = [...always, ...live];
      const p: ProfileConstraints = {
        bufferableInputModes: [...BASE_MODES, ...free.filter((m) => !live.includes(m))],
        liveOnlyInputModes: liveOnly,
        mediaTypes: [...new Set([...BASE_MODES, ...(c.decoders ?? []), ...maybe])],
      };
      if (callback !== 'none') p.callback = callback;
      if (renegotiate) p.canRenegotiate = true;
      if (known.length) p.knownExtensions = known;
      return p;
    });
}
