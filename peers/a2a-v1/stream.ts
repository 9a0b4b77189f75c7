/**
 * The SSE part of an A2A v1.0 peer (spec §3.1.2, §9.4.2): a task lifecycle stream starts with the
 * Task, carries its status and artifact updates, and closes at a terminal or interrupted state; a
 * message-only stream carries exactly one Message.
 */
import { HttpResponse } from 'msw';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { isTerminal } from '../../harness/core/transcript.js';
import type { PeerRunContext } from '../context.js';
import { isObj } from './event.js';
import type { ArtifactJson, TaskRuntime } from './tasks.js';

export function sseResponse(
  ctx: PeerRunContext,
  id: unknown,
  ev: HttpEvent,
  on: { tasks: TaskRuntime; t: ReturnType<TaskRuntime['get']> } | undefined,
  extra: ReadonlyArray<ArtifactJson>,
  only?: Record<string, unknown>,
  /** `runtime.streamEnds`: close the stream after this many events, terminal or not. */
  endAfter?: number,
): Response {
  const enc = new TextEncoder();
  let off = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const frame = (result: Record<string, unknown>) => controller.enqueue(enc.encode(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`));
      if (!on) {
        frame(only ?? {});
        controller.close();
        return;
      }
      const { tasks, t } = on;
      let sent = 0;
      let closed = false;
      const send = (result: Record<string, unknown>, state: string | undefined, closes: boolean) => {
        if (closed) return;
        ctx.transcript.record({
          kind: 'sse',
          requestSeq: ev.seq,
          taskId: t.rec.id,
          ...(state ? { state } : {}),
          ...(isObj(result.artifactUpdate) ? { artifactMediaTypes: mediaTypesOf(result.artifactUpdate) } : {}),
        });
        frame(result);
        sent++;
        const final = closes || (state !== undefined && (isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED'));
        const cut = !final && endAfter !== undefined && sent >= endAfter;
        if (cut && !ctx.transcript.isSealed) ev.note = `scripted: the stream ended after ${sent} events without a terminal one (runtime.streamEnds)`;
        if (closes || cut) {
          closed = true;
          off();
          controller.close();
        }
      };
      const state = t.rec.state;
      const done = isTerminal(state) || state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';
      send({ task: tasks.toJson(t) }, state, false);
      for (const a of extra) send({ artifactUpdate: { taskId: t.rec.id, contextId: t.rec.contextId, artifact: a, lastChunk: true } }, undefined, false);
      if (closed) return;
      if (done) {
        controller.close();
        return;
      }
      off = tasks.subscribe(t, send);
    },
    cancel() {
      off();
    },
  });
  return new HttpResponse(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
}

function mediaTypesOf(update: Record<string, unknown>): string[] {
  const artifact = update.artifact;
  if (!isObj(artifact) || !Array.isArray(artifact.parts)) return [];
  return artifact.parts.filter(isObj).map((p) => String(p.mediaType ?? ''));
}
