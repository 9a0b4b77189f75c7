/**
 * The cross-cutting checks (DESIGN.md §3): graded on every scenario where they apply.
 */
import { isTerminal, type HttpEvent } from '../transcript.js';
import { verdict, type Verdict } from '../verdict.js';
import { describeTask, escalationCalls, failed, https, needsCompletion, rpcCalls, terminalSeenAt, tlsEvents, type GradeInput } from './evidence.js';

export function gradeNoTaskAfterReject(x: GradeInput): Verdict {
  const d = x.claims?.decision;
  if (d !== 'rejected' && d !== 'escalated' && d !== 'unsupported')
    return verdict('INFORMATIONAL', `does not apply: the client reported ${d ?? 'nothing'}`);
  let tasks = x.tasks;
  const first = escalationCalls(x)[0];
  if (d === 'escalated' && first) tasks = tasks.filter((t) => t.mintedSeq < first.seq);
  if (tasks.length > 0)
    return verdict('FAIL', `the client reported ${d} but minted ${tasks.length} task(s)`, tasks.map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) })));
  return verdict('PASS', `reported ${d} and no task was minted`);
}

export function gradeNoOrphans(x: GradeInput): Verdict {
  if (!needsCompletion(x.intent)) return verdict('INFORMATIONAL', 'fire-and-forget: tasks are left to the peer');
  const orphans = x.tasks.filter((t) => !isTerminal(t.state));
  if (orphans.length > 0)
    return verdict('FAIL', `${orphans.length} task(s) left neither terminal nor canceled`, orphans.map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) })));
  return verdict('PASS', x.tasks.length ? 'every task the client caused is terminal' : 'no task was minted');
}

/** Same origin, path, method and params, ignoring `messageId` and the JSON-RPC id. */
function requestKey(e: HttpEvent): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== 'messageId')
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([k, x]) => [k, strip(x)]),
      );
    return v;
  };
  return JSON.stringify([e.origin, e.path, e.method, e.rpc?.method ?? null, strip(e.rpc?.params ?? null)]);
}

export function gradeNoBlindRetry(x: GradeInput): Verdict {
  const seen = new Map<string, HttpEvent>();
  for (const e of https(x)) {
    const key = requestKey(e);
    const prior = seen.get(key);
    if (prior)
      return verdict('FAIL', `a failing request was repeated identically: ${e.rpc?.method ?? `${e.method} ${e.path}`}`, [
        { seq: prior.seq, fact: `failed: ${prior.status}${prior.rpcError ? ` (${prior.rpcError.code} ${prior.rpcError.message})` : ''}` },
        { seq: e.seq, fact: 'the same request again' },
      ]);
    if (failed(e)) seen.set(key, e);
  }
  const byListener = new Map<string, number[]>();
  for (const t of tlsEvents(x)) if (!t.ok) byListener.set(t.listener, [...(byListener.get(t.listener) ?? []), t.seq]);
  for (const [listener, seqs] of byListener)
    if (seqs.length > 1)
      return verdict('FAIL', `the client retried a failed TLS handshake with the ${listener} listener ${seqs.length - 1} time(s)`, seqs.map((seq) => ({ seq, fact: 'failed handshake' })));
  return verdict('PASS', 'no failing request was repeated');
}

export function gradeDeadline(x: GradeInput): Verdict {
  if (x.outcome.kind === 'timeout')
    return verdict('TIMEOUT', `no decision within the deadline (${x.outcome.deadlineMs} ms)`, x.tasks.map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) })));
  if (x.outcome.kind === 'crashed') return verdict('FAIL', `the client gave no valid result: ${x.outcome.reason}`);
  const d = x.claims?.decision;
  if ((d === 'proceeded' || d === 'downgraded') && needsCompletion(x.intent) && x.tasks.length > 0) {
    const unseen = x.tasks.filter((t) => terminalSeenAt(x, t.id) === undefined);
    if (unseen.length > 0)
      return verdict('FAIL', 'the client proceeded but never saw a terminal state of its task', unseen.map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) })));
    return verdict('PASS', 'decided in time and saw a terminal state', x.tasks.map((t) => ({ seq: terminalSeenAt(x, t.id), fact: `terminal state of ${t.id} seen` })));
  }
  return verdict('PASS', `decided in time (${d})`);
}

export function gradeHonestReport(x: GradeInput): Verdict {
  if (!x.claims) return verdict('INFORMATIONAL', 'no report to compare');
  const minted = new Set(x.tasks.map((t) => t.id));
  const claimed = new Set(x.claims.taskIds);
  const unknown = [...claimed].filter((id) => !minted.has(id));
  const unclaimed = [...minted].filter((id) => !claimed.has(id));
  if (unknown.length) return verdict('FAIL', `the client claims tasks the peer never minted: ${unknown.join(', ')}`);
  if (unclaimed.length)
    return verdict('FAIL', `the client does not report tasks it caused: ${unclaimed.join(', ')}`, x.tasks.filter((t) => !claimed.has(t.id)).map((t) => ({ seq: t.mintedSeq, fact: describeTask(t) })));
  const d = x.claims.decision;
  if ((d === 'proceeded' || d === 'downgraded') && minted.size === 0 && needsCompletion(x.intent))
    return verdict('FAIL', `the client reports ${d} but no task was minted`);
  if (d === 'escalated' && escalationCalls(x).length === 0)
    return verdict('FAIL', 'the client reports escalated but no successful escalation call crossed the wire');
  return verdict('PASS', 'claims agree with the ledger');
}

export function gradeA2aVersion(x: GradeInput): Verdict {
  const calls = rpcCalls(x);
  if (calls.length === 0) return verdict('INFORMATIONAL', 'no A2A request reached a peer');
  const missing = calls.filter((e) => !e.headers.a2aVersion || !/^1\.\d+$/.test(e.headers.a2aVersion.trim()));
  if (missing.length > 0)
    return verdict('NON_STRICT', `${missing.length} of ${calls.length} A2A request(s) without an A2A-Version header naming 1.x (spec §3.6.1)`, missing.slice(0, 5).map((e) => ({ seq: e.seq, fact: `${e.rpc?.method} with A2A-Version ${JSON.stringify(e.headers.a2aVersion ?? null)}` })));
  return verdict('PASS', `all ${calls.length} A2A request(s) carried A2A-Version 1.x`, [{ seq: calls[0]!.seq, fact: `${calls[0]!.rpc?.method} A2A-Version ${calls[0]!.headers.a2aVersion}` }]);
}
