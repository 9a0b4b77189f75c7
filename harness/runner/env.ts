/**
 * Sets up and tears down what one worker (or one in-process run) needs: the PKI read from disk,
 * the shared listeners, the push dispatcher and the client adapter.
 */
import type { ClientAdapter } from '../adapters/contract.js';
import type { Hello } from '../core/vocabulary/types.js';
import { PeerHost } from '../net/peer-host.js';
import { PushDispatcher } from '../net/push-dispatcher.js';
import { pkiPaths, readPki } from '../pki/index.js';
import type { RunEnv } from './execute.js';

export interface EnvOptions {
  pkiDir: string;
  client: ClientAdapter;
  hello?: Hello;
  idSalt: string;
  deadlineMultiplier: number;
}

export async function openEnv(o: EnvOptions): Promise<RunEnv> {
  const pki = await readPki(o.pkiDir);
  const [host, hello] = await Promise.all([PeerHost.start(pki, ownerOf(o.client)), o.hello ?? o.client.hello()]);
  return {
    host,
    dispatcher: new PushDispatcher(pki),
    pki: pkiPaths(o.pkiDir),
    pems: pki,
    client: o.client,
    hello,
    idSalt: o.idSalt,
    deadlineMultiplier: o.deadlineMultiplier,
  };
}

/** The process groups a lane's listeners credit connections to: a client in processes of its own (ClientAdapter.processes). */
export const ownerOf = (client: ClientAdapter): (() => number[]) | undefined => (client.processes ? () => client.processes!() : undefined);

export async function closeEnv(env: RunEnv): Promise<void> {
  await Promise.allSettled([env.host.close(), env.dispatcher.close(), env.client.close?.()]);
}
