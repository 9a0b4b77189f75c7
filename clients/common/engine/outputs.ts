/** The outputs check and the report of a task followed to its end: is the required output mode among its artifacts? */
import type { ClientReport } from '../../../harness/core/protocol/types.js';
import type { Following } from './follow.js';
import { POLL_MS, type Session, sleep, taskOf } from './session.js';

export async function outputs(s: Session, f: Following): Promise<ClientReport> {
  const { t, signal, receiver } = s;
  const required = s.req.intent.requiredOutputMode;
  let { final } = f;
  if (required && !final) {
    const polled = await t.rpc(s.rpcUrl, 'GetTask', { id: f.task.id }, { headers: s.extHeaders });
    if (polled.ok) final = taskOf(polled.result);
  }
  const got = (final?.artifacts ?? []).flatMap((a) => (a.parts ?? []).map((p) => p.mediaType ?? ''));
  if (required && !got.includes(required)) {
    if (s.mistakes.ignoresResubscribeOnly) {
      // The naive client insists: the card lists the mode, so it must come on a subscription.
      while (!signal.aborted) {
        const it = t.rpcStream(s.rpcUrl, 'SubscribeToTask', { id: f.task.id });
        for (let n = await it.next(); !n.done; n = await it.next()) {
          const mts = ((n.value.artifactUpdate as { artifact?: { parts?: Array<{ mediaType?: string }> } } | undefined)?.artifact?.parts ?? []).map(
            (p) => p.mediaType,
          );
          if (mts.includes(required)) return s.report(`${required} received on SubscribeToTask`);
        }
        await sleep(POLL_MS, signal);
      }
      return s.report('aborted while waiting for output');
    }
    return s.report(`${f.state}; the required output ${required} was not among the artifacts (${got.join(', ') || 'none'})`);
  }
  return s.report(`${f.state}${receiver ? ` (push deliveries: ${receiver.deliveries.length})` : ''}`);
}
