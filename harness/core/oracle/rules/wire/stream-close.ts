/**
 * STREAM-CLOSE (wire): A task's terminal event ends its stream for the client: it reports on it, and closes a stream left open.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * §3.1.2 has the server close a task's stream when the task reaches a terminal state; a peer that
 * keeps it open (runtime.streamsStayOpen) tests whether the client reads the terminal event as the
 * end, or waits for an end of stream that does not come. Waiting past its deadline is a stall (harm,
 * as WIRE-DEADLINE has it); reporting and leaving the stream open holds a connection and the agent's
 * resources for nothing (a2a-js PR #580): no sentence of the spec asks the client to close it, so a
 * convention.
 */
import type { Source } from '../../../sources.js';
import { claimEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { isTerminal, STREAM_CLOSE_MS, type HttpEvent, type StreamEvent } from '../../../transcript.js';
import { decisionOf, rpcCalls } from '../../evidence.js';
import { binds, harm, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { STREAMS } from './shared.js';

const STREAM_CLOSES: Source = {
  doc: 'A2A v1.0.1',
  section: '3.1.2',
  quote:
    'The stream MUST close when the task reaches a terminal state (`TASK_STATE_COMPLETED`, `TASK_STATE_FAILED`, `TASK_STATE_CANCELED`, `TASK_STATE_REJECTED`).',
  level: 'convention',
};

const DEADLINE: Source = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, Deadlines',
  quote: "A client MUST send the run's `result` before `deadlineMs` has passed.",
  level: 'MUST',
  role: 'harm',
};

export const STREAM_CLOSE: RuleOf<'STREAM-CLOSE'> = {
  id: 'STREAM-CLOSE',
  title: 'A task’s terminal event ends its stream for the client: it reports on it, and closes a stream left open',
  family: 'wire',
  scope: 'own',
  sources: [STREAM_CLOSES, DEADLINE],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.5.2',
      quote: "The task lifecycle is independent of any individual stream's lifecycle",
    },
  ],
  grades: [
    {
      when: 'the stream wrote the task’s terminal event and stayed open, and the deadline passed with no report and the stream still open',
      verdict: 'FAIL (harm: a stall waiting for an end of stream the terminal event had told)',
    },
    {
      when: 'the client canceled the task after its stream had carried the task’s terminal event (it waited on the stream, not on the event)',
      verdict: 'NON_STRICT (convention)',
    },
    {
      when: 'the client closed the stream and reported more than half its deadline (at least 2 s) after the terminal event: it waited on the stream, not on the event',
      verdict: 'NON_STRICT (convention)',
    },
    {
      when: `the client reported, and a stream of its that had written the terminal event was still open when the run ended (the run waits ${STREAM_CLOSE_MS} ms of its own time after the report)`,
      verdict: 'NON_STRICT (convention: a stream the client is done with holds a connection and the agent’s resources)',
    },
    { when: 'the client reported on the terminal event and closed the stream (the connection closed, or the HTTP/2 stream reset)', verdict: 'PASS' },
    { when: 'no stream of the client carried its task’s terminal event', verdict: 'INFORMATIONAL' },
  ],
  motivatedBy: ['a2aproject/a2a-js#580'],
  notBinding: ['the peer closes its streams as §3.1.2 says', 'a card without streaming, or an intent that asks for no stream'],
  applies(s) {
    if (!s.truth.runtime.streamsStayOpen) return notBinding('the peer closes its streams as §3.1.2 says');
    if (s.card.streaming !== true) return notBinding('the card offers no streaming');
    if (s.intent.completion !== 'stream' || s.intent.taskClass === 'fire-and-forget') return notBinding('the intent asks for no stream to follow');
    return binds('the stream stays open after the task’s terminal event: the client reads the event as the end, reports, and closes the stream', [
      'proceed',
      'downgrade',
    ]);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const terminalOf = (e: HttpEvent) => x.events.find((s): s is StreamEvent => s.kind === 'sse' && s.requestSeq === e.seq && isTerminal(s.state));
    const held = rpcCalls(x)
      .filter((e) => STREAMS.has(e.rpc!.method))
      .map((e) => ({ e, end: terminalOf(e) }))
      .filter((h): h is { e: HttpEvent; end: StreamEvent } => h.end !== undefined);
    if (held.length === 0) return informational('no stream of the client’s carried its task’s terminal event');
    const first = held[0]!;
    const told = (h: (typeof held)[number]) => [
      wireEvidence(h.e.seq, `${h.e.rpc!.method}: the stream`),
      wireEvidence(h.end.seq, `the task's terminal event (${h.end.state}), the stream left open`),
    ];
    const d = decisionOf(x);
    // A stall: the deadline passed with the stream still open and no report. A crash, or a timeout after the client
    // closed the stream itself, is no wait on the stream: WIRE-DEADLINE grades those.
    const closedByClient = (h: (typeof held)[number]) => h.e.streamEnd?.by === 'client';
    if (!d && (x.outcome.kind !== 'timeout' || closedByClient(first)))
      return informational(`no report (${x.outcome.kind}), and no wait on an open stream the wire shows: WIRE-DEADLINE grades it`, told(first));
    if (!d)
      return harm(
        `the stream #${first.e.seq} wrote the task’s terminal event (#${first.end.seq}, ${first.end.state}) at ${first.end.t} ms and stayed open; the client gave no report (${x.outcome.kind}): it waited for an end of stream the terminal event had already told`,
        told(first),
      );
    // A cancel of the task after its terminal event was on the client's stream: the client did not take the event for the end.
    for (const h of held) {
      const cancel = rpcCalls(x, 'CancelTask').find((c) => c.seq > h.end.seq && c.taskId === h.end.taskId);
      if (cancel)
        return verdict(
          'NON_STRICT',
          `the client canceled task ${h.end.taskId} at #${cancel.seq}, ${cancel.t - h.end.t} ms after its stream #${h.e.seq} had carried the task's terminal event (#${h.end.seq}, ${h.end.state}): it did not take the event for the end, and waited on the stream instead`,
          [...told(h), wireEvidence(cancel.seq, 'CancelTask of a task whose end the client had on its stream')],
          { basis: 'duty', level: 'convention' },
        );
    }
    // Closed and reported only long after the event (at a budget, by the look of it): the client waited on the stream.
    const late = Math.max(2000, x.scenario.deadlineMs / 2);
    const waited = held.find((h) => h.e.streamEnd?.by === 'client' && h.e.streamEnd.t - h.end.t > late && d.t - h.end.t > late);
    if (waited)
      return verdict(
        'NON_STRICT',
        `the client closed the stream #${waited.e.seq} and reported only ${d.t - waited.end.t} ms after its terminal event (#${waited.end.seq}, ${waited.end.state}), more than ${late} ms (half its deadline, at least 2 s): it waited on the stream, not on the event`,
        [...told(waited), claimEvidence(`decision: ${x.claims?.decision ?? 'none'}`)],
        // Rests on time (a harness that lagged delays the report): confirmed like a timeout.
        { basis: 'deadline', level: 'convention' },
      );
    // In time: closed by the client before the run ended, the run having waited STREAM_CLOSE_MS of the harness's time for it.
    const open = held.filter((h) => !closedByClient(h));
    if (open.length > 0) {
      const h = open[0]!;
      const when = `still open when the run ended, ${STREAM_CLOSE_MS} ms of the harness's time after it`;
      return verdict(
        'NON_STRICT',
        `the client reported at #${d.seq} and left the stream #${h.e.seq} open: ${when} (its terminal event #${h.end.seq} had been written at ${h.end.t} ms); a stream the client is done with holds a connection and the agent’s resources`,
        [...told(h), claimEvidence(`decision: ${x.claims?.decision ?? 'none'}`)],
        { basis: 'duty', level: 'convention' },
      );
    }
    return met(
      `the client reported at #${d.seq} on the terminal event and closed ${held.length === 1 ? 'the stream' : `each of ${held.length} streams`} (#${first.e.seq} at ${first.e.streamEnd!.t} ms, ${first.e.streamEnd!.t - first.end.t} ms after its terminal event)`,
      told(first),
    );
  },
};
