/** Starts one scripted peer on real listeners, outside the runner, for contract tests. */
import { Agent, request } from 'undici';
import type { PeerDescription } from '../../harness/core/scenario.js';
import { TaskLedger, Transcript } from '../../harness/core/transcript.js';
import { PeerHost } from '../../harness/net/peer-host.js';
import { PushDispatcher } from '../../harness/net/push-dispatcher.js';
import { makePki, type Pki } from '../../harness/pki/index.js';
import { createPeer, type PeerInstance } from '../../peers/index.js';

export interface PeerFixture {
  pki: Pki;
  host: PeerHost;
  dispatcher: PushDispatcher;
  start(desc: PeerDescription): { peer: PeerInstance; transcript: Transcript; ledger: TaskLedger; end(): void };
  close(): Promise<void>;
}

let counter = 0;

export async function peerFixture(): Promise<PeerFixture> {
  const pki = await makePki();
  const host = await PeerHost.start(pki);
  const dispatcher = new PushDispatcher(pki);
  return {
    pki,
    host,
    dispatcher,
    start(desc) {
      const key = `k${++counter}`;
      const transcript = new Transcript(() => performance.now());
      const ledger = new TaskLedger(transcript);
      const timers: NodeJS.Timeout[] = [];
      const slot = host.beginRun(key, transcript);
      const peer = createPeer(desc, {
        key,
        transcript,
        ledger,
        base: (kind) => host.base(kind, key),
        push: (o) => dispatcher.dispatch({ ...o, transcript }),
        later: (ms, fn) => void timers.push(setTimeout(fn, ms)),
      });
      slot.handlers = peer.handlers;
      return { peer, transcript, ledger, end: () => (timers.forEach(clearTimeout), host.endRun(key)) };
    },
    async close() {
      await host.close();
      await dispatcher.close();
    },
  };
}

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
  message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ raw: Buffer.alloc(bytes, 1).toString('base64'), mediaType: 'audio/pcm' }], ...(taskId ? { taskId } : {}) },
  configuration: { returnImmediately: true },
});
