/**
 * TOLERANT-DECODING (wire): An answer carrying members or values no protocol version defines is read past, not stopped on.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * §5.7 asks implementations to ignore unrecognized fields, "allowing for forward compatibility as the
 * protocol evolves". The peer adds one member no version of A2A defines to its successful answers and
 * stream events (runtime.unknownFields), and nothing else differs from a healthy run: a client that
 * then gives up, or never reports, stopped on them. A SHOULD: NON_STRICT. The same for an artifact
 * part whose content is a kind no version defines (runtime.futureValues `part`: in v1.0 a member the
 * proto does not have; v0.3's is an unknown value of `kind`, convention). A task state no version
 * defines (`state`) the spec does not speak of: the proto's own "unknown or indeterminate state" is
 * the reading, convention. Polling on after the answers showed the task ended is a sign, convention. What the stop costs (a task
 * left working, a message sent again) is the cross-cutting rules' to grade, as harm; a success
 * reported before a known terminal state came is WIRE-DEADLINE's.
 */
import type { Source } from '../../../sources.js';
import { claimEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { failed, rpcCalls, terminalSeenAt } from '../../evidence.js';
import { namesTask } from '../../knowledge.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { grpcOnly } from './shared.js';

const IGNORE_UNRECOGNIZED: Source = {
  doc: 'A2A v1.0.1',
  section: '5.7',
  quote: 'Implementations **SHOULD** ignore unrecognized fields in messages, allowing for forward compatibility as the protocol evolves.',
  level: 'SHOULD',
};

/** How the peers mark an answer they added unknown members or values to (peers/endpoint.ts). */
const MARK = /^scripted: a (member|value) no protocol version defines/;

const UNKNOWN_STATE: Source = {
  doc: 'A2A v1.0.1 proto',
  section: 'TaskState.TASK_STATE_UNSPECIFIED',
  quote: 'The task is in an unknown or indeterminate state.',
  level: 'convention',
};

export const TOLERANT_DECODING: RuleOf<'TOLERANT-DECODING'> = {
  id: 'TOLERANT-DECODING',
  title: 'An answer carrying members or values no protocol version defines is read past, not stopped on',
  family: 'wire',
  scope: 'own',
  sources: [IGNORE_UNRECOGNIZED, UNKNOWN_STATE],
  limits: [
    {
      doc: 'A2A v0.3.0',
      section: '3.4.3',
      quote: 'JSON-RPC: May include additional fields in the JSON-RPC request/response objects that do not conflict with the core specification.',
    },
  ],
  grades: [
    {
      when: 'after an answer or event carrying an unknown member, the client reported anything but `proceeded` or `downgraded`, or gave no report, on a card and task that were otherwise healthy',
      verdict: 'NON_STRICT (SHOULD, §5.7)',
    },
    {
      when: 'the same after a task state no version defines (TASK_STATE_DEFERRED in place of WORKING)',
      verdict: 'NON_STRICT (convention: the spec does not speak of unknown values; the proto reads a state it cannot name as indeterminate)',
    },
    {
      when: 'a report of `proceeded` or `downgraded`, but three or more GetTask of a task after an answer had shown it ended (the answers were not read)',
      verdict: 'NON_STRICT (convention: a sign the answers were not read)',
    },
    { when: 'the client went on past every such answer and reported `proceeded` or `downgraded`', verdict: 'PASS' },
    { when: 'no answer carrying an unknown member reached the client (it called nothing, or only over gRPC)', verdict: 'INFORMATIONAL' },
  ],
  notBinding: ['the peer sends only members and values the protocol defines', 'a card that offers gRPC only (protobuf carries no member by name)'],
  motivatedBy: ['a2aproject/a2a-rs#81'],
  applies(s) {
    const { unknownFields: depth, futureValues: future } = s.truth.runtime;
    if (!depth && !future) return notBinding('the peer sends only members and values the protocol defines');
    if (grpcOnly(s)) return notBinding('the card offers gRPC only: its protobuf carries no member by name, and decoders skip field numbers they do not know');
    const what = depth
      ? `a member no protocol version defines (${depth === 'every' ? 'in every object' : 'beside its own members'})`
      : future === 'state'
        ? 'a task state no protocol version defines in place of WORKING'
        : 'an artifact part whose content is a kind no protocol version defines';
    return binds(`every successful answer and stream event carries ${what}: the client reads on`, ['proceed', 'downgrade']);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const state = !x.scenario.peer.runtime.unknownFields && x.scenario.peer.runtime.futureValues === 'state';
    // v0.3 names a part's kind in a field it defines (`kind`): an unknown kind is an unknown value there, not an unrecognized field.
    const value = state || (!x.scenario.peer.runtime.unknownFields && x.scenario.peer.dialect === 'a2a-v0.3');
    const oddity = x.scenario.peer.runtime.unknownFields ? 'a member' : state ? 'a task state' : 'a kind of artifact part';
    const carrying = rpcCalls(x).filter((e) => MARK.test(e.note ?? '') && !failed(e));
    if (carrying.length === 0) return informational(`no answer carrying ${oddity} no protocol version defines reached the client`);
    const first = carrying[0]!;
    const shown = carrying.slice(0, 3).map((e) => wireEvidence(e.seq, `${e.rpc!.method} answered with ${oddity} no protocol version defines`));
    const decision = x.outcome.kind === 'reported' ? x.claims?.decision : undefined;
    // Read past, or only reported past? A client that goes on asking for a task an answer had shown ended did not read that answer.
    const unread = x.tasks.flatMap((t) => {
      const seen = terminalSeenAt(x, t.id);
      const again = seen === undefined ? [] : rpcCalls(x).filter((e) => e.seq > seen && e.rpc!.method === 'GetTask' && namesTask(e, t.id));
      return seen !== undefined && again.length >= 3 ? [{ t, seen, again }] : [];
    })[0];
    if (unread && (decision === 'proceeded' || decision === 'downgraded'))
      return verdict(
        'NON_STRICT',
        `the client reported ${decision}, but went on polling task ${unread.t.id} ${unread.again.length} time(s) after #${unread.seen} had shown it ended, each answer carrying ${oddity} no protocol version defines: it did not read them`,
        [
          wireEvidence(unread.seen, `the answer that showed task ${unread.t.id} ${unread.t.state}`),
          wireEvidence(unread.again[0]!.seq, 'GetTask again'),
          ...shown,
        ],
        // Polling on is a sign the answers were not read, not proof of how they were decoded: convention.
        { basis: 'duty', level: 'convention' },
      );
    if (decision === 'proceeded' || decision === 'downgraded')
      return met(
        `the client read past ${carrying.length} answer${carrying.length === 1 ? '' : 's'} carrying ${oddity} no protocol version defines (first #${first.seq}) and reported ${decision}`,
        shown,
      );
    if (decision === 'unsupported') return informational('the client does not do this task class');
    const what =
      x.outcome.kind !== 'reported'
        ? `gave no report (${x.outcome.kind})`
        : `reported ${decision ?? 'nothing it could be read by'}${x.claims?.errorClass ? ` (${x.claims.errorClass})` : ''}`;
    return verdict(
      'NON_STRICT',
      `the client ${what} after #${first.seq} (${first.rpc!.method}), an answer whose one oddity was ${oddity} no protocol version defines; the card and the task were otherwise healthy, and ${state ? 'the proto reads a state it cannot name as indeterminate, not as an end' : value ? 'no text of the spec speaks of a value it does not define' : '§5.7 asks a client to ignore unrecognized fields'}`,
      [...shown, ...(x.claims ? [claimEvidence(`decision: ${x.claims.decision}`)] : [])],
      { basis: 'duty', level: value ? 'convention' : 'SHOULD' },
    );
  },
};
