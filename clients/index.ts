/** The built-in clients, by the name `--client` takes. */
import type { BuiltinClient, ClientAdapter } from '../harness/core/protocol/adapter.js';
import { createA2aJsSdkClient } from './a2a-js-sdk/index.js';
import { createA2aJsSdkV03Client } from './a2a-js-sdk-v03/index.js';
import { createNaiveClient, MISTAKES } from './naive/index.js';
import { createReferenceClient } from './reference/index.js';

export const BUILTIN_CLIENTS: BuiltinClient[] = [
  { name: 'reference', description: 'correct on every rule', create: createReferenceClient },
  {
    name: 'naive',
    description: 'trusts a valid card as a contract: every mistake of the incidents in docs/duties.md at once',
    create: () => createNaiveClient(),
  },
  { name: 'a2a-js-sdk', description: 'the real @a2a-js/sdk 1.3.0 client, used as an application uses it', create: createA2aJsSdkClient },
  { name: 'a2a-js-sdk@0.3', description: 'the real @a2a-js/sdk 0.3.14 client (A2A v0.3), used the same way', create: createA2aJsSdkV03Client },
  ...MISTAKES.map((m) => ({
    name: `naive:${m.name}`,
    description: m.description,
    caughtBy: m.caughtBy,
    atLeast: m.atLeast,
    create: () => createNaiveClient(m.name),
  })),
];

export function createBuiltinClient(name: string): ClientAdapter {
  const c = BUILTIN_CLIENTS.find((b) => b.name === name);
  if (!c) throw new Error(`unknown client "${name}". Built-in clients: ${BUILTIN_CLIENTS.map((b) => b.name).join(', ')} (or use --client-cmd)`);
  return c.create();
}
