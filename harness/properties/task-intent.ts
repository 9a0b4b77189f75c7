/**
 * `taskIntent`: what the client is asked to do in a generated case. A binary input comes as frames
 * (live or bufferable, as the profile says); a text input as a short sentence or JSON record.
 */
import fc from 'fast-check';
import type { CompletionPath, TaskClass, TaskIntent } from '../core/protocol/types.js';

export interface IntentInput {
  mediaType: string;
  /** Binary: sent as `frames` of `frameBytes`; otherwise a text. */
  binary?: boolean;
}

export interface TaskIntentConstraints {
  taskClass: TaskClass;
  input: IntentInput;
  completion: CompletionPath[];
  /** Output modes the application accepts, in preference order (a generated non-empty prefix of extras may follow). */
  accepted: string[];
  /** The accepted mode the application cannot do without. */
  required?: string;
  skillId?: string;
}

const SENTENCES = [
  'Assess claim 4711',
  'Printer on floor 3 is jammed again',
  'What was said in the last meeting?',
  'Plan the Q3 offsite',
  'Summarize ticket 88',
];

export function taskIntent(c: TaskIntentConstraints): fc.Arbitrary<TaskIntent> {
  if (c.completion.length === 0) throw new Error('taskIntent: completion must name at least one path');
  if (c.accepted.length === 0) throw new Error('taskIntent: accepted must name at least one output mode');
  if (c.required && !c.accepted.includes(c.required)) throw new Error('taskIntent: required must be one of accepted');
  const input: fc.Arbitrary<TaskIntent['input']> = c.input.binary
    ? fc.record({ frames: fc.integer({ min: 2, max: 6 }), frameBytes: fc.constantFrom(160, 320, 640) }).map((f) => ({ mediaType: c.input.mediaType, ...f }))
    : fc
        .constantFrom(...SENTENCES)
        .map((t) => ({ mediaType: c.input.mediaType, text: c.input.mediaType === 'application/json' ? JSON.stringify({ summary: t }) : t }));
  return fc.record({ input, completion: fc.constantFrom(...c.completion) }).map(({ input, completion }) => ({
    taskClass: c.taskClass,
    input,
    acceptedOutputModes: c.accepted,
    ...(c.required ? { requiredOutputMode: c.required } : {}),
    completion,
    ...(c.skillId ? { skillId: c.skillId } : {}),
  }));
}
