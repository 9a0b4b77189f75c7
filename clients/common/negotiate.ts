/**
 * The clients' negotiation step: card × profile × intent → a plan, computed before the first task
 * id is minted (docs/duties.md §1: declining after a task exists is worse). This is the client's own reasoning from what the
 * card says (read by ./card.ts); it never sees the peer's runtime and shares no code with the
 * harness's oracle.
 *
 * `Mistakes` switch on the errors the naive "Northwind" client makes; the reference has none.
 */
import contentType from 'content-type';
import { dialectOfVersion } from '../../harness/core/protocol/card-view.js';
import { CONTOSO_AUDIO_SESSION_EXT, RESUBSCRIBE_ONLY_OUTPUTS_EXT } from '../../harness/core/protocol/extensions.js';
import type { Binding, ClientProfile, Dialect, ErrorClass, TaskIntent } from '../../harness/core/protocol/types.js';
import { modesFor, type ClientCard } from './card.js';
import type { TrustMistakes } from './trust.js';

/** The extensions this client implements (declared in its hello): Contoso's live audio session. */
export const IMPLEMENTED_EXTENSIONS = [CONTOSO_AUDIO_SESSION_EXT];

export interface Mistakes extends TrustMistakes {
  /** Matches media types loosely (the mistake of docs/duties.md §7): the offered type may carry extra parameters. */
  looseMediaMatch?: boolean;
  /** Treats an artifact it cannot decode as transient: re-sends the same message. */
  retriesOnDecode?: boolean;
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
  /** Ignores an extension it implements that resolves the card. */
  neverEscalates?: boolean;
  /** Sends no A2A-Version header. */
  omitsA2aVersion?: boolean;
  /** Decides on live input without reading the card. */
  decidesBlind?: boolean;
  /** Binds blind to the card's default input modes, whatever a skill re-declares. */
  ignoresSkillModes?: boolean;
  /** Repeats a call answered 401 with the same credentials. */
  repeatsChallengedCall?: boolean;
  /** Gives up when a surface the card offers is refused, although another works (polling). */
  abortsOnRefusal?: boolean;
  /** Waits on push alone after its registration was refused. */
  waitsOnRefusedPush?: boolean;
  /** Sends the task on a card from another origin than the RPC without a probe first. */
  skipsProbe?: boolean;
  /** Picks the binding it likes best (the first of its own list the card offers), whatever the card's order. */
  ignoresInterfaceOrder?: boolean;
  /** Takes a stream that ends before its task as a lost request: sends the message again. */
  resendsOnStreamDrop?: boolean;
  /** Its push receiver takes any delivery, whatever its credentials, and the client acts on it. */
  trustsAnyPush?: boolean;
  /** Takes a delivery's end for its task's, whatever task the delivery names. */
  actsOnForeignTaskPush?: boolean;
  /** Its push receiver answers every delivery it takes with 500. */
  acksPushWithError?: boolean;
  /** Its push receiver takes any delivery; on one saying its task FAILED it cancels the task, sends the message again and follows the new task. */
  cancelsOnFailedPush?: boolean;
  /** Takes a stream that ends before its task for a lost task: cancels it and starts again with SendMessage (a new messageId, other metadata). */
  resendsBySendOnStreamDrop?: boolean;
  /** Takes a 429 or 503 with Retry-After while polling for a failure: cancels the task (and waits for nothing). */
  cancelsOnTransientRefusal?: boolean;
  /** Answers each push delivery of its task with a message to the task, a duplicate as much as the original. */
  actsOnEachDelivery?: boolean;
  /** Dispatches each `data:` line of a stream's event as an event of its own. */
  splitsDataLines?: boolean;
  /** Reads a stream's lines with a 64 KiB scanner, and takes a longer line for the stream's end. */
  capsSseLines?: boolean;
  /** Reads a streaming call refused before any event (a plain JSON error, an error event) as a stream that ended empty. */
  emptiesRefusedStream?: boolean;
  /** Reads each v1.0 answer with a strict protobuf JSON parser: a member its message does not define fails the call. */
  rejectsUnknownFields?: boolean;
  /** Gets a token with the run's credentials before anything else and sends it on every request, the card's fetch included. */
  sendsTokenEverywhere?: boolean;
  /** Caches the card before verifying it, and on the retry after a failed verification takes it from the cache as resolved. */
  cachesRejectedCard?: boolean;
  /** Takes each read of a stream's body for whole lines (a line split across reads is lost). */
  readsChunksAsLines?: boolean;
  /** Buffers a stream's event without bound: a line or event that never ends is read until the deadline. */
  buffersWithoutBound?: boolean;
  /** Reads a stream until the agent closes it, the terminal event notwithstanding. */
  waitsForStreamEnd?: boolean;
  /** Stops reading a stream at its terminal event without closing it; its connections outlive the report. */
  leavesStreamOpen?: boolean;
}

export type Plan =
  | { action: 'reject'; errorClass: ErrorClass; notes: string }
  | {
      action: 'proceed';
      rpcUrl: string;
      /** The dialect of the interface chosen, and the A2A-Version it takes (none for 0.3, §3.6.1). */
      dialect: Dialect;
      /** The binding of the interface chosen, and the tenant it sets, copied into every request (§8.3.2 rule 4). */
      binding: Binding;
      tenant?: string;
      /** How the input goes out: text, one complete payload, or live frames. */
      input: 'text' | 'one-payload' | 'frames';
      completion: 'poll' | 'push' | 'stream' | 'none';
      acceptedOutputModes: string[];
      degradations: string[];
      /** Output modes the card marks unreachable that the intent accepts. */
      unreachableOutputs: string[];
      /** An extension to opt into on the first message (A2A-Extensions and Message.extensions). */
      optIn?: string;
      /** The skill the message names (`Message.metadata.skillId`), where the plan picked one. */
      skillId?: string;
      notes: string;
    };

/** A media type parsed: type lower-cased (RFC 9110 §8.3.1), parameter names lower-cased, a charset's value too (§8.3.2). */
function parse(mt: string): { type: string; params: Map<string, string> } | undefined {
  try {
    const p = contentType.parse(mt);
    const params = new Map(Object.entries(p.parameters).map(([k, v]) => [k.toLowerCase(), k.toLowerCase() === 'charset' ? v.toLowerCase() : v]));
    return { type: p.type.toLowerCase(), params };
  } catch {
    return undefined;
  }
}

/**
 * Whether `offered` is the type `wanted` names. Strict: the same type and exactly the same
 * parameters. Loose (docs/duties.md §7's mistake): the same type, `offered` may add parameters.
 */
export function sameType(wanted: string, offered: string, loose = false): boolean {
  const a = parse(wanted);
  const b = parse(offered);
  if (!a || !b) return wanted.trim().toLowerCase() === offered.trim().toLowerCase();
  if (a.type !== b.type) return false;
  for (const [k, v] of a.params) if (b.params.get(k) !== v) return false;
  return loose || a.params.size === b.params.size;
}

const LIVE_MEDIA = /^(audio|video)\//i;

/** True when every alternative of the card's security requirements needs an mTLS scheme. */
function everyAlternativeNeedsMtls(card: ClientCard): boolean {
  return card.requirements.length > 0 && card.requirements.every((alt) => alt.some((n) => card.schemes.get(n) === 'mtlsSecurityScheme'));
}

function resubscribeOnlyModes(card: ClientCard): string[] {
  const ext = card.extensions.find((e) => e.uri === RESUBSCRIBE_ONLY_OUTPUTS_EXT);
  return Array.isArray(ext?.params.modes) ? (ext.params.modes as unknown[]).map(String) : [];
}

export function negotiate(card: ClientCard, profile: ClientProfile, intent: TaskIntent, mistakes: Mistakes = {}): Plan {
  const has = (list: readonly string[], mt: string) => list.some((x) => sameType(mt, x, mistakes.looseMediaMatch === true));
  // §8.3.2: the first interface, in the card's order, whose binding and version the client speaks;
  // patch numbers are not considered (§3.6). This client speaks v0.3 over JSON-RPC only.
  const spoken = profile.dialects ?? ['a2a-v1'];
  const bindings: readonly string[] = profile.bindings ?? ['JSONRPC'];
  const candidates = card.interfaces.filter((i) => {
    const d = dialectOfVersion(i.version);
    return d !== undefined && spoken.includes(d) && bindings.includes(i.binding) && (d === 'a2a-v1' || i.binding === 'JSONRPC');
  });
  // The mistake: its own favourite binding first, the card's order only among interfaces of one binding.
  const iface = mistakes.ignoresInterfaceOrder ? bindings.map((b) => candidates.find((i) => i.binding === b)).find((i) => i) : candidates[0];
  if (!iface)
    return {
      action: 'reject',
      errorClass: 'unnegotiable-card',
      notes: `no interface in a binding and dialect this client speaks (${bindings.join(', ')}; ${spoken.join(', ')}); the card offers ${card.interfaces.map((i) => `${i.binding} ${i.version}`).join(', ') || 'none'}`,
    };

  if (mistakes.rejectsWholeCard) {
    const liveInputs = card.inputModes.filter((m) => LIVE_MEDIA.test(m));
    if ((!card.streaming && liveInputs.length > 0) || (card.push && everyAlternativeNeedsMtls(card)) || resubscribeOnlyModes(card).length > 0)
      return { action: 'reject', errorClass: 'unnegotiable-card', notes: 'card rejected: one of its capability combinations is unnegotiable' };
  }

  const mt = intent.input.mediaType;
  if (!has(mistakes.ignoresSkillModes ? card.inputModes : modesFor(card, intent.skillId, 'input'), mt))
    return { action: 'reject', errorClass: 'media-type', notes: `${mt} is not an input mode of ${intent.skillId ? `skill ${intent.skillId}` : 'the card'}` };

  const degradations: string[] = [];
  let input: 'text' | 'one-payload' | 'frames' = intent.input.frames ? 'one-payload' : 'text';
  let optIn: string | undefined;
  let notes = '';
  if (intent.taskClass === 'live-input') {
    const liveOnly = has(profile.liveOnlyInputModes, mt) && !has(profile.bufferableInputModes, mt);
    if (mistakes.streamsLiveAudio) input = 'frames';
    else if (liveOnly && card.streaming) input = 'frames';
    else if (liveOnly && profile.canRenegotiate) input = 'one-payload';
    else if (liveOnly) {
      // An extension of the card that this client implements, that the profile allows, and that takes this mode.
      const session = mistakes.neverEscalates
        ? undefined
        : card.extensions.find(
            (e) =>
              IMPLEMENTED_EXTENSIONS.includes(e.uri) &&
              profile.knownExtensions.includes(e.uri) &&
              (!Array.isArray(e.params.inputModes) || has((e.params.inputModes as unknown[]).map(String), mt)),
          );
      if (!session)
        return { action: 'reject', errorClass: 'unnegotiable-card', notes: `live-only ${mt} but the card does not offer streaming; cannot buffer it` };
      input = 'frames';
      optIn = session.uri;
      notes = `live ${mt} on a card without streaming: opting into ${session.uri}`;
    }
  }

  // Output modes: what the application accepts and, if the client consumes artifacts, can decode
  // (the consumption profile of docs/duties.md §7), that the card offers, minus what it marks unreachable.
  const usable = profile.consumesArtifacts ? intent.acceptedOutputModes.filter((m) => has(profile.mediaTypes, m)) : intent.acceptedOutputModes;
  let skillId = intent.skillId;
  let offered = modesFor(card, skillId, 'output');
  let accepted = usable.filter((m) => has(offered, m));
  if (intent.acceptedOutputModes.length > 0 && accepted.length === 0) {
    // Downgrade to a skill whose own outputs the client can use and whose inputs take this input.
    const other = card.skills.find(
      (k) => k.id !== skillId && k.outputModes && usable.some((m) => has(k.outputModes!, m)) && has(modesFor(card, k.id, 'input'), mt),
    );
    if (other) {
      degradations.push(`skill ${skillId ?? '(default)'}->${other.id}`);
      notes = `${notes ? `${notes}; ` : ''}the card's outputs cannot be used; skill ${other.id} emits ${other.outputModes!.join(', ')}`;
      skillId = other.id;
      offered = modesFor(card, skillId, 'output');
      accepted = usable.filter((m) => has(offered, m));
    }
  }
  const unreachableAll = card.streaming || mistakes.ignoresResubscribeOnly ? [] : resubscribeOnlyModes(card);
  const unreachable = accepted.filter((m) => has(unreachableAll, m));
  const reachable = accepted.filter((m) => !has(unreachableAll, m));
  // A client that reads status only never decodes an output: what the card offers cannot stop it (docs/duties.md §7:
  // a client that only follows a task's status and ignores its artifacts can proceed).
  if (profile.consumesArtifacts && intent.acceptedOutputModes.length > 0 && accepted.length === 0)
    return { action: 'reject', errorClass: 'media-type', notes: `the card offers none of ${intent.acceptedOutputModes.join(', ')}` };
  // The one output the application cannot do without: offered, and reachable.
  const required = intent.requiredOutputMode;
  if (required && !has(offered, required))
    return { action: 'reject', errorClass: 'media-type', notes: `the card does not offer ${required}, which the application needs` };
  if (required && has(unreachableAll, required))
    return {
      action: 'reject',
      errorClass: 'unnegotiable-card',
      notes: `${required}, which the application needs, is emitted only on SubscribeToTask, and the card does not offer streaming`,
    };
  if (accepted.length > 0 && reachable.length === 0)
    return {
      action: 'reject',
      errorClass: 'unnegotiable-card',
      notes: `the only acceptable outputs (${unreachable.join(', ')}) are emitted only on SubscribeToTask, and the card does not offer streaming`,
    };
  if (unreachable.length > 0) degradations.push('resubscribe->polling');

  let completion: 'poll' | 'push' | 'stream' | 'none' = 'poll';
  if (intent.taskClass === 'fire-and-forget') completion = 'none';
  else if (intent.completion === 'push') {
    if (mistakes.registersUnusablePush) completion = 'push';
    else if (profile.callback === 'none' || !card.push || (everyAlternativeNeedsMtls(card) && profile.callback !== 'mtls')) degradations.push('push->polling');
    else completion = 'push';
  } else if (intent.completion === 'stream') {
    if (card.streaming) completion = 'stream';
    else degradations.push('stream->polling');
  }
  return {
    action: 'proceed',
    rpcUrl: iface.url,
    dialect: dialectOfVersion(iface.version)!,
    binding: iface.binding as Binding,
    ...(iface.tenant !== undefined ? { tenant: iface.tenant } : {}),
    input,
    completion,
    acceptedOutputModes: accepted,
    degradations,
    unreachableOutputs: unreachable,
    ...(optIn ? { optIn } : {}),
    ...(skillId ? { skillId } : {}),
    notes,
  };
}
