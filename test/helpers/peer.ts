/** Starts one scripted peer on real listeners, outside the runner, for contract tests. */
import { Agent, request } from 'undici';
import type { PeerDescription } from '../../harness/core/scenario/scenario.js';
import type { TaskLedger, Transcript } from '../../harness/core/transcript.js';
import { PeerHost } from '../../harness/net/peer-host.js';
import { PushDispatcher } from '../../harness/net/push-dispatcher.js';
import { makePki, type Pki } from '../../harness/pki/index.js';
import type { PeerInstance, PeerParts } from '../../peers/index.js';
import { mountPeer } from '../../harness/runner/infrastructure/mount.js';
import { transports } from '../../peers/wires/index.js';
import { afterAll, beforeAll } from 'vitest';

export interface PeerFixture {
  pki: Pki;
  host: PeerHost;
  dispatcher: PushDispatcher;
  start(
    desc: PeerDescription,
    opts?: { deadlineMs?: number; parts?: PeerParts },
  ): { peer: PeerInstance; transcript: Transcript; ledger: TaskLedger; end(): void };
  close(): Promise<void>;
}

let counter = 0;

export async function peerFixture(): Promise<PeerFixture> {
  const pki = await makePki();
  const host = await PeerHost.start(pki, { transports: transports() });
  const dispatcher = new PushDispatcher(pki);
  return {
    pki,
    host,
    dispatcher,
    start(desc, opts = {}) {
      const m = mountPeer(host, dispatcher, desc, { key: `k${++counter}`, deadlineMs: opts.deadlineMs ?? 3000, ...(opts.parts ? { parts: opts.parts } : {}) });
      return { peer: m.peer, transcript: m.transcript, ledger: m.ledger, end: m.end };
    },
    async close() {
      await host.close();
      await dispatcher.close();
    },
  };
}

/** An undici Agent as a client under test holds one: trusting the test CA, presenting the client certificate. */
export const clientAgent = (pki: Pki) => new Agent({ connect: { ca: pki.testCa.cert, cert: pki.client.cert, key: pki.client.key } });

/** A bare JSON-RPC POST with undici: no client of ours in the way. */
export async function bareRpc(agent: Agent, url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.body.text();
  let json: Record<string, any> | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, text, json, contentType: String(res.headers['content-type'] ?? '') };
}

export const rpcUrlOf = (card: Record<string, unknown>) => (card.supportedInterfaces as Array<{ url: string }>)[0]!.url;

/** A message carrying `bytes` of audio/pcm. */
export const audioMessage = (bytes: number, taskId?: string) => ({
  message: {
    messageId: `m-${Math.random()}`,
    role: 'ROLE_USER',
    parts: [{ raw: Buffer.alloc(bytes, 1).toString('base64'), mediaType: 'audio/pcm' }],
    ...(taskId ? { taskId } : {}),
  },
  configuration: { returnImmediately: true },
});

/**
 * One peer fixture and one client agent for the tests of a file or describe block: started before
 * them, closed after. Read `fx` and `agent` inside the tests (they exist once `beforeAll` ran).
 */
export function sharedPeer(): { readonly fx: PeerFixture; readonly agent: Agent } {
  let fx: PeerFixture | undefined;
  let agent: Agent | undefined;
  beforeAll(async () => {
    fx = await peerFixture();
    agent = clientAgent(fx.pki);
  });
  afterAll(async () => {
    await agent?.close();
    await fx?.close();
  });
  return {
    get fx() {
      return fx!;
    },
    get agent() {
      return agent!;
    },
  };
}
