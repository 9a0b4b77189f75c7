/**
 * The naive client: Northwind's client of seed 000, which trusts a valid card as a contract.
 * `naive` makes every mistake at once; `naive:<mistake>` makes one. Each mistake names the rule
 * that must catch it.
 */
import type { ClientAdapter } from '../../harness/core/vocabulary/adapter.js';
import { TASK_CLASSES } from '../../harness/core/vocabulary/types.js';
import { runClient } from '../common/engine.js';
import type { Mistakes } from '../common/negotiate.js';

export interface MistakeInfo {
  name: string;
  flag: keyof Mistakes;
  description: string;
  /** The rule that must catch it (FAIL or TIMEOUT). */
  caughtBy: string;
}

export const MISTAKES: MistakeInfo[] = [
  { name: 'streams-live-audio', flag: 'streamsLiveAudio', description: 'streams live audio frame by frame to a non-streaming agent', caughtBy: 'NEG-LIVE-INPUT' },
  { name: 'registers-unusable-push', flag: 'registersUnusablePush', description: 'registers push its receiver cannot honour and waits on it', caughtBy: 'NEG-PUSH-MTLS' },
  { name: 'rejects-whole-card', flag: 'rejectsWholeCard', description: 'rejects the whole card for every task class when any part of it is unnegotiable', caughtBy: 'NEG-LIVE-INPUT' },
  { name: 'ignores-resubscribe-only', flag: 'ignoresResubscribeOnly', description: 'ignores resubscribe-only outputs and insists on SubscribeToTask', caughtBy: 'NEG-RESUB-ONLY-OUTPUT' },
  { name: 'skips-tls-verify', flag: 'skipsTlsVerify', description: 'skips certificate verification', caughtBy: 'SPEC-TLS-VERIFY' },
  { name: 'never-cancels', flag: 'neverCancels', description: 'never cancels the tasks it abandons', caughtBy: 'WIRE-NO-ORPHANS' },
  { name: 'retries-blindly', flag: 'retriesBlindly', description: 'repeats a failed request identically', caughtBy: 'WIRE-NO-BLIND-RETRY' },
  { name: 'never-escalates', flag: 'neverEscalates', description: 'ignores a known extension that resolves the card', caughtBy: 'NEG-ESCALATE' },
];

export function createNaiveClient(only?: string): ClientAdapter {
  const chosen = only === undefined ? MISTAKES : MISTAKES.filter((m) => m.name === only);
  if (chosen.length === 0) throw new Error(`unknown naive mistake "${only}". Known: ${MISTAKES.map((m) => m.name).join(', ')}`);
  const mistakes: Mistakes = Object.fromEntries(chosen.map((m) => [m.flag, true]));
  const name = only === undefined ? 'naive' : `naive:${only}`;
  return {
    hello: () => ({ name, version: '0.1.0', profile: null, taskClasses: [...TASK_CLASSES] }),
    run: (req, signal) => runClient(req, signal, mistakes),
  };
}
