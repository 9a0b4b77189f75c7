/**
 * A scenario author's own assertions (`Scenario.assertions`, docs/scenarios.md), graded from the
 * wire like any rule: each is one check, `VENDOR:<id>`, whose source is the author's `because`,
 * quoted, at level `vendor`. Met: PASS. Missed: FAIL, or NON_STRICT where it says `onMiss`. An
 * assertion never makes a verdict better: a rule's FAIL stays FAIL.
 */
import type { Assertion } from '../scenario.js';
import type { Source } from '../sources.js';
import { isTerminal, type HttpEvent } from '../transcript.js';
import { absentEvidence, ledgerEvidence, toCheck, verdict, wireEvidence, type Check, type EvidenceRef } from '../verdict.js';
import { failed, https, rpcCalls, type GradeInput } from './evidence.js';

/** The transcript's field for each header an assertion may name. */
const HEADER_FIELD = {
  'A2A-Version': (e: HttpEvent) => e.headers.a2aVersion ?? e.versionQuery,
  'A2A-Extensions': (e: HttpEvent) => e.headers.a2aExtensions,
  Authorization: (e: HttpEvent) => (e.headers.authorization ? (e.headers.authScheme ?? '') : undefined),
  Accept: (e: HttpEvent) => e.headers.accept,
  'Content-Type': (e: HttpEvent) => e.headers.contentType,
} as const;

const call = (e: HttpEvent) => `#${e.seq} ${e.rpc!.wireMethod ?? e.rpc!.method}`;

/** Where the client saw its task in `state`: a 2xx answer carrying it, an SSE event, a push delivered to it. */
function sawState(x: GradeInput, state: string): EvidenceRef | undefined {
  for (const e of x.events) {
    if (e.kind === 'http' && e.taskState === state && !failed(e)) return wireEvidence(e.seq, `${e.rpc?.method ?? e.method} answered with task ${e.taskId} in ${state}`);
    if (e.kind === 'sse' && e.state === state) return wireEvidence(e.seq, `an event of task ${e.taskId} in ${state}`);
    if (e.kind === 'push-attempt' && e.state === state && e.outcome === 'delivered') return wireEvidence(e.seq, `a push of task ${e.taskId} in ${state} delivered`);
  }
  return undefined;
}

/** Met (the facts that show it) or missed (why, and the facts). */
function judge(a: Assertion, x: GradeInput): { met: boolean; reason: string; evidence: EvidenceRef[] } {
  switch (a.kind) {
    case 'no-task': {
      const tasks = x.tasks;
      return tasks.length === 0
        ? { met: true, reason: 'no task was minted', evidence: [absentEvidence('ledger', 'no task in the ledger')] }
        : { met: false, reason: `${tasks.length} task(s) were minted`, evidence: tasks.slice(0, 5).map((t) => ledgerEvidence(t.mintedSeq, `task ${t.id} minted`)) };
    }
    case 'max-tasks': {
      const tasks = x.tasks;
      const evidence = tasks.slice(0, 5).map((t) => ledgerEvidence(t.mintedSeq, `task ${t.id} minted`));
      return tasks.length <= a.max ? { met: true, reason: `${tasks.length} task(s), at most ${a.max}`, evidence } : { met: false, reason: `${tasks.length} tasks were minted, more than ${a.max}`, evidence };
    }
    case 'never-calls': {
      const calls = rpcCalls(x, a.method);
      return calls.length === 0
        ? { met: true, reason: `${a.method} was never called`, evidence: [absentEvidence('wire', `no ${a.method} on the wire`)] }
        : { met: false, reason: `${a.method} was called ${calls.length} time(s)`, evidence: calls.slice(0, 5).map((e) => wireEvidence(e.seq, call(e))) };
    }
    case 'calls': {
      const first = rpcCalls(x, a.method)[0];
      if (a.before === undefined)
        return first ? { met: true, reason: `${a.method} was called`, evidence: [wireEvidence(first.seq, call(first))] } : { met: false, reason: `${a.method} was never called`, evidence: [absentEvidence('wire', `no ${a.method} on the wire`)] };
      const later = rpcCalls(x, a.before)[0];
      if (!later) return { met: true, reason: `${a.before} was never called, so nothing came before ${a.method}`, evidence: [absentEvidence('wire', `no ${a.before} on the wire`)] };
      if (first && first.seq < later.seq) return { met: true, reason: `${a.method} came before ${a.before}`, evidence: [wireEvidence(first.seq, call(first)), wireEvidence(later.seq, call(later))] };
      return { met: false, reason: first ? `${a.method} came only after ${a.before}` : `${a.before} was called, and ${a.method} never`, evidence: [wireEvidence(later.seq, call(later)), ...(first ? [wireEvidence(first.seq, call(first))] : [])] };
    }
    case 'header': {
      const read = HEADER_FIELD[a.name];
      const calls = a.method ? rpcCalls(x, a.method) : https(x).filter((e) => e.rpc);
      const bad = calls.filter((e) => {
        const v = read(e);
        return v === undefined || (a.equals !== undefined && v !== a.equals);
      });
      const want = `${a.name}${a.equals !== undefined ? `: ${a.equals}` : ''}`;
      const which = a.method ?? 'A2A';
      if (calls.length === 0) return { met: true, reason: `no ${which} call to carry ${a.name}`, evidence: [absentEvidence('wire', `no ${which} call on the wire`)] };
      return bad.length === 0
        ? { met: true, reason: `every ${which} call (${calls.length}) carried ${want}`, evidence: [wireEvidence(calls[0]!.seq, `${call(calls[0]!)} ${a.name}: ${read(calls[0]!)}`)] }
        : { met: false, reason: `${bad.length} of ${calls.length} ${which} call(s) without ${want}`, evidence: bad.slice(0, 5).map((e) => wireEvidence(e.seq, `${call(e)} ${a.name}: ${read(e) ?? 'absent'}`)) };
    }
    case 'saw-state': {
      const seen = sawState(x, a.state);
      if (seen) return { met: true, reason: `the client saw ${a.state}`, evidence: [seen] };
      const reached = x.tasks.find((t) => t.state === a.state || (isTerminal(a.state) && t.state === a.state));
      return { met: false, reason: `the client never saw ${a.state}${reached ? ` (task ${reached.id} reached it at the peer)` : ''}`, evidence: reached ? [ledgerEvidence(reached.mintedSeq, `task ${reached.id} ended ${reached.state}`)] : [absentEvidence('wire', `no answer, event or push in ${a.state}`)] };
    }
  }
}

/** The scenario's assertions as checks, in their order. */
export function gradeAssertions(x: GradeInput): Check[] {
  const out: Check[] = [];
  for (const a of x.scenario.assertions ?? []) {
    const source: Source = { doc: `scenario ${x.scenario.id}`, section: `assertion ${a.id}`, quote: a.because, level: 'vendor' };
    const r = judge(a, x);
    const v = r.met ? verdict('PASS', r.reason, r.evidence, { basis: 'met' }) : verdict(a.onMiss ?? 'FAIL', r.reason, r.evidence, { basis: 'assertion', level: 'vendor' });
    out.push(toCheck(`VENDOR:${a.id}`, v, [source]));
  }
  return out;
}
