/**
 * Following the task the first message minted to a terminal state within the deadline: push
 * registered for it where the plan pushes, the further live frames sent to it, a stream that left it
 * early subscribed to again, then push or polling until it ends; what it abandons is canceled.
 */
import type { ClientReport } from '../../../harness/core/protocol/types.js';
import { describe, type FirstSend, POLL_MS, rejected, type Session, sleep, type Started, TERMINAL, type TaskJson, taskOf } from './session.js';

/** A task followed: where it stands, and what the run learned of it. */
export interface Following {
  /** The task the first message minted. */
  task: TaskJson;
  /** The first message, as sent (the naive client's retry wrapper sends it again). */
  first: FirstSend;
  state: string | undefined;
  /** The task polled: the first one, or the last a re-send minted. */
  current: string;
  resent: number;
  /** The task as GetTask last returned it. */
  final: TaskJson | undefined;
  /** The naive client's blind trust: push alone, registered or not. */
  pushOnly: boolean;
}

/** The task followed to its end: its last state and what GetTask said of it; or the run's report, where following settles it. */
export async function follow(s: Session, started: Started): Promise<Following | ClientReport> {
  const { task } = started;
  if (!s.taskIds.includes(task.id)) s.taskIds.push(task.id);
  s.followed = started.note;
  const f: Following = { task, first: started.params, state: task.status?.state, current: task.id, resent: 0, final: undefined, pushOnly: false };
  const refused = await registerPush(s, f);
  if (refused) return refused;
  // Live frames: one SendMessage per further frame, to the same task (a stream's task takes none: it had its one message).
  if (s.plan.input === 'frames' && !started.streamLeft) {
    const stopped = await sendFrames(s, f);
    if (stopped) return stopped;
  }
  if (s.plan.completion === 'none') return s.report('fire-and-forget: sent, not followed');
  if (started.streamLeft && !s.signal.aborted) {
    const emptied = await resubscribe(s, f);
    if (emptied) return emptied;
  }
  const ended = await drive(s, f);
  if (ended) return ended;
  if (s.signal.aborted) return s.report('aborted at the deadline');
  // Seen by polling first: the agent's push of that state is in flight to a receiver the client chose.
  // Give it a moment (within the budget) before closing the receiver under it.
  const { receiver } = s;
  if (receiver && !f.pushOnly) {
    const until = Date.now() + Math.min(500, Math.max(0, s.budgetLeft()));
    // The same deliveries drive() counts: the naive client's foreign one ends this wait as it ended the drive.
    const counts = (d: { taskId: string }) => s.mistakes.actsOnForeignTaskPush || d.taskId === task.id;
    while (Date.now() < until && !receiver.deliveries.some((d) => counts(d) && d.state && TERMINAL.has(d.state))) await receiver.next(until - Date.now());
  }
  return f;
}

/**
 * Push is per task (spec §3.1.7): registered right after minting. The agent authenticates to the
 * receiver with credentials the client chose (§4.3.3); the receiver checks them. A refusal (the
 * capability flag had nothing behind it, docs/duties.md §10) falls back to polling.
 */
async function registerPush(s: Session, f: Following): Promise<ClientReport | undefined> {
  const { receiver, mistakes } = s;
  let pushRefused = false;
  if (receiver) {
    const registered = await s.t.rpc(
      s.rpcUrl,
      'CreateTaskPushNotificationConfig',
      { taskId: f.task.id, url: receiver.url, token: receiver.token, authentication: { scheme: 'Bearer', credentials: receiver.credentials } },
      { headers: s.extHeaders },
    );
    if (!registered.ok) {
      pushRefused = true;
      if (mistakes.abortsOnRefusal) {
        await s.cancel(f.task.id);
        return rejected(s.taskIds, 'handshake', `push registration refused (${describe(registered)}); gave up, task ${s.canceledOrLeft}`);
      }
      if (!mistakes.waitsOnRefusedPush) {
        s.degradations.push('push->polling');
        await receiver.close();
        s.receiver = undefined;
      }
    }
  }
  // The naive client's blind trust: push alone, registered or not.
  f.pushOnly = !!s.receiver && (mistakes.registersUnusablePush === true || (pushRefused && mistakes.waitsOnRefusedPush === true));
  return undefined;
}

async function sendFrames(s: Session, f: Following): Promise<ClientReport | undefined> {
  for (let i = 2; i <= s.frames && !s.signal.aborted; i++) {
    const message = s.message([s.partOf(s.frameBytes)], f.task.id);
    let out = await s.call('SendMessage', { message, configuration: { returnImmediately: true } });
    if (!out.ok && out.kind === 'cut') {
      // The answer was lost, not the frame, maybe: the task's history says whether the agent took it (GetTask is
      // naturally idempotent, A2A §3.3.1); a frame it does not hold is sent again as it was, the same messageId.
      const read = await s.call('GetTask', { id: f.task.id });
      const task = read.ok ? (taskOf(read.result) as TaskJson | undefined) : undefined;
      const held = task?.history?.some((m) => m?.messageId === message.messageId);
      if (task && held) out = { ok: true, result: { task } };
      else if (task) out = await s.call('SendMessage', { message, configuration: { returnImmediately: true } });
    }
    if (!out.ok) {
      await s.cancel(f.task.id);
      return s.report(`the peer refused frame ${i} (${describe(out)}); task ${s.canceledOrLeft}`);
    }
    f.state = taskOf(out.result)?.status?.state ?? f.state;
  }
  return undefined;
}

/**
 * A task its stream left early: wait on SubscribeToTask until that stream ends too (at the task's
 * terminal state, or early again), then read the outcome with GetTask (drive). A subscription
 * refused (the task ended meanwhile: -32004; or the service refused it) or cut is no loss: GetTask
 * says where the task is.
 */
async function resubscribe(s: Session, f: Following): Promise<ClientReport | undefined> {
  const sub = s.t.rpcStream(s.rpcUrl, 'SubscribeToTask', { id: f.task.id }, s.extHeaders);
  let events = 0;
  for (;;) {
    const n = s.budgetLeft() > 0 ? await s.nextWithin(sub) : ('budget' as const);
    if (n === 'budget') {
      // The peer ends the stream when the task ends; the polling below cancels it at the budget.
      void sub.return(undefined).catch(() => {});
      break;
    }
    if (n.done) {
      // The naive mistake: a refused subscription handed to the stream parser is one that ended with no event, the task's end.
      if (n.value && !n.value.ok && (n.value.kind === 'rpc' || n.value.kind === 'http') && s.mistakes.emptiesRefusedStream && events === 0)
        return s.report('the subscription ended with no event: the task is done');
      break;
    }
    events++;
    const seen = (n.value.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state ?? (n.value.task as TaskJson | undefined)?.status?.state;
    if (seen) f.state = seen;
    // The terminal event ends the subscription for this client, closed here whether the agent closes it or not.
    if (seen && TERMINAL.has(seen) && !s.mistakes.waitsForStreamEnd) {
      if (!s.mistakes.leavesStreamOpen) void sub.return(undefined).catch(() => {});
      break;
    }
  }
}

/** Drive to a terminal state: push if registered (the naive client trusts it alone), polling otherwise. */
async function drive(s: Session, f: Following): Promise<ClientReport | undefined> {
  const { t, mistakes, signal, receiver } = s;
  let acted = 0;
  while (!signal.aborted) {
    if (receiver) {
      const naive = await naiveDeliveries(s, f, acted);
      acted = receiver.deliveries.length;
      if (naive === 'again') continue;
      // §13.2: a delivery counts for the task it names (the naive client takes any task's end for its own).
      const got = receiver.deliveries.find((d) => (mistakes.actsOnForeignTaskPush || d.taskId === f.current) && d.state && TERMINAL.has(d.state));
      if (got) {
        f.state = got.state;
        break;
      }
    }
    if (!f.pushOnly) {
      const polled = await t.rpc(s.rpcUrl, 'GetTask', { id: f.current }, { headers: s.extHeaders });
      if (!polled.ok && polled.kind === 'http' && polled.retryAfterMs !== undefined && mistakes.cancelsOnTransientRefusal) {
        // The naive client's reading of "busy, come back in a second": the task has failed; cancel it.
        await s.cancel(f.current);
        return s.report(`GetTask answered ${polled.status}: taken for a failure; task ${s.canceledOrLeft}`);
      }
      if (polled.ok) {
        f.final = taskOf(polled.result);
        f.state = f.final?.status?.state;
        const bad = s.undecodable(f.final);
        if (bad.length > 0) {
          if (mistakes.retriesOnDecode && f.resent < 2 && !signal.aborted) {
            // The naive client's retry wrapper: the decode error looks transient, so the same request goes again.
            f.resent++;
            const again = await t.rpc(s.rpcUrl, 'SendMessage', f.first, { headers: s.extHeaders });
            const next = again.ok ? taskOf(again.result) : undefined;
            if (next && !s.taskIds.includes(next.id)) s.taskIds.push(next.id);
            if (next) f.current = next.id;
            continue;
          }
          // Terminal for this task, never transient (docs/duties.md §7): cancel what still runs, send nothing again.
          const open = !f.state || !TERMINAL.has(f.state);
          if (open) await s.cancel(f.current);
          return {
            ...s.report(
              `${f.resent ? `re-sent ${f.resent} time(s); ` : ''}cannot decode ${bad.join(', ')}; task ${f.current} ${open ? s.canceledOrLeft : `ended ${f.state}`}${f.resent ? '' : '; not re-sent'}`,
            ),
            errorClass: 'media-type',
          };
        }
        if (f.state && TERMINAL.has(f.state)) break;
        if (f.state === 'TASK_STATE_INPUT_REQUIRED' && s.plan.input !== 'frames') {
          await s.cancel(f.current);
          return s.report('the peer asked for more input than the intent has; task canceled');
        }
      }
    }
    if (s.budgetLeft() <= 0 && !f.pushOnly) {
      await s.cancel(f.current);
      return s.report(`no terminal state within the deadline budget (last ${f.state}); task ${s.canceledOrLeft}`);
    }
    if (receiver) await receiver.next(POLL_MS * 2);
    else await sleep(POLL_MS, signal);
  }
  return undefined;
}

/**
 * What the naive client does with the deliveries its receiver took since the last look (`from`): one
 * answers each with a message to its task, duplicates too; another, on a FAILED for its task, cancels
 * the task and starts the intent again ('again': the task followed has changed).
 */
async function naiveDeliveries(s: Session, f: Following, from: number): Promise<'again' | undefined> {
  const { mistakes, receiver } = s;
  if (!receiver) return undefined;
  const fresh = receiver.deliveries.slice(from);
  if (mistakes.actsOnEachDelivery)
    for (const d of fresh.filter((x) => x.taskId === f.current && x.state && !TERMINAL.has(x.state)))
      await s.call('SendMessage', {
        message: s.message([{ text: `noted: ${d.state}`, mediaType: 'text/plain' }], f.current),
        configuration: { returnImmediately: true },
      });
  if (mistakes.cancelsOnFailedPush && f.resent === 0 && fresh.some((d) => d.taskId === f.current && d.state === 'TASK_STATE_FAILED')) {
    f.resent++;
    await s.cancel(f.current);
    const again = await s.call('SendMessage', { message: s.message(s.firstParts), configuration: s.configuration });
    const next = again.ok ? taskOf(again.result) : undefined;
    if (next && !s.taskIds.includes(next.id)) s.taskIds.push(next.id);
    if (next) f.current = next.id;
    return 'again';
  }
  return undefined;
}
