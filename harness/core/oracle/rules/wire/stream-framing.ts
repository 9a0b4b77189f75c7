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
import type { SseFraming } from '../../../scenario.js';
import type { Source } from '../../../sources.js';
import type { HttpEvent, StreamEvent } from '../../../transcript.js';
import { isTerminal } from '../../../transcript.js';
import { claimEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { rpcCalls } from '../../evidence.js';
import { deliveredEvent, mintedBy, namesTask } from '../../knowledge.js';
import { mustComplete } from '../../graders.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { GET_TASK_AFTER_STREAM, SEND_NOT_IDEMPOTENT, SENDS, STREAMS } from './shared.js';

const JSONRPC_SSE: Source = {
  doc: 'A2A v1.0.1',
  section: '9.1',
  quote: '**Streaming:** Server-Sent Events (`text/event-stream`)',
  level: 'MUST',
};

const REST_SSE: Source = {
  doc: 'A2A v1.0.1',
  section: '11.7',
  quote: 'REST streaming uses Server-Sent Events with the `data` field containing JSON serializations of the protocol data objects',
  level: 'MUST',
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
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'plain frames';
}

/** The events a stream delivered whole to the client (its answer not cut before them), in order. */
const delivered = (x: Parameters<RuleOf<'STREAM-FRAMING'>['grade']>[1], stream: HttpEvent): StreamEvent[] =>
  x.events.filter((e): e is StreamEvent => e.kind === 'sse' && e.requestSeq === stream.seq && deliveredEvent(x, e));

export const STREAM_FRAMING: RuleOf<'STREAM-FRAMING'> = {
  id: 'STREAM-FRAMING',
  title: 'An event stream framed as the SSE standard allows is read as it frames it',
  family: 'wire',
  scope: 'own',
  sources: [JSONRPC_SSE, REST_SSE, LINE_ENDS, DATA_BUFFER, SEND_NOT_IDEMPOTENT],
  limits: [GET_TASK_AFTER_STREAM],
  grades: [
    {
      when: 'after a stream delivered the Task event, the intent started again (a message naming no task) and a second task minted',
      verdict: 'FAIL (harm)',
    },
    {
      when: 'after a stream delivered the Task event, ListTasks (a search for a task the stream had named); after it delivered the terminal state, SubscribeToTask or CancelTask of that task',
      verdict: 'FAIL (MUST: the events were not read as the standard frames them)',
    },
    { when: 'a report that names none of the tasks the stream named', verdict: 'FAIL (MUST; the ledger and the stream show the id reached it)' },
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
    if (!f) return notBinding('the peer frames its streams plainly: one data: line per event, LF line ends');
    if (s.card.streaming !== true) return notBinding('the card offers no streaming');
    // gRPC streams length-prefixed messages: no SSE to frame.
    if (s.card.interfaces.length > 0 && s.card.interfaces.every((i) => i.protocolBinding === 'GRPC'))
      return notBinding('the card offers gRPC only, whose streams are length-prefixed messages: no SSE to frame');
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
    const told: EvidenceRef = wireEvidence(first.seq, `${first.rpc!.method}: ${events.length} event(s) delivered, the first naming task ${own}`);
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
    const search = after.find((e) => e.rpc!.method === 'ListTasks');
    const misread = ended ? after.find((e) => (e.rpc!.method === 'SubscribeToTask' || e.rpc!.method === 'CancelTask') && namesTask(e, own)) : undefined;
    const act = search ?? misread;
    if (act)
      return verdict(
        'FAIL',
        search
          ? `the stream #${first.seq} named task ${own} in its first event, and the client searched for its task with ListTasks at #${act.seq}: it did not read the event`
          : `the stream #${first.seq} delivered task ${own}'s end (${ended!.state}), and the client then called ${act.rpc!.method} of it at #${act.seq}: it did not read the events as the standard frames them`,
        [told, ...(ended ? [wireEvidence(ended.seq, `the event with ${ended.state}`)] : []), wireEvidence(act.seq, act.rpc!.method)],
        { basis: 'duty' },
      );
    if (x.claims && !x.claims.taskIds.includes(own))
      return verdict(
        'FAIL',
        `the stream #${first.seq} named task ${own} in an event it delivered whole, and the client's report names no such task: it did not read the event`,
        [told, claimEvidence(`taskIds: ${JSON.stringify(x.claims.taskIds)}`)],
        { basis: 'duty' },
      );
    return met(`read the stream #${first.seq}: ${events.length} event(s)${ended ? ` to ${ended.state}` : ''}, with nothing done again`, [told]);
  },
};
