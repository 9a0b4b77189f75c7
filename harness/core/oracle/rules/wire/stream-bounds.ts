/**
 * STREAM-BOUNDS (wire): A stream whose line or event never ends is given up within a bound, never taken for the task's end.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * After its first event (the Task) the peer's stream sends a line, or an event, that never ends
 * (runtime.hostileStream): 24 MiB of it, then nothing, held open. The SSE standard sets no bound and
 * neither does A2A, so the bound is the client's own and the duty a convention (docs/protocol.md): a
 * client still reading the endless line when the run ended had no bound at all. What it claims is
 * graded as harm whatever the form: a success reported without the task seen to end.
 */
import type { Source } from '../../../sources.js';
import { HOSTILE_STREAM_BYTES, type HttpEvent } from '../../../transcript.js';
import { claimEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { decisionSeq, rpcCalls, terminalSeenAt } from '../../evidence.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { GET_TASK_AFTER_STREAM, grpcOnly, STREAMS } from './shared.js';

const BROKEN: Source = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, The A2A wire, in one page',
  quote:
    "A stream whose line or event never ends is broken: give it up within a bound of your own, never take it for the task's end, and follow the task another way",
  level: 'convention',
};

const MiB = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

export const STREAM_BOUNDS: RuleOf<'STREAM-BOUNDS'> = {
  id: 'STREAM-BOUNDS',
  title: "A stream whose line or event never ends is given up within a bound, never taken for the task's end",
  family: 'wire',
  scope: 'own',
  sources: [BROKEN],
  limits: [GET_TASK_AFTER_STREAM],
  grades: [
    { when: 'a report of `proceeded` or `downgraded` before the client saw the task end', verdict: 'FAIL (harm: a success taken from a broken stream)' },
    {
      when: 'the client never gave the stream up: it was still open when the run ended, it closed it only after taking all 24 MiB the peer wrote (at the client’s pace), or it held it into the last quarter of its deadline',
      verdict: 'NON_STRICT (convention: no bound)',
    },
    { when: 'the client closed the stream, and followed the task to its end or reported the failure', verdict: 'PASS' },
    { when: 'the client opened no stream', verdict: 'INFORMATIONAL' },
  ],
  motivatedBy: ['a2aproject/a2a-js#582', 'a2aproject/a2a-go#149'],
  notBinding: [
    'the peer’s streams end their lines and events',
    'a card without streaming, or an intent that asks for no stream',
    'a card that offers gRPC only',
  ],
  applies(s) {
    const hostile = s.truth.runtime.hostileStream;
    if (!hostile) return notBinding('the peer’s streams end their lines and events');
    if (s.card.streaming !== true) return notBinding('the card offers no streaming');
    if (grpcOnly(s)) return notBinding('the card offers gRPC only, whose streams are length-prefixed messages: no SSE line to leave open');
    if (s.intent.completion !== 'stream' || s.intent.taskClass === 'fire-and-forget') return notBinding('the intent asks for no stream to follow');
    return binds(
      `after its first event every stream sends ${hostile === 'no-line-end' ? 'a line' : 'an event'} that never ends: the client must give it up within a bound of its own and never take it for the task's end`,
      ['proceed', 'downgrade', 'reject'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const streams = rpcCalls(x).filter((e) => STREAMS.has(e.rpc!.method) && e.status === 200 && !e.rpcError);
    const first: HttpEvent | undefined = streams[0];
    if (!first) return informational('the client opened no stream');
    const took = `${MiB(first.streamBytes ?? 0)} written to it`;
    const told = wireEvidence(first.seq, `${first.rpc!.method}: its first event, then a line or event without end (${took})`);
    const decision = x.outcome.kind === 'reported' ? x.claims?.decision : undefined;
    const task = x.tasks.find((t) => t.id === first.taskId) ?? x.tasks[0];
    const seen = task ? terminalSeenAt(x, task.id) : undefined;
    if ((decision === 'proceeded' || decision === 'downgraded') && (seen === undefined || seen > decisionSeq(x)))
      return harm(
        `the stream #${first.seq} never ended its ${x.scenario.peer.runtime.hostileStream === 'no-line-end' ? 'line' : 'event'}, and the client reported ${decision} without having seen the task end`,
        [told, claimEvidence(`decision: ${decision}`)],
      );
    // No bound: the stream still open when the run ended, closed only after it had taken all the peer would write
    // (the listener writes at the client's pace), or held until the client's deadline was all but spent.
    const late = x.scenario.deadlineMs * 0.75;
    const why = (e: HttpEvent): string | undefined => {
      if (e.streamEnd?.by !== 'client') return `still open when the run ended, after ${MiB(e.streamBytes ?? 0)} of a line or event without end`;
      if ((e.streamBytes ?? 0) >= HOSTILE_STREAM_BYTES) return `it closed it only after taking all ${MiB(e.streamBytes ?? 0)} of a line or event without end`;
      if (e.streamEnd.t >= late)
        return `it held it until its deadline: closed at ${e.streamEnd.t} ms of a ${x.scenario.deadlineMs} ms deadline, after ${MiB(e.streamBytes ?? 0)} of a line or event without end`;
      return undefined;
    };
    const open = streams.filter((e) => why(e) !== undefined);
    if (open.length > 0) {
      const e = open[0]!;
      // Held into the deadline's last quarter, and closed with less than all the peer would write: that rests on time
      // (a harness that lagged delays the bytes), so it is confirmed like a timeout (basis `deadline`).
      const timed = e.streamEnd?.by === 'client' && (e.streamBytes ?? 0) < HOSTILE_STREAM_BYTES;
      return verdict(
        'NON_STRICT',
        `the client never gave the stream #${e.seq} up on its own: ${why(e)}; a client with no bound buffers what a broken peer sends`,
        [wireEvidence(e.seq, `${e.rpc!.method}: ${MiB(e.streamBytes ?? 0)} written, never closed by the client`)],
        { basis: timed ? 'deadline' : 'duty', level: 'convention' },
      );
    }
    const end = seen !== undefined ? `, and saw task ${task!.id} end at #${seen}` : decision ? `, and reported ${decision}` : '';
    return met(`the client gave the stream #${first.seq} up after ${took}${end}`, [
      told,
      ...(seen !== undefined ? [wireEvidence(seen, `task ${task!.id} seen ${task!.state}`)] : []),
    ]);
  },
};
