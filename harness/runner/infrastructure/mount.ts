/**
 * One way to put a scripted peer on the shared listeners for one scenario run: its transcript and
 * ledger, its timers (which die with the run), pushes through the dispatcher. The runner, `serve`,
 * the tests and the benchmark all mount peers through here.
 */
import { randomBytes } from 'node:crypto';
import type { PeerDescription } from '../../core/scenario/scenario.js';
import { TaskLedger, Transcript } from '../../core/transcript.js';
import type { PeerHost } from '../../net/peer-host.js';
import type { PushDispatcher } from '../../net/push-dispatcher.js';
import { createPeer, type PeerInstance, type PeerParts } from '../../../peers/index.js';

export interface MountOptions {
  /** Short key of the run, unique on its host (random when absent). */
  key?: string;
  /** The scenario's deadline: the longest a blocking call of the peer waits. */
  deadlineMs?: number;
  /** A transcript of the caller's (e.g. with live logging); a fresh one when absent. */
  transcript?: Transcript;
  /** Parts added to the peer: a step that signs its card, another origin, a gate before the RPC. */
  parts?: PeerParts;
  /** Finished tasks the peer keeps (PeerRunContext.retainFinished): `serve`'s bound. */
  retainFinished?: number;
}

export interface MountedPeer {
  key: string;
  transcript: Transcript;
  ledger: TaskLedger;
  peer: PeerInstance;
  /** Whether the run has ended (timers no longer fire). */
  readonly ended: boolean;
  /** Ends the run: timers cleared, streams closed, the path prefix freed. Idempotent. */
  end(): void;
}

export function mountPeer(host: PeerHost, dispatcher: PushDispatcher, desc: PeerDescription, o: MountOptions = {}): MountedPeer {
  const key = o.key ?? randomBytes(4).toString('hex');
  const transcript = o.transcript ?? new Transcript(() => performance.now());
  const ledger = new TaskLedger(transcript);
  const timers = new Set<NodeJS.Timeout>();
  const endings = new Set<() => void>();
  let ended = false;
  const slot = host.beginRun(key, transcript);
  const end = () => {
    if (ended) return;
    ended = true;
    for (const t of timers) clearTimeout(t);
    timers.clear();
    for (const fn of endings) fn();
    endings.clear();
    host.endRun(key);
  };
  let peer: PeerInstance;
  try {
    peer = createPeer(
      desc,
      {
        key,
        transcript,
        ledger,
        deadlineMs: o.deadlineMs ?? 30_000,
        signers: host.signers,
        ...(o.retainFinished !== undefined ? { retainFinished: o.retainFinished } : {}),
        onEnd: (fn) => (ended ? fn() : void endings.add(fn)),
        base: (kind) => host.base(kind, key),
        transportOrigin: (name, kind) => host.transportOrigin(name, kind, key),
        push: (order) => dispatcher.dispatch({ ...order, transcript }),
        later: (ms, fn) => {
          const t = setTimeout(() => {
            timers.delete(t);
            if (!ended) fn();
          }, ms);
          timers.add(t);
        },
      },
      o.parts,
    );
  } catch (err) {
    end();
    throw err;
  }
  slot.handlers = peer.handlers;
  return {
    key,
    transcript,
    ledger,
    peer,
    get ended() {
      return ended;
    },
    end,
  };
}
