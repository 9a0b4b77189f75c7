/**
 * TOLERANT-DECODING (wire): An answer carrying members no protocol version defines is read as if they were not there.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * §5.7 asks implementations to ignore unrecognized fields, "allowing for forward compatibility as the
 * protocol evolves". The peer adds one member no version of A2A defines to its successful answers and
 * stream events (runtime.unknownFields), and nothing else differs from a healthy run: a client that
 * then gives up, or never reports, stopped on them. A SHOULD: NON_STRICT. What the stop costs (a task
 * left working, a message sent again) is the cross-cutting rules' to grade, as harm.
 */
import type { Source } from '../../../sources.js';
import { claimEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { failed, rpcCalls } from '../../evidence.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { grpcOnly } from './shared.js';

const IGNORE_UNRECOGNIZED: Source = {
  doc: 'A2A v1.0.1',
  section: '5.7',
  quote: 'Implementations **SHOULD** ignore unrecognized fields in messages, allowing for forward compatibility as the protocol evolves.',
  level: 'SHOULD',
};

/** How the peers mark an answer they added unknown members to (peers/endpoint.ts). */
const MARK = /^scripted: a member no protocol version defines/;

export const TOLERANT_DECODING: RuleOf<'TOLERANT-DECODING'> = {
  id: 'TOLERANT-DECODING',
  title: 'An answer carrying members no protocol version defines is read as if they were not there',
  family: 'wire',
  scope: 'own',
  sources: [IGNORE_UNRECOGNIZED],
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
    { when: 'the client went on past every such answer and reported `proceeded` or `downgraded`', verdict: 'PASS' },
    { when: 'no answer carrying an unknown member reached the client (it called nothing, or only over gRPC)', verdict: 'INFORMATIONAL' },
  ],
  notBinding: ['the peer sends only members the protocol defines', 'a card that offers gRPC only (protobuf carries no member by name)'],
  applies(s) {
    const depth = s.truth.runtime.unknownFields;
    if (!depth) return notBinding('the peer sends only members the protocol defines');
    if (grpcOnly(s)) return notBinding('the card offers gRPC only: its protobuf carries no member by name, and decoders skip field numbers they do not know');
    return binds(
      `every successful answer and stream event carries a member no protocol version defines (${depth === 'every' ? 'in every object' : 'beside its own members'}): the client reads on`,
      ['proceed', 'downgrade'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const carrying = rpcCalls(x).filter((e) => MARK.test(e.note ?? '') && !failed(e));
    if (carrying.length === 0) return informational('no answer carrying an unknown member reached the client');
    const first = carrying[0]!;
    const shown = carrying.slice(0, 3).map((e) => wireEvidence(e.seq, `${e.rpc!.method} answered with a member no protocol version defines`));
    const decision = x.outcome.kind === 'reported' ? x.claims?.decision : undefined;
    if (decision === 'proceeded' || decision === 'downgraded')
      return met(
        `the client read past ${carrying.length} answer${carrying.length === 1 ? '' : 's'} carrying an unknown member (first #${first.seq}) and reported ${decision}`,
        shown,
      );
    if (decision === 'unsupported') return informational('the client does not do this task class');
    const what =
      x.outcome.kind !== 'reported'
        ? `gave no report (${x.outcome.kind})`
        : `reported ${decision ?? 'nothing it could be read by'}${x.claims?.errorClass ? ` (${x.claims.errorClass})` : ''}`;
    return verdict(
      'NON_STRICT',
      `the client ${what} after #${first.seq} (${first.rpc!.method}), an answer whose one oddity was a member no protocol version defines; the card and the task were otherwise healthy, and §5.7 asks a client to ignore such members`,
      [...shown, ...(x.claims ? [claimEvidence(`decision: ${x.claims.decision}`)] : [])],
      { basis: 'duty', level: 'SHOULD' },
    );
  },
};
