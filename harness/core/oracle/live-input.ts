/**
 * Live-only input (docs/duties.md §1): what the profile, the card and the runtime say about an input that can
 * only go out frame by frame, and the extension that resolves a contradictory card. NEG-LIVE-INPUT
 * and NEG-ESCALATE read it, and `completable` (graders.ts) too.
 */
import type { PeerRuntime } from '../scenario/runtime.js';
import { wireEvidence, type EvidenceRef } from '../verdict.js';
import { inputModesFor } from '../protocol/card-view.js';
import { includesMediaType } from '../protocol/media-type.js';
import type { TaskIntent } from '../protocol/types.js';
import { failed, rpcCalls, type GradeInput } from './evidence.js';
import type { Situation } from './rule.js';

export const liveOnly = (s: Situation) => {
  const mt = s.intent.input.mediaType;
  return includesMediaType(s.profile.liveOnlyInputModes, mt) && !includesMediaType(s.profile.bufferableInputModes, mt);
};

export const takesFrames = (rt: PeerRuntime) => !rt.input || rt.input.acceptsFrames;

/** A SendMessage to a task after one to the same task failed: the refused frame sent again. */
export function framesAfterRefusal(x: GradeInput): EvidenceRef[] {
  const sends = rpcCalls(x, 'SendMessage').filter((e) => e.taskId);
  for (const first of sends) {
    if (!failed(first)) continue;
    const again = sends.filter((e) => e.seq > first.seq && e.taskId === first.taskId);
    if (again.length > 0)
      return [
        wireEvidence(first.seq, `SendMessage to ${first.taskId} refused (${first.status}${first.rpcError ? `, ${first.rpcError.code}` : ''})`),
        ...again.map((e) => wireEvidence(e.seq, `SendMessage to ${e.taskId} again`)),
      ];
  }
  return [];
}

export function contradictoryForLiveInput(s: Situation, intent: TaskIntent): boolean {
  return (
    intent.taskClass === 'live-input' &&
    liveOnly(s) &&
    !s.profile.canRenegotiate &&
    s.card.streaming !== true &&
    !takesFrames(s.truth.runtime) &&
    includesMediaType(inputModesFor(s.card, intent.skillId), intent.input.mediaType)
  );
}

/**
 * The extension that resolves a contradictory live-input card for this client, as the card says it:
 * one the card declares, the client declared in its hello, and whose documented `params.inputModes`
 * (docs/extensions.md) list the input. Whether the runtime honours it is the truth NEG-ESCALATE reads.
 */
export function resolvingExtension(s: Situation): string | undefined {
  if (!contradictoryForLiveInput(s, s.intent)) return undefined;
  const mt = s.intent.input.mediaType;
  return s.card.extensions.find(
    (e) =>
      s.profile.knownExtensions.includes(e.uri) && Array.isArray(e.params.inputModes) && includesMediaType((e.params.inputModes as unknown[]).map(String), mt),
  )?.uri;
}
