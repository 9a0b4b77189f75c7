/**
 * The reference client: correct on every rule. It reads the card it fetched with its own reader
 * (clients/common/card.ts, written from the proto), reasons from it, its profile and the intent
 * (clients/common/negotiate.ts), calls through global `fetch` with an undici Agent (JSON-RPC, HTTP+JSON)
 * or @grpc/grpc-js (gRPC), on the first interface of the card it speaks, and hosts its own
 * push receiver. It imports nothing of the harness but core's protocol folder (harness/core/protocol/); a differential test
 * compares its decisions with the oracle's rules.
 */
import type { ClientAdapter } from '../../harness/core/protocol/adapter.js';
import { BINDINGS, TASK_CLASSES } from '../../harness/core/protocol/types.js';
import { runClient } from '../common/engine.js';
import { IMPLEMENTED_EXTENSIONS } from '../common/negotiate.js';

export const REFERENCE_VERSION = '0.1.0';

export function createReferenceClient(): ClientAdapter {
  return {
    hello: () => ({
      name: 'reference',
      version: REFERENCE_VERSION,
      profile: null,
      taskClasses: [...TASK_CLASSES],
      extensions: [...IMPLEMENTED_EXTENSIONS],
      dialects: ['a2a-v1', 'a2a-v0.3'],
      dialectsPerRun: true,
      bindings: [...BINDINGS],
    }),
    run: (req, signal) => runClient(req, signal),
  };
}
