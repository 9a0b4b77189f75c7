/**
 * The clients' negotiation step: card × profile × intent → a plan, computed before the first task
 * id is minted (seed 000, "Operational Effect"). This is the client's own reasoning from what the
 * card says; it never sees the peer's runtime and shares no code with the harness's oracle.
 *
 * `Mistakes` switch on the errors the naive "Northwind" client makes; the reference has none.
 */
import contentType from 'content-type';
import { inputModesFor, outputModesFor, type CardView } from '../../harness/core/vocabulary/card-view.js';
import type { ClientProfile, ErrorClass, TaskIntent } from '../../harness/core/vocabulary/types.js';

/** The harness's documented convention: output modes only emitted on SubscribeToTask. */
export const RESUBSCRIBE_ONLY_EXTENSION = 'urn:a2a-conformance:ext:resubscribe-only-outputs:v1';

export interface Mistakes {
  /** Streams live audio frame by frame whatever the card says. */
  streamsLiveAudio?: boolean;
  /** Registers push whatever the card's security posture, then waits on it. */
  registersUnusablePush?: boolean;
  /** Rejects the whole card, for every task class, when any part of it looks unnegotiable. */
  rejectsWholeCard?: boolean;
  /** Ignores resubscribe-only outputs, then insists on SubscribeToTask. */
  ignoresResubscribeOnly?: boolean;
  /** Skips certificate verification. */
  skipsTlsVerify?: boolean;
  /** Never cancels what it abandons. */
  neverCancels?: boolean;
  /** Repeats a failed request identically. */
  retriesBlindly?: boolean;
  /** Ignores an extension it knows that resolves the card. */
  neverEscalates?: boolean;
}

export type Plan =
  | { action: 'reject'; errorClass: ErrorClass; notes: string }
  | { action: 'escalate'; url: string; extension: string; notes: string }
  | {
      action: 'proceed';
      rpcUrl: string;
      /** How the input goes out: text, one complete payload, or live frames. */
      input: 'text' | 'one-payload' | 'frames';
      completion: 'poll' | 'push' | 'stream' | 'none';
      acceptedOutputModes: string[];
      degradations: string[];
      /** Output modes the card marks unreachable that the intent accepts. */
      unreachableOutputs: string[];
    };

function canon(mt: string): string {
  try {
    const p = contentType.parse(mt);
    const params = Object.keys(p.parameters).sort().map((k) => `${k}=${p.parameters[k]}`);
    return [p.type.toLowerCase(), ...params].join(';');
  } catch {
    return mt.trim().toLowerCase();
  }
}
const has = (list: readonly string[], mt: string) => list.some((x) => canon(x) === canon(mt));
const LIVE_MEDIA = /^(audio|video)\//i;

/** True when every alternative of the card's security requirements needs an mTLS scheme. */
function mtlsOnly(card: CardView): boolean {
  return (
    card.securityRequirements.length > 0 &&
    card.securityRequirements.every((alt) => alt.some((n) => card.securitySchemes[n] === 'mtlsSecurityScheme'))
  );
}

function resubscribeOnlyModes(card: CardView): string[] {
  const ext = card.extensions.find((e) => e.uri === RESUBSCRIBE_ONLY_EXTENSION);
  return Array.isArray(ext?.params.modes) ? (ext.params.modes as unknown[]).map(String) : [];
}

export function negotiate(card: CardView, profile: ClientProfile, intent: TaskIntent, mistakes: Mistakes = {}): Plan {
  const iface = card.interfaces.find((i) => i.protocolBinding === 'JSONRPC' && /^1\./.test(i.protocolVersion));
  if (!iface) return { action: 'reject', errorClass: 'unnegotiable-card', notes: 'no JSONRPC interface for protocol version 1.x' };

  if (mistakes.rejectsWholeCard) {
    const liveInputs = card.defaultInputModes.filter((m) => LIVE_MEDIA.test(m));
    if ((card.streaming !== true && liveInputs.length > 0) || (card.pushNotifications === true && mtlsOnly(card)) || resubscribeOnlyModes(card).length > 0)
      return { action: 'reject', errorClass: 'unnegotiable-card', notes: 'card rejected: one of its capability combinations is unnegotiable' };
  }

  const mt = intent.input.mediaType;
  if (!has(inputModesFor(card, intent.skillId), mt))
    return { action: 'reject', errorClass: 'media-type', notes: `${mt} is not an input mode of ${intent.skillId ? `skill ${intent.skillId}` : 'the card'}` };

  const degradations: string[] = [];
  let input: 'text' | 'one-payload' | 'frames' = intent.input.frames ? 'one-payload' : 'text';
  if (intent.taskClass === 'live-input') {
    const liveOnly = has(profile.liveOnlyInputModes, mt) && !has(profile.bufferableInputModes, mt);
    if (mistakes.streamsLiveAudio) input = 'frames';
    else if (liveOnly && card.streaming === true) input = 'frames';
    else if (liveOnly && profile.canRenegotiate) input = 'one-payload';
    else if (liveOnly) {
      const ext = mistakes.neverEscalates
        ? undefined
        : card.extensions.find((e) => profile.knownExtensions.includes(e.uri) && typeof e.params.negotiationUrl === 'string');
      if (ext) return { action: 'escalate', url: String(ext.params.negotiationUrl), extension: ext.uri, notes: `live ${mt} on a non-streaming card; ${ext.uri} negotiates it out of band` };
      return { action: 'reject', errorClass: 'unnegotiable-card', notes: `live-only ${mt} but the card does not offer streaming; cannot buffer it` };
    }
  }

  // Output modes: what the application accepts, that the card offers, minus what it marks unreachable.
  const offered = outputModesFor(card, intent.skillId);
  const accepted = intent.acceptedOutputModes.filter((m) => has(offered, m));
  const unreachableAll = card.streaming === true || mistakes.ignoresResubscribeOnly ? [] : resubscribeOnlyModes(card);
  const unreachable = accepted.filter((m) => has(unreachableAll, m));
  const reachable = accepted.filter((m) => !has(unreachableAll, m));
  if (intent.acceptedOutputModes.length > 0 && accepted.length === 0)
    return { action: 'reject', errorClass: 'media-type', notes: `the card offers none of ${intent.acceptedOutputModes.join(', ')}` };
  if (accepted.length > 0 && reachable.length === 0)
    return { action: 'reject', errorClass: 'unnegotiable-card', notes: `the only acceptable outputs (${unreachable.join(', ')}) are emitted only on SubscribeToTask, and the card does not offer streaming` };
  if (unreachable.length > 0) degradations.push('resubscribe->polling');

  let completion: 'poll' | 'push' | 'stream' | 'none' = 'poll';
  if (intent.taskClass === 'fire-and-forget') completion = 'none';
  else if (intent.completion === 'push') {
    if (mistakes.registersUnusablePush) completion = 'push';
    else if (profile.callback === 'none' || card.pushNotifications !== true || (mtlsOnly(card) && profile.callback !== 'mtls')) degradations.push('push->polling');
    else completion = 'push';
  } else if (intent.completion === 'stream') {
    if (card.streaming === true) completion = 'stream';
    else degradations.push('stream->polling');
  }
  return { action: 'proceed', rpcUrl: iface.url, input, completion, acceptedOutputModes: accepted, degradations, unreachableOutputs: unreachable };
}
