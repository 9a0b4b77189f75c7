/**
 * The run loop shared by the reference and the naive clients: fetch the card over TLS, negotiate,
 * then send, drive the task to a terminal state within the deadline, and cancel what it abandons.
 * A task whose first answer was cut, or whose stream ended before it did, is followed on, never
 * started again.
 * The mistakes of the naive client are switches; with none set this is the reference behaviour.
 *
 * The phases, in order, each in ./engine/: the handshake (card, trust gate, negotiation, origin
 * probe), the first send, following the task to its end, and the outputs check; ./engine/session.ts
 * holds what they share.
 */
import type { ClientReport, RunRequest } from '../../harness/core/protocol/types.js';
import { follow } from './engine/follow.js';
import { handshake } from './engine/handshake.js';
import { outputs } from './engine/outputs.js';
import { send } from './engine/send.js';
import { rejected, type RunBase, Session, waitFits } from './engine/session.js';
import type { Mistakes } from './negotiate.js';
import { PushReceiver } from './push-receiver.js';
import { A2ATransport } from './transport.js';

export async function runClient(req: RunRequest, signal: AbortSignal, mistakes: Mistakes = {}): Promise<ClientReport> {
  const started = Date.now();
  const t = await A2ATransport.open({
    tls: req.tls,
    signal,
    insecure: mistakes.skipsTlsVerify === true,
    versionHeader: mistakes.omitsA2aVersion !== true,
    repeatsChallengedCall: mistakes.repeatsChallengedCall === true,
    strictDecode: mistakes.rejectsUnknownFields === true,
    tokenEverywhere: mistakes.sendsTokenEverywhere === true,
    ...(mistakes.splitsDataLines || mistakes.capsSseLines || mistakes.readsChunksAsLines || mistakes.buffersWithoutBound
      ? {
          sse: {
            perLine: mistakes.splitsDataLines === true,
            ...(mistakes.capsSseLines ? { lineCap: 64 * 1024 } : {}),
            ...(mistakes.readsChunksAsLines ? { perChunk: true } : {}),
            ...(mistakes.buffersWithoutBound ? { unbounded: true } : {}),
          },
        }
      : {}),
    // The naive client that takes a refusal asking it to wait for a failure, or retries blindly, never waits.
    ...(mistakes.cancelsOnTransientRefusal || mistakes.retriesBlindly ? {} : { waitFits: (ms: number) => waitFits({ req, started }, ms) }),
  });
  const run: RunBase = { req, signal, mistakes, t, taskIds: [], started };
  let s: Session | undefined;
  try {
    // The naive client's blind decision: a live-input task it cannot stream is declined without a look at the card.
    if (mistakes.decidesBlind && req.intent.taskClass === 'live-input')
      return rejected(run.taskIds, 'unnegotiable-card', 'live input declined without reading the card');

    const shaken = await handshake(run);
    if ('decision' in shaken) return shaken;
    s = new Session(run, shaken);
    if (s.plan.completion === 'push') {
      if (!req.tls.receiver) return rejected(run.taskIds, 'unnegotiable-card', 'push needed but no receiver certificate was handed over');
      s.receiver = await PushReceiver.start(req.tls.receiver, {
        ...(mistakes.trustsAnyPush || mistakes.cancelsOnFailedPush ? { trustsAny: true } : {}),
        // The naive receiver's framework answers 500 once its handler has taken the delivery.
        ...(mistakes.acksPushWithError ? { ackStatus: 500 } : {}),
      });
    }
    const sent = await send(s);
    if ('decision' in sent) return sent;
    const followed = await follow(s, sent);
    if ('decision' in followed) return followed;
    return await outputs(s, followed);
  } finally {
    await s?.receiver?.close();
    // The naive client that leaves its streams open keeps its connections a while after it reports, as a process
    // whose connection pool lives on would.
    if (mistakes.leavesStreamOpen) setTimeout(() => void t.close().catch(() => {}), 5000).unref();
    else await t.close();
  }
}
