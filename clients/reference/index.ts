/**
 * The reference client: correct on every rule. It reasons only from the card it fetched, its
 * profile and the intent (clients/common/negotiate.ts), calls through global `fetch` with an undici
 * Agent, and hosts its own push receiver. It imports nothing from the oracle or the rules.
 */
import type { ClientAdapter } from '../../harness/core/vocabulary/adapter.js';
import { TASK_CLASSES } from '../../harness/core/vocabulary/types.js';
import { runClient } from '../common/engine.js';

export const REFERENCE_VERSION = '0.1.0';

export function createReferenceClient(): ClientAdapter {
  return {
    hello: () => ({ name: 'reference', version: REFERENCE_VERSION, profile: null, taskClasses: [...TASK_CLASSES] }),
    run: (req, signal) => runClient(req, signal),
  };
}
