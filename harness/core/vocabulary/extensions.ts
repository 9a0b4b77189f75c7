/**
 * Extension URIs of this harness (documented in docs/extensions.md). A card that carries one of
 * these states a fact that A2A v1.0 fields cannot: a *harness convention*, graded more leniently
 * than a spec-derivable signal (DESIGN.md §3, "What the card can tell").
 */

/** `params.modes`: output media types the peer only emits on `SubscribeToTask`. */
export const RESUBSCRIBE_ONLY_OUTPUTS_EXT = 'urn:a2a-conformance:ext:resubscribe-only-outputs:v1';
