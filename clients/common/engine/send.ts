/**
 * Sending: the first message, and the task it minted. Streamed where the plan streams (one
 * SendStreamingMessage, read to the end), else SendMessage. A first answer that was lost, or a stream
 * that ended before it named the task, is looked up by its message with ListTasks, never sent again.
 */
import type { ClientReport } from '../../../harness/core/protocol/types.js';
import type { RpcOutcome } from '../transport.js';
import {
  describe,
  type FirstSend,
  INTERRUPTED,
  rejected,
  type Session,
  type Started,
  TERMINAL,
  type TaskJson,
  taskOf,
  UNSUPPORTED_OPERATION,
} from './session.js';

/** The first message, and the task to follow; or the run's report, where the first send settles it. */
export async function send(s: Session): Promise<Started | ClientReport> {
  if (s.plan.completion === 'stream') {
    const streamed = await sendStreamed(s);
    if (streamed !== 'refused') return streamed;
  }
  return start(s);
}

/**
 * The task a message minted, where the answer that named it was lost on the way: ListTasks (a Get
 * operation, "naturally idempotent", A2A §3.3.1), each task's history searched for the message's
 * messageId. The history need not keep the message (§3.7: clients "MUST NOT rely on this
 * behavior"), so not finding it proves nothing; and v0.3's JSON-RPC has no tasks/list at all.
 */
async function findSent(s: Session, messageId: string): Promise<{ task?: TaskJson; note: string }> {
  if (s.t.dialect === 'a2a-v0.3') return { note: 'A2A v0.3 has no tasks/list in JSON-RPC to look for it with' };
  let pageToken = '';
  for (let page = 0; page < 5 && !s.signal.aborted; page++) {
    const got = await s.t.rpc(s.rpcUrl, 'ListTasks', { pageSize: 100, ...(pageToken ? { pageToken } : {}) }, { headers: s.extHeaders });
    if (!got.ok) return { note: `ListTasks failed: ${describe(got)}` };
    const listed = (Array.isArray(got.result.tasks) ? got.result.tasks : []) as TaskJson[];
    const hit = listed.find((x) => typeof x?.id === 'string' && Array.isArray(x.history) && x.history.some((m) => m?.messageId === messageId));
    if (hit) return { task: hit, note: `ListTasks found task ${hit.id}, whose history holds the message` };
    pageToken = typeof got.result.nextPageToken === 'string' ? got.result.nextPageToken : '';
    if (!pageToken) break;
  }
  return { note: 'ListTasks shows no task whose history holds the message' };
}

/**
 * A first message whose answer was lost: the agent may have minted a task this client cannot
 * name. It is not sent again, with the same messageId or a new one: Send Message "MAY be
 * idempotent" (A2A §3.3.1), no more, so a second send may mint a second task for one intent.
 */
function lostAnswer(s: Session, method: string, what: string, lookup: string): ClientReport {
  return rejected(
    s.taskIds,
    'handshake',
    [
      s.probeNote,
      `the answer to ${method} was lost (${what}): the agent may have minted a task this client cannot name (${lookup}); the message was not sent again, as Send Message is only MAY-idempotent (A2A §3.3.1)`,
    ]
      .filter(Boolean)
      .join('; '),
  );
}

/** Where a stream read to its end left the task: the last state it said, and the cut that ended it, if one did. */
type StreamEnd = { last: string | undefined; cut?: Extract<RpcOutcome, { kind: 'cut' }> };

/**
 * Streamed completion: one SendStreamingMessage, read to the end. A peer that refuses streaming
 * before any task (-32004) is met on the surface that works: SendMessage and polling ('refused').
 */
async function sendStreamed(s: Session): Promise<Started | ClientReport | 'refused'> {
  const probed = s.taskIds.length; // probe tasks, already canceled
  const streamed: FirstSend = { message: s.message(s.firstParts), configuration: s.configuration };
  const end = await readStream(s, streamed, probed);
  if (end === 'refused' || 'decision' in end) return end;
  const { last, cut } = end;
  if (last !== undefined && (last === 'a direct Message' || TERMINAL.has(last) || INTERRUPTED.has(last))) return s.report(`streamed to ${last}`);
  // A task lifecycle stream closes when its task reaches a terminal state (A2A §3.1.2); this one
  // closed, or was cut, before that, so its end says nothing of the task's. The task is followed
  // on: SubscribeToTask (§3.1.6; the card said streaming, or there would be no stream), then
  // GetTask, which is for "the final state of a task … after a stream has ended" (§3.1.3).
  const how = cut ? `was cut (${describe(cut)})` : 'closed';
  // The naive reflex of a client whose stream parser was handed a refusal: a stream that ended with no event is a task done.
  if (s.mistakes.emptiesRefusedStream && !cut && last === undefined && !s.taskIds[probed]) return s.report('the stream ended with no event: done');
  // The naive client's reflex: the stream is gone, so the request must be lost; send it again.
  if (s.mistakes.resendsBySendOnStreamDrop) {
    // Another naive reflex: the task is taken for broken; cancel it and start afresh by SendMessage, a new message.
    const lost = s.taskIds[probed];
    if (lost) await s.cancel(lost);
    const first = s.message(s.firstParts);
    const message = { ...first, metadata: { ...first.metadata, retryOf: streamed.message.messageId } } as unknown as FirstSend['message'];
    const params: FirstSend = { message, configuration: s.configuration };
    const sent = await s.call('SendMessage', params);
    const next = sent.ok ? taskOf(sent.result) : undefined;
    if (!next) return rejected(s.taskIds, 'handshake', `the stream ${how}; sending again failed`);
    if (!s.taskIds.includes(next.id)) s.taskIds.push(next.id);
    return {
      task: next,
      params,
      note: `the stream ${how}; task ${lost ?? '(unnamed)'} ${s.canceledOrLeft}, the message sent again by SendMessage`,
      streamLeft: false,
    };
  }
  if (s.mistakes.resendsOnStreamDrop) {
    const again = await start(s);
    if ('decision' in again) return again;
    if (!s.taskIds.includes(again.task.id)) s.taskIds.push(again.task.id);
    return { ...again, note: `the stream ${how}; sent the message again` };
  }
  const id = s.taskIds[probed];
  let task: TaskJson | undefined = id ? { id, status: { state: last } } : undefined;
  let lookup = '';
  if (!task) {
    // Cut (or closed) before the first event named the task: as for a SendMessage whose answer was cut.
    const found = await findSent(s, streamed.message.messageId);
    if (!found.task) return lostAnswer(s, 'SendStreamingMessage', `the stream ${how} before any event named a task`, found.note);
    task = found.task;
    s.taskIds.push(task.id);
    lookup = `; ${found.note}`;
  }
  s.degradations.push('stream->polling');
  return {
    task,
    params: streamed,
    note: `the stream ${how} with the task ${last ? `in ${last}` : 'in no state yet'}, before it ended${lookup}; followed it with SubscribeToTask and GetTask`,
    streamLeft: true,
  };
}

/** The stream read event by event until it ends, the budget runs out, or an artifact cannot be decoded. */
async function readStream(s: Session, streamed: FirstSend, probed: number): Promise<StreamEnd | ClientReport | 'refused'> {
  const { taskIds, mistakes } = s;
  const it = s.t.rpcStream(s.rpcUrl, 'SendStreamingMessage', streamed, s.extHeaders);
  let last: string | undefined;
  for (;;) {
    if (s.budgetLeft() <= 0) {
      await it.return(undefined);
      const id = taskIds[probed];
      if (id) await s.cancel(id);
      return s.report(`the stream did not reach a terminal state within the deadline budget${id ? '; task canceled' : ''}`);
    }
    // An open stream that sends nothing more must not outlast the budget: race the next event against it.
    const raced = await s.nextWithin(it);
    if (raced === 'budget') {
      // Cancel first: the peer then ends the stream, and the pending read with it (a generator's return waits for it).
      const id = taskIds[probed];
      if (id) await s.cancel(id);
      void it.return(undefined).catch(() => {});
      return s.report(`the stream did not reach a terminal state within the deadline budget${id ? `; task ${s.canceledOrLeft}` : ''}`);
    }
    const n = raced;
    if (n.done) {
      if (n.value && !n.value.ok) {
        // The naive mistake: a refusal handed to a stream parser is a stream that ended with no event, on every binding.
        if ((n.value.kind === 'rpc' || n.value.kind === 'http') && mistakes.emptiesRefusedStream && last === undefined && taskIds.length === probed)
          return { last };
        if (n.value.kind === 'rpc' && n.value.code === UNSUPPORTED_OPERATION && taskIds.length === probed && !mistakes.abortsOnRefusal) {
          s.degradations.push('stream->polling');
          return 'refused';
        }
        if (n.value.kind === 'cut') return { last, cut: n.value };
        return rejected(taskIds, 'handshake', `stream refused: ${describe(n.value)}`);
      }
      return { last };
    }
    const task = n.value.task as TaskJson | undefined;
    if (task?.id && !taskIds.includes(task.id)) taskIds.push(task.id);
    const st = (n.value.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state ?? task?.status?.state;
    if (st) last = st;
    // The terminal event is the stream's end for this client (§3.1.2): the stream is closed here, whether the agent
    // closes it or not. The naive client waits for the agent to close it, or reads no further and leaves it open.
    if (st && TERMINAL.has(st) && !mistakes.waitsForStreamEnd) {
      if (!mistakes.leavesStreamOpen) void it.return(undefined).catch(() => {});
      return { last };
    }
    // An artifact this client cannot decode ends the task here too (docs/duties.md §7): close the stream, cancel, never re-send.
    const update = n.value.artifactUpdate as { taskId?: string; artifact?: { parts?: Array<{ mediaType?: string }> } } | undefined;
    const bad = update ? s.undecodable({ id: update.taskId ?? '', artifacts: update.artifact ? [update.artifact] : [] }) : [];
    if (bad.length > 0) {
      await it.return(undefined);
      const id = update?.taskId ?? taskIds[probed];
      if (id && !taskIds.includes(id)) taskIds.push(id);
      const open = !last || !TERMINAL.has(last);
      if (id && open) await s.cancel(id);
      return {
        ...s.report(`streamed; cannot decode ${bad.join(', ')}; task ${id ?? '(unknown)'} ${open ? s.canceledOrLeft : `ended ${last}`}; not re-sent`),
        errorClass: 'media-type',
      };
    }
    if (n.value.message && !task) last = 'a direct Message';
  }
}

/** The first message, and the task it minted: from SendMessage's answer or, where that answer was cut, a lookup. */
async function start(s: Session): Promise<Started | ClientReport> {
  const params: FirstSend = { message: s.message(s.firstParts), configuration: s.configuration };
  const sent = await s.call('SendMessage', params);
  if (!sent.ok && sent.kind === 'cut') {
    // The agent answered, so it had the message; what it did is in the part of the answer that
    // never came. A task it minted is found by the message, never by sending the message again.
    const found = await findSent(s, params.message.messageId);
    if (!found.task) return lostAnswer(s, 'SendMessage', describe(sent), found.note);
    return { task: found.task, params, note: `the answer to SendMessage was cut (${describe(sent)}); ${found.note}; not sent again`, streamLeft: false };
  }
  if (!sent.ok) return rejected(s.taskIds, 'handshake', `the peer refused the first message: ${describe(sent)}`);
  // An agent may answer with a direct Message and no task (spec §3.1.1): that is the answer.
  if (sent.result.message && !sent.result.task) return s.report('the agent answered with a direct Message; no task to follow');
  const task = taskOf(sent.result);
  if (!task) return rejected(s.taskIds, 'handshake', 'the peer answered with neither a task nor a message');
  return { task, params, note: '', streamLeft: false };
}
