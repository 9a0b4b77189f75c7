/**
 * A scenario author's own assertions (`Scenario.assertions`, docs/scenarios.md), graded from the
 * wire like any rule: each is one check, `VENDOR:<id>`, whose source is the author's `because`,
 * quoted, at level `vendor`. Met: PASS. Missed: FAIL, or NON_STRICT where it says `onMiss`. An
 * assertion never makes a verdict better: a rule's FAIL stays FAIL.
 */
import type { Assertion } from '../scenario/assertions.js';
import type { Operation } from '../scenario/runtime.js';
import type { Source } from '../sources.js';
import type { HttpEvent } from '../transcript.js';
import { absentEvidence, toCheck, verdict, wireEvidence, type Check, type EvidenceRef } from '../verdict.js';
import { describeCall, https, rpcCalls, stateSeen, taskEvidence, type GradeInput } from './evidence.js';

/** The transcript's field for each header an assertion may name. */
const HEADER_FIELD = {
  'A2A-Version': (e: HttpEvent) => e.headers.a2aVersion ?? e.versionQuery,
  'A2A-Extensions': (e: HttpEvent) => e.headers.a2aExtensions,
  Authorization: (e: HttpEvent) => (e.headers.authorization ? (e.headers.authScheme ?? '') : undefined),
  Accept: (e: HttpEvent) => e.headers.accept,
  'Content-Type': (e: HttpEvent) => e.headers.contentType,
} as const;

/** Met (the facts that show it) or missed (why, and the facts). */
interface Judged {
  met: boolean;
  reason: string;
  evidence: EvidenceRef[];
}

/** `calls`: the method was called (before any of `before`, where it names some). */
function judgeCalls(a: Extract<Assertion, { kind: 'calls' }>, x: GradeInput): Judged {
  const first = rpcCalls(x, a.method)[0];
  if (a.before === undefined)
    return first
      ? { met: true, reason: `${a.method} was called`, evidence: [wireEvidence(first.seq, describeCall(first))] }
      : { met: false, reason: `${a.method} was never called`, evidence: [absentEvidence('wire', `no ${a.method} on the wire`)] };
  const others = typeof a.before === 'string' ? [a.before] : a.before;
  const later = rpcCalls(x).find((e) => others.includes(e.rpc!.method as Operation));
  const named = others.join(' or ');
  if (!later)
    return {
      met: true,
      reason: `${named} was never called, so nothing came before ${a.method}`,
      evidence: [absentEvidence('wire', `no ${named} on the wire`)],
    };
  if (first && first.seq < later.seq)
    return {
      met: true,
      reason: `${a.method} came before ${later.rpc!.method}`,
      evidence: [wireEvidence(first.seq, describeCall(first)), wireEvidence(later.seq, describeCall(later))],
    };
  return {
    met: false,
    reason: first ? `${a.method} came only after ${later.rpc!.method}` : `${later.rpc!.method} was called, and ${a.method} never`,
    evidence: [wireEvidence(later.seq, describeCall(later)), ...(first ? [wireEvidence(first.seq, describeCall(first))] : [])],
  };
}

/** `header`: every A2A call (or every call of `method`) carried the header (with the value `equals` names). */
function judgeHeader(a: Extract<Assertion, { kind: 'header' }>, x: GradeInput): Judged {
  const read = HEADER_FIELD[a.name];
  const calls = a.method ? rpcCalls(x, a.method) : https(x).filter((e) => e.rpc);
  const bad = calls.filter((e) => {
    const v = read(e);
    return v === undefined || (a.equals !== undefined && v !== a.equals);
  });
  const want = `${a.name}${a.equals !== undefined ? `: ${a.equals}` : ''}`;
  const which = a.method ?? 'A2A';
  if (calls.length === 0)
    return { met: true, reason: `no ${which} call to carry ${a.name}`, evidence: [absentEvidence('wire', `no ${which} call on the wire`)] };
  return bad.length === 0
    ? {
        met: true,
        reason: `every ${which} call (${calls.length}) carried ${want}`,
        evidence: [wireEvidence(calls[0]!.seq, `${describeCall(calls[0]!)} ${a.name}: ${read(calls[0]!)}`)],
      }
    : {
        met: false,
        reason: `${bad.length} of ${calls.length} ${which} call(s) without ${want}`,
        evidence: bad.slice(0, 5).map((e) => wireEvidence(e.seq, `${describeCall(e)} ${a.name}: ${read(e) ?? 'absent'}`)),
      };
}

/** Met (the facts that show it) or missed (why, and the facts), by the assertion's kind. */
function judge(a: Assertion, x: GradeInput): Judged {
  switch (a.kind) {
    case 'no-task':
      return x.tasks.length === 0
        ? { met: true, reason: 'no task was minted', evidence: [absentEvidence('ledger', 'no task in the ledger')] }
        : { met: false, reason: `${x.tasks.length} task(s) were minted`, evidence: taskEvidence(x, x.tasks.slice(0, 5)) };
    case 'max-tasks': {
      const evidence = x.tasks.length ? taskEvidence(x, x.tasks.slice(0, 5)) : [absentEvidence('ledger', 'no task in the ledger')];
      return x.tasks.length <= a.max
        ? { met: true, reason: `${x.tasks.length} task(s), at most ${a.max}`, evidence }
        : { met: false, reason: `${x.tasks.length} tasks were minted, more than ${a.max}`, evidence };
    }
    case 'never-calls': {
      const calls = rpcCalls(x, a.method);
      return calls.length === 0
        ? { met: true, reason: `${a.method} was never called`, evidence: [absentEvidence('wire', `no ${a.method} on the wire`)] }
        : {
            met: false,
            reason: `${a.method} was called ${calls.length} time(s)`,
            evidence: calls.slice(0, 5).map((e) => wireEvidence(e.seq, describeCall(e))),
          };
    }
    case 'calls':
      return judgeCalls(a, x);
    case 'header':
      return judgeHeader(a, x);
    case 'saw-state': {
      const seen = stateSeen(x, (state) => state === a.state);
      if (seen) return { met: true, reason: `the client saw ${a.state}`, evidence: [wireEvidence(seen.seq, seen.fact)] };
      const reached = x.tasks.find((t) => t.state === a.state);
      return {
        met: false,
        reason: `the client never saw ${a.state}${reached ? ` (task ${reached.id} reached it at the peer)` : ''}`,
        evidence: reached ? taskEvidence(x, [reached]) : [absentEvidence('wire', `no answer, event or push in ${a.state}`)],
      };
    }
  }
}

/** Assertions that ask the client to act: declined as unsupported, their miss is UNSUPPORTED, as the scenario's own rule's is. */
const ACTING = new Set<Assertion['kind']>(['calls', 'saw-state']);

/**
 * The scenario's assertions as checks, in their order. `declined`: the client declined the task class
 * as unsupported and minted nothing; an assertion that asks it to act then reads UNSUPPORTED (the
 * oracle treats the scenario's own rule the same way), one that asks it to refrain is graded as ever.
 */
export function gradeAssertions(x: GradeInput, declined = false): Check[] {
  const out: Check[] = [];
  for (const a of x.scenario.assertions ?? []) {
    const source: Source = { doc: `scenario ${x.scenario.id}`, section: `assertion ${a.id}`, quote: a.because, level: 'vendor' };
    const r = judge(a, x);
    const v = r.met
      ? verdict('PASS', r.reason, r.evidence, { basis: 'met' })
      : declined && ACTING.has(a.kind)
        ? verdict(
            'UNSUPPORTED',
            `the client declined task class ${x.intent.taskClass} as unsupported and minted no task (without that, this assertion is missed: ${r.reason})`,
            r.evidence,
            { basis: 'unsupported' },
          )
        : verdict(a.onMiss ?? 'FAIL', r.reason, r.evidence, { basis: 'assertion', level: 'vendor' });
    out.push(toCheck(`VENDOR:${a.id}`, v, [source]));
  }
  return out;
}
