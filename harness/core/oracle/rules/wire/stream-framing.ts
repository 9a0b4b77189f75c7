/**
 * STREAM-FRAMING (wire): An event stream framed as the SSE standard allows is read as it frames it.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * The JSON bindings stream over Server-Sent Events (A2A §9.1, §11.7), whose standard says how a
 * stream is read: lines end in CRLF, LF or a lone CR; `data:` lines of one event join with a line
 * feed; comments and other fields are no data. What the client read is seen in what it does next:
 * a client that misread the events acts as if they had not come. It searches for the task the
 * stream named (ListTasks), sends the message again, subscribes to or cancels a task the stream had
 * already ended, or reports none of the task the stream named. Each is graded from the wire: the
 * events the stream delivered whole, then the client's calls (and, for the report, the ledger).
 */
import type { SseFraming } from '../../../scenario/runtime.js';
import type { Source } from '../../../sources.js';
import type { HttpEvent, StreamEvent } from '../../../transcript.js';
import { isTerminal } from '../../../transcript.js';
import { claimEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { rpcCalls, type GradeInput } from '../../evidence.js';
import { deliveredEvent, mintedBy, namesTask } from '../../knowledge.js';
import { mustComplete } from '../../graders.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { GET_TASK_AFTER_STREAM, grpcOnly, SEND_NOT_IDEMPOTENT, SENDS, STREAMS } from './shared.js';

const JSONRPC_SSE: Source = {
  doc: 'A2A v1.0.1',
  section: '9.1',
  quote: '**Streaming:** Server-Sent Events (`text/event-stream`)',
  level: 'convention',
};

const REST_SSE: Source = {
  doc: 'A2A v1.0.1',
  section: '11.7',
  quote: 'REST streaming uses Server-Sent Events with the `data` field containing JSON serializations of the protocol data objects',
  level: 'convention',
};

const LINE_ENDS: Source = {
  doc: 'WHATWG HTML',
  section: '9.2.6 Interpreting an event stream',
  quote:
    'The stream must then be parsed by reading everything line by line, with a U+000D CARRIAGE RETURN U+000A LINE FEED (CRLF) character pair, a single U+000A LINE FEED (LF) character not preceded by a U+000D CARRIAGE RETURN (CR) character, and a single U+000D CARRIAGE RETURN (CR) character not followed by a U+000A LINE FEED (LF) character being the ways in which a line can end.',
  level: 'MUST',
};

const DATA_BUFFER: Source = {
  doc: 'WHATWG HTML',
  section: '9.2.6 Interpreting an event stream',
  quote: 'Append the field value to the data buffer, then append a single U+000A LINE FEED (LF) character to the data buffer.',
  level: 'MUST',
};

/** What the runtime's framing does, said in a few words. */
function framingText(f: SseFraming): string {
  const parts = [
    f.multiline && 'each event over several data: lines',
    f.lineEnd && f.lineEnd !== 'lf' && `${f.lineEnd.toUpperCase()} line ends`,
    f.fields && 'a comment and event:, id: and retry: fields with each event',
    f.lineBytes && `each event on one data: line of at least ${f.lineBytes} bytes`,
    f.split && !f.lineBytes && 'each event written in pieces of a few bytes apart in time, split mid-line and mid-UTF-8',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'plain frames';
}

/**
 * The events a stream wrote whole to the client's connection, in order: the peer's events (its answer
 * not cut before them), as many as the listener's record of the bytes it wrote holds (respond.ts keeps
 * the events it wrote; a client that went mid-stream got no more).
 */
function delivered(x: GradeInput, stream: HttpEvent): StreamEvent[] {
  const queued = x.events.filter((e): e is StreamEvent => e.kind === 'sse' && e.requestSeq === stream.seq && deliveredEvent(x, e));
  const rec = stream.responseBody;
  // A record that left events out (its bound) says nothing of the rest: those are taken as written.
  const written = rec?.events && !rec.truncated ? rec.events.length : queued.length;
  return queued.slice(0, written);
}

/** Whether a framing changes anything on the wire (`{}` or `lineEnd: 'lf'` alone is a plain stream). */
const framed = (f: SseFraming) =>
  f.multiline === true || (f.lineEnd !== undefined && f.lineEnd !== 'lf') || f.fields === true || (f.lineBytes ?? 0) > 0 || (f.split === true && !f.lineBytes);

export const STREAM_FRAMING: RuleOf<'STREAM-FRAMING'> = {
  id: 'STREAM-FRAMING',
  title: 'An event stream framed as the SSE standard allows is read as it frames it',
  family: 'wire',
  scope: 'own',
  sources: [JSONRPC_SSE, REST_SSE, LINE_ENDS, DATA_BUFFER, SEND_NOT_IDEMPOTENT],
  limits: [GET_TASK_AFTER_STREAM],
  grades: [
    {
      when: 'after a stream wrote the Task event, the intent started again (a message naming no task) and a second task minted',
      verdict: 'FAIL (harm)',
    },
    {
      when: 'after the stream wrote the terminal state, SubscribeToTask or CancelTask of that task',
      verdict: 'FAIL (MUST: the events were not read as the standard frames them)',
    },
    { when: 'a report that names none of the tasks the stream named', verdict: 'FAIL (MUST; the stream wrote the id to the client’s connection)' },
    {
      when: 'after the stream wrote the Task event, ListTasks (a search for a task it had been told)',
      verdict: 'NON_STRICT (convention: a read harms nothing)',
    },
    { when: 'no report came back', verdict: 'INFORMATIONAL (WIRE-DEADLINE grades it)' },
    { when: 'none of these: the client read the stream (a GetTask after it is allowed, §3.1.3)', verdict: 'PASS' },
    { when: 'the client declined the intent, which the peer would have completed', verdict: 'FAIL (over-rejection)' },
  ],
  motivatedBy: ['a2aproject/a2a-java#841', 'a2aproject/a2a-java#1123', 'a2aproject/a2a-go#149', 'a2aproject/a2a-js#582'],
  notBinding: [
    'the peer frames its streams plainly (one data: line per event, LF line ends)',
    'a card without streaming, or an intent that asks for no stream',
    'the client followed the task without a stream',
    'a card that offers gRPC only (its streams frame no SSE)',
  ],
  applies(s) {
    const f = s.truth.runtime.sseFraming;
    if (!f || !framed(f)) return notBinding('the peer frames its streams plainly: one data: line per event, LF line ends, written whole');
    if (s.card.streaming !== true) return notBinding('the card offers no streaming');
    // gRPC streams length-prefixed messages: no SSE to frame.
    if (grpcOnly(s)) return notBinding('the card offers gRPC only, whose streams are length-prefixed messages: no SSE to frame');
    if (s.intent.completion !== 'stream' || s.intent.taskClass === 'fire-and-forget') return notBinding('the intent asks for no stream to follow');
    return binds(`the peer's streams frame their events legally, with ${framingText(f)}: the client must read them as SSE frames them`, ['proceed']);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const calls = rpcCalls(x);
    const streams = calls.filter((e) => STREAMS.has(e.rpc!.method) && !e.rpcError && e.status === 200);
    if (streams.length === 0) return x.tasks.length === 0 ? mustComplete(x, b.reason) : informational('the client followed the task without a stream');
    const first = streams[0]!;
    const events = delivered(x, first);
    const own = first.taskId ?? mintedBy(x, first)?.id;
    if (events.length === 0 || !own) return informational(`the stream #${first.seq} delivered no event that named a task`);
    const told: EvidenceRef = wireEvidence(
      first.seq,
      `${first.rpc!.method}: ${events.length} event(s) written to the client's connection, the first naming task ${own}`,
    );
    const ended = events.find((e) => e.state !== undefined && isTerminal(e.state));
    const after = calls.filter((e) => e.seq > first.seq);
    // The intent started again: a message that names no task, and the task it minted.
    const again = after.find((e) => SENDS.has(e.rpc!.method) && !(e.rpc!.params as { message?: { taskId?: unknown } } | undefined)?.message?.taskId);
    const second = again ? mintedBy(x, again) : undefined;
    if (again && second)
      return harm(
        `the stream #${first.seq} named task ${own}, and the client sent the message again at #${again.seq} (${again.rpc!.method}): a second task (${second.id}) for one intent, as if it had not read the stream's events`,
        [told, wireEvidence(again.seq, `${again.rpc!.method}, a message naming no task`), ledgerEvidence(second.mintedSeq, `task ${second.id} minted by it`)],
      );
    // After the stream wrote the task's end: a subscription to it or its cancel says the end was not read (a cancel
    // sent while the task still worked is the client's own decision, and the end it brought is no news to misread).
    const misread = ended
      ? after.find((e) => e.seq > ended.seq && (e.rpc!.method === 'SubscribeToTask' || e.rpc!.method === 'CancelTask') && namesTask(e, own))
      : undefined;
    if (misread)
      return verdict(
        'FAIL',
        `the stream #${first.seq} wrote task ${own}'s end (${ended!.state}), and the client then called ${misread.rpc!.method} of it at #${misread.seq}: it did not read the events as the standard frames them`,
        [told, wireEvidence(ended!.seq, `the event with ${ended!.state}`), wireEvidence(misread.seq, misread.rpc!.method)],
        { basis: 'duty' },
      );
    if (!x.claims) return informational('no report to compare (WIRE-DEADLINE grades a run without one)');
    // ListTasks after the stream named the task: a search for a task it had been told, a sign it did not read the
    // event; a read harms nothing and may serve another purpose, so it is a convention's NON_STRICT, not a FAIL.
    const search = after.find((e) => e.rpc!.method === 'ListTasks');
    if (search)
      return verdict(
        'NON_STRICT',
        `the stream #${first.seq} wrote the event naming task ${own}, and the client then searched for its task with ListTasks at #${search.seq}: a sign it did not read the event`,
        [told, wireEvidence(search.seq, 'ListTasks')],
        { basis: 'duty', level: 'convention' },
      );
    if (!x.claims.taskIds.includes(own))
      return verdict(
        'FAIL',
        `the stream #${first.seq} wrote the event naming task ${own} to the client's connection, and the client's report names no such task: it did not read the event`,
        [told, claimEvidence(`taskIds: ${JSON.stringify(x.claims.taskIds)}`)],
        { basis: 'duty' },
      );
    return met(`read the stream #${first.seq}: ${events.length} event(s)${ended ? ` to ${ended.state}` : ''}, with nothing done again`, [told]);
  },
};
