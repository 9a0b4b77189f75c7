/**
 * Extension URIs the built-in scenarios use (documented in docs/extensions.md), defined once. A card
 * carries them in `capabilities.extensions` (A2A v1.0 §4.6.1). A fact read only from one of ours is a
 * *convention* (docs/rules.md): a miss against it is at most NON_STRICT; harm stays FAIL.
 */

/** Ours. `params.modes`: output media types the peer only emits on `SubscribeToTask`. */
export const RESUBSCRIBE_ONLY_OUTPUTS_EXT = 'urn:a2a-conformance:ext:resubscribe-only-outputs:v1';

/**
 * The scripted vendor Contoso's. A message that opts into it (the `A2A-Extensions` header or
 * `Message.extensions`) starts a live session: the task takes audio frame by frame. `params.inputModes`
 * lists the media types the session takes.
 */
export const CONTOSO_AUDIO_SESSION_EXT = 'urn:contoso:a2a:ext:audio-session:v1';
