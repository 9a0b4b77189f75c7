/**
 * A stream of a task's events (spec §3.1.2, §3.5): a task lifecycle stream starts with the Task,
 * carries its status and artifact updates (StreamResponse, neutral shapes), and closes at a terminal
 * or interrupted state; a message-only stream carries exactly one Message. Each event is recorded
 * in the transcript and handed to the wire's `frame` (an SSE `data:` line of JSON-RPC, a gRPC message)
 * for its bytes.
 */
import type { HttpEvent } from '../../harness/core/transcript.js';
import { isTerminal } from '../../harness/core/transcript.js';
import type { PeerRunContext } from './context.js';
import { isObj } from './event.js';
import type { ArtifactJson, TaskRuntime, TaskState } from './tasks.js';

/** What a streaming operation streams: a task's events from now on (with artifacts only this stream shows), or one Message. */
export type StreamPlan =
  | {
      tasks: TaskRuntime;
      t: TaskState;
      extra: ReadonlyArray<ArtifactJson>;
      /** `runtime.streamEnds`: close after this many events, terminal or not. */
      endAfter?: number;
      /** `runtime.streamEnds.midEvent`: instead, send half of the next event and reset the connection. */
      midEvent?: boolean;
    }
  | { only: Record<string, unknown> };

/** One event's bytes as the wire frames it: text (an SSE frame) or bytes (a length-prefixed gRPC message). */
export type Frame = (event: Record<string, unknown>) => string | Uint8Array;

const closesAt = (state: string) => isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';

/**
 * `stayOpen` (runtime.streamsStayOpen): after the event of a terminal state, the stream is not closed;
 * it stays open, with nothing more on it, until the client closes it or the run ends (an interrupted
 * state closes it as usual).
 */
export function eventStream(ctx: PeerRunContext, ev: HttpEvent, plan: StreamPlan, frame: Frame, stayOpen = false): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let off = () => {};
  /** A reset mid-event is due: the stream errs once its half event has been read (an error drops what is queued). */
  let resetDue = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const put = (event: Record<string, unknown>) => {
        const f = frame(event);
        controller.enqueue(typeof f === 'string' ? enc.encode(f) : f);
      };
      if ('only' in plan) {
        put(plan.only);
        controller.close();
        return;
      }
      const { tasks, t, extra, endAfter, midEvent } = plan;
      let sent = 0;
      let closed = false;
      const send = (event: Record<string, unknown>, state: string | undefined, closes: boolean) => {
        if (closed) return;
        if (midEvent && endAfter !== undefined && sent >= endAfter) {
          // The event after the last whole one: its first half, then the connection reset. It is not recorded as
          // sent (the client never has it whole): the request's note says where the stream was cut.
          const f = frame(event);
          const bytes = typeof f === 'string' ? enc.encode(f) : f;
          controller.enqueue(bytes.subarray(0, Math.max(1, Math.floor(bytes.length / 2))));
          if (!ctx.transcript.isSealed)
            ev.note = `scripted: the stream ended after ${sent} events, reset mid-way through the next (runtime.streamEnds.midEvent)`;
          closed = true;
          resetDue = true;
          off();
          return;
        }
        ctx.transcript.record({
          kind: 'sse',
          requestSeq: ev.seq,
          taskId: t.rec.id,
          ...(state ? { state } : {}),
          ...(isObj(event.artifactUpdate) ? { artifactMediaTypes: mediaTypesOf(event.artifactUpdate) } : {}),
        });
        put(event);
        sent++;
        const final = closes || (state !== undefined && closesAt(state));
        const cut = !final && !midEvent && endAfter !== undefined && sent >= endAfter;
        if (cut && !ctx.transcript.isSealed) ev.note = `scripted: the stream ended after ${sent} events without a terminal one (runtime.streamEnds)`;
        if (closes || cut) {
          closed = true;
          off();
          if (stayOpen && !cut && isTerminal(state)) {
            if (!ctx.transcript.isSealed) ev.note ??= 'scripted: the stream stays open after its terminal event (runtime.streamsStayOpen)';
            return;
          }
          controller.close();
        }
      };
      const state = t.rec.state;
      const done = closesAt(state);
      send({ task: tasks.toJson(t) }, state, false);
      for (const a of extra) send({ artifactUpdate: { taskId: t.rec.id, contextId: t.rec.contextId, artifact: a, lastChunk: true } }, undefined, false);
      if (closed) return;
      if (done) {
        if (stayOpen && isTerminal(state)) {
          if (!ctx.transcript.isSealed) ev.note ??= 'scripted: the stream stays open after its terminal event (runtime.streamsStayOpen)';
          return;
        }
        controller.close();
        return;
      }
      off = tasks.subscribe(t, send);
    },
    pull(controller) {
      // Called once what was queued has been read: the half event is on its way, and the reset follows it.
      if (resetDue) controller.error(new Error('scripted: the connection reset mid-event (runtime.streamEnds.midEvent)'));
    },
    cancel() {
      off();
    },
  });
}

function mediaTypesOf(update: Record<string, unknown>): string[] {
  const artifact = update.artifact;
  if (!isObj(artifact) || !Array.isArray(artifact.parts)) return [];
  return artifact.parts.filter(isObj).map((p) => String(p.mediaType ?? ''));
}
