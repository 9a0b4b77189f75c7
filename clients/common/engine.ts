/**
 * The run loop shared by the reference and the naive clients: fetch the card over TLS, negotiate,
 * then send, drive the task to a terminal state within the deadline, and cancel what it abandons.
 * A task whose first answer was cut, or whose stream ended before it did, is followed on, never
 * started again.
 * The mistakes of the naive client are switches; with none set this is the reference behaviour.
 */
import type { ClientReport, RunRequest } from '../../harness/core/vocabulary/types.js';
import { oauthPlanFor, TokenSource } from './auth.js';
import { readClientCard } from './card.js';
import { negotiate, sameType, type Mistakes } from './negotiate.js';
import { checkTrust } from './trust.js';
import { PushReceiver } from './push-receiver.js';
import { A2ATransport, newMessageId, type RpcOutcome } from './transport.js';

const TERMINAL = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED', 'TASK_STATE_REJECTED']);
/** States at which a task waits on its client: a stream ends there too (the task is not over, but it is the client's turn). */
const INTERRUPTED = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);
const POLL_MS = 50;
/** Time kept back from the deadline to cancel and report. */
const MARGIN_MS = 800;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

function describe(o: Exclude<RpcOutcome, { ok: true }>): string {
  if (o.kind === 'http') return `HTTP ${o.status}${o.challenge ? ` (WWW-Authenticate: ${o.challenge.slice(0, 200)})` : ''}`;
  if (o.kind === 'cut') return `HTTP ${o.status}, then the connection closed in the middle of the answer (${o.code}: ${o.message})`;
  return o.kind === 'rpc' ? `JSON-RPC ${o.code} ${o.message}` : `${o.code}: ${o.message}`;
}

/** JSON-RPC UnsupportedOperationError (spec §3.3.4: what a peer without streaming answers to a stream). */
const UNSUPPORTED_OPERATION = -32004;

interface TaskJson {
  id: string;
  status?: { state?: string };
  artifacts?: Array<{ parts?: Array<{ mediaType?: string }> }>;
  history?: Array<{ messageId?: unknown }>;
}

const taskOf = (r: Record<string, unknown>): TaskJson | undefined => {
  const t = (r.task ?? r) as TaskJson;
  return typeof t?.id === 'string' ? t : undefined;
};

export async function runClient(req: RunRequest, signal: AbortSignal, mistakes: Mistakes = {}): Promise<ClientReport> {
  const started = Date.now();
  const budgetLeft = () => req.deadlineMs - MARGIN_MS - (Date.now() - started);
  const t = await A2ATransport.open({
    tls: req.tls,
    signal,
    insecure: mistakes.skipsTlsVerify === true,
    versionHeader: mistakes.omitsA2aVersion !== true,
    repeatsChallengedCall: mistakes.repeatsChallengedCall === true,
  });
  let receiver: PushReceiver | undefined;
  const taskIds: string[] = [];
  try {
    // The naive client's blind decision: a live-input task it cannot stream is declined without a look at the card.
    if (mistakes.decidesBlind && req.intent.taskClass === 'live-input')
      return { decision: 'rejected', errorClass: 'unnegotiable-card', degradations: [], taskIds, notes: 'live input declined without reading the card' };

    const fetched = await t.getJson(req.cardUrl);
    if (!fetched.ok)
      return {
        decision: 'rejected',
        errorClass: fetched.kind === 'network' || fetched.kind === 'cut' ? 'handshake' : 'untrusted-card',
        degradations: [],
        taskIds,
        notes: `card fetch failed: ${describe(fetched)}`,
      };
    // The trust gate comes first: nothing is planned from a card the client cannot trust (seed 001).
    const cardJson = (fetched.json && typeof fetched.json === 'object' && !Array.isArray(fetched.json) ? fetched.json : {}) as Record<string, unknown>;
    const trust = await checkTrust(
      cardJson,
      req.profile,
      async (url) => {
        const got = await t.getJwks(url);
        return got.ok ? got : { ok: false };
      },
      mistakes,
    );
    if (!trust.ok) return { decision: 'rejected', errorClass: 'untrusted-card', degradations: [], taskIds, notes: trust.notes };
    const card = readClientCard(fetched.json);
    let plan = negotiate(card, req.profile, req.intent, mistakes);
    if (plan.action === 'reject') return { decision: 'rejected', errorClass: plan.errorClass, degradations: [], taskIds, notes: plan.notes };
    t.dialect = plan.dialect;
    // Credentials for the scheme the card lists, with what the run provisioned (A2A §7.3): a token on every A2A request.
    const oauthPlan = oauthPlanFor(cardJson, req.credentials);
    if (oauthPlan) t.auth = new TokenSource(oauthPlan, t.fetchImpl);

    // A card from another origin than its RPC is no signal of freshness (seed 003): probe the RPC origin
    // with an idempotent read before the first task: the agent's own card where it serves one (and
    // plan on it, spec §3.1.11), else ListTasks.
    let probeNote = '';
    if (!mistakes.skipsProbe && new URL(req.cardUrl).origin !== new URL(plan.rpcUrl).origin) {
      if (card.extendedCard) {
        const got = await t.rpc(plan.rpcUrl, 'GetExtendedAgentCard', {});
        if (got.ok && readClientCard(got.result).interfaces.length > 0) {
          const fresh = negotiate(readClientCard(got.result), req.profile, req.intent, mistakes);
          if (fresh.action === 'reject')
            return {
              decision: 'rejected',
              errorClass: fresh.errorClass,
              degradations: [],
              taskIds,
              notes: `the agent's own card (GetExtendedAgentCard): ${fresh.notes}`,
            };
          plan = fresh;
          t.dialect = plan.dialect;
          // The agent's own card replaces the public one (§3.1.11), its security schemes too.
          const freshAuth = oauthPlanFor(got.result, req.credentials);
          if (freshAuth && (!t.auth || freshAuth.tokenUrl !== t.auth.plan.tokenUrl)) t.auth = new TokenSource(freshAuth, t.fetchImpl);
          probeNote = "planned on the agent's own card (GetExtendedAgentCard), the card from the other origin replaced";
        } else probeNote = `GetExtendedAgentCard probe failed (${got.ok ? 'not a card' : describe(got)}); going on with the card as served`;
      } else if (plan.dialect === 'a2a-v0.3') {
        // v0.3 has no read that needs no task (no tasks/list): a minimal probe task, canceled at once.
        const probe = await t.rpc(plan.rpcUrl, 'SendMessage', {
          message: { messageId: newMessageId(), role: 'ROLE_USER', parts: [{ text: '.', mediaType: req.intent.input.mediaType }] },
          configuration: { returnImmediately: true },
        });
        const id = probe.ok ? taskOf(probe.result)?.id : undefined;
        if (id) taskIds.push(id); // a task it caused: reported, as every one is
        if (id) await t.rpc(plan.rpcUrl, 'CancelTask', { id });
        probeNote = id
          ? `probed the RPC origin with a minimal task (${id}), canceled`
          : `the probe task was refused (${probe.ok ? 'no task' : describe(probe)}); going on with the card as served`;
      } else {
        const got = await t.rpc(plan.rpcUrl, 'ListTasks', { pageSize: 1 });
        probeNote = got.ok ? 'probed the RPC origin with ListTasks' : `ListTasks probe failed (${describe(got)}); going on with the card as served`;
      }
    }
    const rpcUrl = plan.rpcUrl;
    // The extension the plan opts into, on every request of this task (A2A-Extensions, spec §3.2.6).
    const extHeaders: Record<string, string> = plan.optIn ? { 'A2A-Extensions': plan.optIn } : {};

    /** A failing call, repeated once identically by a client that retries blindly. */
    const call = async (method: string, params: unknown): Promise<RpcOutcome> => {
      const id = Math.floor(Math.random() * 1e9);
      const out = await t.rpc(rpcUrl, method, params, { id, headers: extHeaders });
      if (!out.ok && mistakes.retriesBlindly && !signal.aborted) return t.rpc(rpcUrl, method, params, { id, headers: extHeaders });
      return out;
    };
    const cancel = async (id: string) => {
      if (mistakes.neverCancels) return;
      await t.rpc(rpcUrl, 'CancelTask', { id }, { headers: extHeaders });
    };

    // Build the input.
    const intent = req.intent;
    const input = plan.input;
    const frameBytes = intent.input.frameBytes ?? 0;
    const frames = intent.input.frames ?? 1;
    const partOf = (bytes: number) => ({ raw: Buffer.alloc(bytes, 7).toString('base64'), mediaType: intent.input.mediaType });
    const firstParts =
      input === 'text'
        ? [{ text: intent.input.text ?? 'hello', mediaType: intent.input.mediaType }]
        : [partOf(input === 'frames' ? frameBytes : frames * frameBytes)];

    if (plan.completion === 'push') {
      if (!req.tls.receiver)
        return {
          decision: 'rejected',
          errorClass: 'unnegotiable-card',
          degradations: [],
          taskIds,
          notes: 'push needed but no receiver certificate was handed over',
        };
      receiver = await PushReceiver.start(req.tls.receiver);
    }
    const configuration: Record<string, unknown> = { acceptedOutputModes: plan.acceptedOutputModes, returnImmediately: true };
    const degradations = [...plan.degradations];

    const message = (parts: unknown[], taskId?: string) => ({
      messageId: newMessageId(),
      role: 'ROLE_USER',
      parts,
      ...(taskId ? { taskId } : {}),
      ...(plan.optIn ? { extensions: [plan.optIn] } : {}),
      // The skill the plan targets, by the convention of docs/extensions.md (v1.0 has no skill selector).
      ...(plan.skillId && !taskId ? { metadata: { skillId: plan.skillId } } : {}),
    });
    /** Artifact parts of a task this client cannot decode (its registry, parameters significant). */
    const undecodable = (task: TaskJson | undefined) =>
      !req.profile.consumesArtifacts
        ? []
        : (task?.artifacts ?? [])
            .flatMap((a) => (a.parts ?? []).map((p) => p.mediaType ?? ''))
            .filter((mt) => mt !== '' && !req.profile.mediaTypes.some((r) => sameType(r, mt, mistakes.looseMediaMatch === true)));
    const planned = plan;
    /** How the task came to be followed, where its first answer did not name it whole (below). */
    let followed = '';
    const report = (notes: string): ClientReport => ({
      decision: planned.optIn ? 'escalated' : degradations.length ? 'downgraded' : 'proceeded',
      degradations,
      taskIds,
      notes: [probeNote, planned.notes, followed, notes].filter(Boolean).join('; '),
    });
    type FirstSend = { message: ReturnType<typeof message>; configuration: Record<string, unknown> };

    /** The next event of a stream, or 'budget' when the deadline budget runs out first: an open stream that sends nothing more must not outlast it. */
    const nextWithin = async <T, R>(it: AsyncGenerator<T, R>): Promise<IteratorResult<T, R> | 'budget'> => {
      const pending = it.next();
      // The budget's timer is cleared when the event wins, so a finished run leaves no timer behind.
      const lost = new AbortController();
      const raced = await Promise.race([pending, sleep(Math.max(0, budgetLeft()), AbortSignal.any([signal, lost.signal])).then(() => 'budget' as const)]);
      lost.abort();
      if (raced === 'budget') pending.catch(() => {});
      return raced;
    };

    /**
     * The task a message minted, where the answer that named it was lost on the way: ListTasks (a Get
     * operation, "naturally idempotent", A2A §3.3.1), each task's history searched for the message's
     * messageId. The history need not keep the message (§3.7: clients "MUST NOT rely on this
     * behavior"), so not finding it proves nothing; and v0.3's JSON-RPC has no tasks/list at all.
     */
    const findSent = async (messageId: string): Promise<{ task?: TaskJson; note: string }> => {
      if (t.dialect === 'a2a-v0.3') return { note: 'A2A v0.3 has no tasks/list in JSON-RPC to look for it with' };
      let pageToken = '';
      for (let page = 0; page < 5 && !signal.aborted; page++) {
        const got = await t.rpc(rpcUrl, 'ListTasks', { pageSize: 100, ...(pageToken ? { pageToken } : {}) }, { headers: extHeaders });
        if (!got.ok) return { note: `ListTasks failed: ${describe(got)}` };
        const listed = (Array.isArray(got.result.tasks) ? got.result.tasks : []) as TaskJson[];
        const hit = listed.find((x) => typeof x?.id === 'string' && Array.isArray(x.history) && x.history.some((m) => m?.messageId === messageId));
        if (hit) return { task: hit, note: `ListTasks found task ${hit.id}, whose history holds the message` };
        pageToken = typeof got.result.nextPageToken === 'string' ? got.result.nextPageToken : '';
        if (!pageToken) break;
      }
      return { note: 'ListTasks shows no task whose history holds the message' };
    };
    /**
     * A first message whose answer was lost: the agent may have minted a task this client cannot
     * name. It is not sent again, with the same messageId or a new one: Send Message "MAY be
     * idempotent" (A2A §3.3.1), no more, so a second send may mint a second task for one intent.
     */
    const lostAnswer = (method: string, what: string, lookup: string): ClientReport => ({
      decision: 'rejected',
      errorClass: 'handshake',
      degradations: [],
      taskIds,
      notes: [
        probeNote,
        `the answer to ${method} was lost (${what}): the agent may have minted a task this client cannot name (${lookup}); the message was not sent again, as Send Message is only MAY-idempotent (A2A §3.3.1)`,
      ]
        .filter(Boolean)
        .join('; '),
    });

    // Streamed completion: one SendStreamingMessage, read to the end. A peer that refuses streaming
    // before any task (-32004) is met on the surface that works: SendMessage and polling.
    let streamRefused = false;
    const probed = taskIds.length; // probe tasks, already canceled
    /** A task its stream left before it ended (closed early, or cut): followed below as a task SendMessage minted is. */
    let left: { task: TaskJson; params: FirstSend; note: string } | undefined;
    if (plan.completion === 'stream') {
      const streamed: FirstSend = { message: message(firstParts), configuration };
      const it = t.rpcStream(rpcUrl, 'SendStreamingMessage', streamed, extHeaders);
      let last: string | undefined;
      let cut: Extract<RpcOutcome, { kind: 'cut' }> | undefined;
      for (;;) {
        if (budgetLeft() <= 0) {
          await it.return(undefined);
          const id = taskIds[probed];
          if (id) await cancel(id);
          return report(`the stream did not reach a terminal state within the deadline budget${id ? '; task canceled' : ''}`);
        }
        // An open stream that sends nothing more must not outlast the budget: race the next event against it.
        const raced = await nextWithin(it);
        if (raced === 'budget') {
          // Cancel first: the peer then ends the stream, and the pending read with it (a generator's return waits for it).
          const id = taskIds[probed];
          if (id) await cancel(id);
          void it.return(undefined).catch(() => {});
          return report(
            `the stream did not reach a terminal state within the deadline budget${id ? `; task ${mistakes.neverCancels ? 'left as is' : 'canceled'}` : ''}`,
          );
        }
        const n = raced;
        if (n.done) {
          if (n.value && !n.value.ok) {
            if (n.value.kind === 'rpc' && n.value.code === UNSUPPORTED_OPERATION && taskIds.length === probed && !mistakes.abortsOnRefusal) {
              streamRefused = true;
              degradations.push('stream->polling');
              break;
            }
            if (n.value.kind === 'cut') {
              cut = n.value;
              break;
            }
            return { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds, notes: `stream refused: ${describe(n.value)}` };
          }
          break;
        }
        const task = n.value.task as TaskJson | undefined;
        if (task?.id && !taskIds.includes(task.id)) taskIds.push(task.id);
        const st = (n.value.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state ?? task?.status?.state;
        if (st) last = st;
        // An artifact this client cannot decode ends the task here too (seed 001): close the stream, cancel, never re-send.
        const update = n.value.artifactUpdate as { taskId?: string; artifact?: { parts?: Array<{ mediaType?: string }> } } | undefined;
        const bad = update ? undecodable({ id: update.taskId ?? '', artifacts: update.artifact ? [update.artifact] : [] }) : [];
        if (bad.length > 0) {
          await it.return(undefined);
          const id = update?.taskId ?? taskIds[probed];
          if (id && !taskIds.includes(id)) taskIds.push(id);
          const open = !last || !TERMINAL.has(last);
          if (id && open) await cancel(id);
          return {
            ...report(
              `streamed; cannot decode ${bad.join(', ')}; task ${id ?? '(unknown)'} ${open ? (mistakes.neverCancels ? 'left as is' : 'canceled') : `ended ${last}`}; not re-sent`,
            ),
            errorClass: 'media-type',
          };
        }
        if (n.value.message && !task) last = 'a direct Message';
      }
      if (!streamRefused) {
        if (last !== undefined && (last === 'a direct Message' || TERMINAL.has(last) || INTERRUPTED.has(last))) return report(`streamed to ${last}`);
        // A task lifecycle stream closes when its task reaches a terminal state (A2A §3.1.2); this one
        // closed, or was cut, before that, so its end says nothing of the task's. The task is followed
        // on: SubscribeToTask (§3.1.6; the card said streaming, or there would be no stream), then
        // GetTask, which is for "the final state of a task … after a stream has ended" (§3.1.3).
        const how = cut ? `was cut (${describe(cut)})` : 'closed';
        const id = taskIds[probed];
        let task: TaskJson | undefined = id ? { id, status: { state: last } } : undefined;
        let lookup = '';
        if (!task) {
          // Cut (or closed) before the first event named the task: as for a SendMessage whose answer was cut.
          const found = await findSent(streamed.message.messageId);
          if (!found.task) return lostAnswer('SendStreamingMessage', `the stream ${how} before any event named a task`, found.note);
          task = found.task;
          taskIds.push(task.id);
          lookup = `; ${found.note}`;
        }
        degradations.push('stream->polling');
        left = {
          task,
          params: streamed,
          note: `the stream ${how} with the task ${last ? `in ${last}` : 'in no state yet'}, before it ended${lookup}; followed it with SubscribeToTask and GetTask`,
        };
      }
    }

    /** The first message, and the task it minted: from SendMessage's answer or, where that answer was cut, a lookup. */
    const start = async (): Promise<{ task: TaskJson; params: FirstSend; note: string } | ClientReport> => {
      const params: FirstSend = { message: message(firstParts), configuration };
      const sent = await call('SendMessage', params);
      if (!sent.ok && sent.kind === 'cut') {
        // The agent answered, so it had the message; what it did is in the part of the answer that
        // never came. A task it minted is found by the message, never by sending the message again.
        const found = await findSent(params.message.messageId);
        if (!found.task) return lostAnswer('SendMessage', describe(sent), found.note);
        return { task: found.task, params, note: `the answer to SendMessage was cut (${describe(sent)}); ${found.note}; not sent again` };
      }
      if (!sent.ok)
        return { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds, notes: `the peer refused the first message: ${describe(sent)}` };
      // An agent may answer with a direct Message and no task (spec §3.1.1): that is the answer.
      if (sent.result.message && !sent.result.task) return report('the agent answered with a direct Message; no task to follow');
      const task = taskOf(sent.result);
      if (!task)
        return { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds, notes: 'the peer answered with neither a task nor a message' };
      return { task, params, note: '' };
    };
    const started = left ?? (await start());
    if ('decision' in started) return started;
    const { task, params: first } = started;
    if (!taskIds.includes(task.id)) taskIds.push(task.id);
    followed = started.note;
    let state = task.status?.state;
    let current = task.id;
    let resent = 0;

    // Push is per task (spec §3.1.7): registered right after minting. The agent authenticates to the
    // receiver with credentials the client chose (§4.3.3); the receiver checks them. A refusal (the
    // capability flag had nothing behind it, seed 003) falls back to polling.
    let pushRefused = false;
    if (receiver) {
      const registered = await t.rpc(
        rpcUrl,
        'CreateTaskPushNotificationConfig',
        { taskId: task.id, url: receiver.url, token: receiver.token, authentication: { scheme: 'Bearer', credentials: receiver.credentials } },
        { headers: extHeaders },
      );
      if (!registered.ok) {
        pushRefused = true;
        if (mistakes.abortsOnRefusal) {
          await cancel(task.id);
          return {
            decision: 'rejected',
            errorClass: 'handshake',
            degradations: [],
            taskIds,
            notes: `push registration refused (${describe(registered)}); gave up, task ${mistakes.neverCancels ? 'left as is' : 'canceled'}`,
          };
        }
        if (!mistakes.waitsOnRefusedPush) {
          degradations.push('push->polling');
          await receiver.close();
          receiver = undefined;
        }
      }
    }
    // The naive client's blind trust: push alone, registered or not.
    const pushOnly = !!receiver && (mistakes.registersUnusablePush === true || (pushRefused && mistakes.waitsOnRefusedPush === true));

    // Live frames: one SendMessage per further frame, to the same task (a stream's task takes none: it had its one message).
    if (input === 'frames' && !left) {
      for (let i = 2; i <= frames && !signal.aborted; i++) {
        const out = await call('SendMessage', { message: message([partOf(frameBytes)], task.id), configuration: { returnImmediately: true } });
        if (!out.ok) {
          await cancel(task.id);
          return report(`the peer refused frame ${i} (${describe(out)}); task ${mistakes.neverCancels ? 'left as is' : 'canceled'}`);
        }
        state = taskOf(out.result)?.status?.state ?? state;
      }
    }
    if (plan.completion === 'none') return report('fire-and-forget: sent, not followed');

    // A task its stream left early: wait on SubscribeToTask until that stream ends too (at the task's
    // terminal state, or early again), then read the outcome with GetTask below. A subscription
    // refused (the task ended meanwhile: -32004) or cut is no loss: GetTask says where the task is.
    if (left && !signal.aborted) {
      const sub = t.rpcStream(rpcUrl, 'SubscribeToTask', { id: task.id }, extHeaders);
      for (;;) {
        const n = budgetLeft() > 0 ? await nextWithin(sub) : ('budget' as const);
        if (n === 'budget') {
          // The peer ends the stream when the task ends; the polling below cancels it at the budget.
          void sub.return(undefined).catch(() => {});
          break;
        }
        if (n.done) break;
        const seen =
          (n.value.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state ?? (n.value.task as TaskJson | undefined)?.status?.state;
        if (seen) state = seen;
      }
    }

    // Drive to a terminal state: push if registered (the naive client trusts it alone), polling otherwise.
    let final: TaskJson | undefined;
    while (!signal.aborted) {
      if (receiver) {
        const got = receiver.deliveries.find((d) => d.taskId === task.id && d.state && TERMINAL.has(d.state));
        if (got) {
          state = got.state;
          break;
        }
      }
      if (!pushOnly) {
        const polled = await t.rpc(rpcUrl, 'GetTask', { id: current }, { headers: extHeaders });
        if (polled.ok) {
          final = taskOf(polled.result);
          state = final?.status?.state;
          const bad = undecodable(final);
          if (bad.length > 0) {
            if (mistakes.retriesOnDecode && resent < 2 && !signal.aborted) {
              // The naive client's retry wrapper: the decode error looks transient, so the same request goes again.
              resent++;
              const again = await t.rpc(rpcUrl, 'SendMessage', first, { headers: extHeaders });
              const next = again.ok ? taskOf(again.result) : undefined;
              if (next && !taskIds.includes(next.id)) taskIds.push(next.id);
              if (next) current = next.id;
              continue;
            }
            // Terminal for this task, never transient (seed 001): cancel what still runs, send nothing again.
            if (!state || !TERMINAL.has(state)) await cancel(current);
            return {
              ...report(
                `${resent ? `re-sent ${resent} time(s); ` : ''}cannot decode ${bad.join(', ')}; task ${current} ${!state || !TERMINAL.has(state) ? (mistakes.neverCancels ? 'left as is' : 'canceled') : `ended ${state}`}${resent ? '' : '; not re-sent'}`,
              ),
              errorClass: 'media-type',
            };
          }
          if (state && TERMINAL.has(state)) break;
          if (state === 'TASK_STATE_INPUT_REQUIRED' && input !== 'frames') {
            await cancel(current);
            return report('the peer asked for more input than the intent has; task canceled');
          }
        }
      }
      if (budgetLeft() <= 0 && !pushOnly) {
        await cancel(current);
        return report(`no terminal state within the deadline budget (last ${state}); task ${mistakes.neverCancels ? 'left as is' : 'canceled'}`);
      }
      if (receiver) await receiver.next(POLL_MS * 2);
      else await sleep(POLL_MS, signal);
    }
    if (signal.aborted) return report('aborted at the deadline');
    // Seen by polling first: the agent's push of that state is in flight to a receiver the client chose.
    // Give it a moment (within the budget) before closing the receiver under it.
    if (receiver && !pushOnly) {
      const until = Date.now() + Math.min(500, Math.max(0, budgetLeft()));
      while (Date.now() < until && !receiver.deliveries.some((d) => d.taskId === task.id && d.state && TERMINAL.has(d.state)))
        await receiver.next(until - Date.now());
    }

    // Outputs: is the required mode among the artifacts?
    const required = intent.requiredOutputMode;
    if (required && !final) {
      const polled = await t.rpc(rpcUrl, 'GetTask', { id: task.id }, { headers: extHeaders });
      if (polled.ok) final = taskOf(polled.result);
    }
    const got = (final?.artifacts ?? []).flatMap((a) => (a.parts ?? []).map((p) => p.mediaType ?? ''));
    if (required && !got.includes(required)) {
      if (mistakes.ignoresResubscribeOnly) {
        // The naive client insists: the card lists the mode, so it must come on a subscription.
        while (!signal.aborted) {
          const it = t.rpcStream(rpcUrl, 'SubscribeToTask', { id: task.id });
          for (let n = await it.next(); !n.done; n = await it.next()) {
            const mts = ((n.value.artifactUpdate as { artifact?: { parts?: Array<{ mediaType?: string }> } } | undefined)?.artifact?.parts ?? []).map(
              (p) => p.mediaType,
            );
            if (mts.includes(required)) return report(`${required} received on SubscribeToTask`);
          }
          await sleep(POLL_MS, signal);
        }
        return report('aborted while waiting for output');
      }
      return report(`${state}; the required output ${required} was not among the artifacts (${got.join(', ') || 'none'})`);
    }
    return report(`${state}${receiver ? ` (push deliveries: ${receiver.deliveries.length})` : ''}`);
  } finally {
    await receiver?.close();
    await t.close();
  }
}
