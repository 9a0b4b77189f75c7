/**
 * The cross-cutting checks (DESIGN.md §3): graded on every scenario. Most of them grade harm on
 * the wire, which is FAIL whatever level its source has.
 */
import { isTerminal, type HttpEvent } from '../transcript.js';
import { absentEvidence, claimEvidence, ledgerEvidence, verdict, wireEvidence, type EvidenceRef } from '../verdict.js';
import {
  canceledByClient,
  decisionSeq,
  describeCall,
  describeTask,
  refusedCancel,
  https,
  messageReplies,
  needsCompletion,
  optsInto,
  rpcCalls,
  taskEvidence,
  terminalSeenAt,
  tlsEvents,
} from './evidence.js';
import { binds, harm, informational, met, notBinding, timeout, type Rule } from './rule.js';

const always = () => binds('graded on every scenario', ['proceed', 'downgrade', 'reject', 'escalate']);

const SEED000_ORPHAN = {
  doc: 'seed 000',
  section: 'Decision Boundary',
  quote: 'Rejecting after task creation is strictly worse: it orphans a task on the server, consumes a task ID, and in some vendors triggers billing.',
  level: 'seed' as const,
  role: 'harm' as const,
};

const PROTOCOL_REPORT = {
  doc: 'a2a-conformance/1',
  section: 'docs/protocol.md, result',
  quote: "echo the run's `id`; report every task id you caused",
  level: 'MUST' as const,
};

export const WIRE_NO_TASK_AFTER_REJECT: Rule = {
  id: 'WIRE-NO-TASK-AFTER-REJECT',
  title: 'A client that says it rejected (or declined the task class) left no task behind',
  family: 'wire',
  scope: 'always',
  sources: [
    SEED000_ORPHAN,
    { doc: 'a2a-conformance/1', section: 'docs/protocol.md, result', quote: '`rejected` means declined before minting any task', level: 'MUST', role: 'harm' },
  ],
  grades: [
    { when: 'decision `rejected` or `unsupported`, and a task was minted that the client did not cancel itself', verdict: 'FAIL (harm)' },
    { when: 'a task the client minted and canceled itself before its decision', verdict: 'a probe: PASS, named in the reason' },
    {
      when: 'a probe whose cancel was refused with TaskNotCancelableError because the runtime had already ended it (§3.3.2): the client canceled as soon as it could',
      verdict: 'a probe: PASS, named in the reason',
    },
  ],
  notBinding: ['any other decision: INFORMATIONAL'],
  applies: always,
  grade(_b, x) {
    const d = x.claims?.decision;
    if (d !== 'rejected' && d !== 'unsupported') return informational(`does not apply: the client reported ${d ?? 'nothing'}`);
    // A probe the runtime ended before the client's cancel reached it was canceled as soon as the client could.
    const canceled = (t: (typeof x.tasks)[number]) => canceledByClient(t, x) || refusedCancel(x, t.id) !== undefined;
    const probes = x.tasks.filter(canceled);
    const kept = x.tasks.filter((t) => !canceled(t));
    if (kept.length > 0)
      return harm(`the client reported ${d} but minted ${kept.length} task(s) it did not cancel`, [...taskEvidence(x, kept), claimEvidence(`decision: ${d}`)]);
    if (probes.length > 0)
      return met(`reported ${d}; ${probes.length} probe task(s), each canceled by the client before its decision`, taskEvidence(x, probes));
    return met(`reported ${d} and no task was minted`);
  },
};

export const WIRE_NO_ORPHANS: Rule = {
  id: 'WIRE-NO-ORPHANS',
  title: 'Every task the client caused is terminal or canceled at the end',
  family: 'wire',
  scope: 'always',
  sources: [
    SEED000_ORPHAN,
    {
      doc: 'seed 001',
      section: 'What Was Observed',
      quote: "The peer's task store accumulated orphans; the caller's signing key was still valid throughout, so no auth error ever surfaced.",
      level: 'seed',
      role: 'harm',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.3.3',
      quote: 'Operations return immediately with either Task objects or Message objects, and when a Task is returned, processing continues in the background.',
    },
  ],
  grades: [
    {
      when: 'a task the client caused is neither terminal nor canceled when the scenario ends (A2A sets no duty to cancel; this is the harm the seeds describe)',
      verdict: 'FAIL (harm)',
    },
  ],
  notBinding: ['fire-and-forget: tasks are left to the peer (INFORMATIONAL)'],
  applies(s) {
    return needsCompletion(s.intent)
      ? binds('the intent is driven to a terminal state within the session', ['proceed', 'downgrade', 'reject', 'escalate'])
      : notBinding('fire-and-forget: tasks are left to the peer');
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const left = x.tasks.filter((t) => !isTerminal(t.state));
    if (left.length > 0) return harm(`${left.length} task(s) left neither terminal nor canceled`, taskEvidence(x, left));
    return met(x.tasks.length ? 'every task the client caused is terminal' : 'no task was minted');
  },
};

// --- WIRE-NO-BLIND-RETRY ---------------------------------------------------------------------

type FailureKind = 'ok' | 'structural' | 'temporary';

/** JSON-RPC errors that say the request itself is wrong: -32001…-32009, -32600…-32602, and -32700. */
const structuralRpc = (code: number) => (code <= -32001 && code >= -32009) || (code <= -32600 && code >= -32602) || code === -32700;
/** HTTP 4xx that may pass without the request changing: auth challenges, timeouts, too early, too many. */
const TEMPORARY_4XX = new Set([401, 407, 408, 425, 429]);

export function failureKind(e: HttpEvent): FailureKind {
  if (e.rpcError) return structuralRpc(e.rpcError.code) ? 'structural' : 'temporary';
  if (e.status === undefined) return 'temporary';
  // 2xx, and 3xx (a 304 for a cached card): nothing failed.
  if (e.status >= 200 && e.status <= 399) return 'ok';
  if (e.status >= 400 && e.status <= 499) return TEMPORARY_4XX.has(e.status) ? 'temporary' : 'structural';
  return 'temporary';
}

/**
 * What makes two requests the same: origin, path, method, JSON-RPC method and params apart from
 * `messageId` and the JSON-RPC id, the credentials (by digest), `A2A-Version` and `A2A-Extensions`.
 */
export function requestKey(e: HttpEvent): string {
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
  // What was sent: the params' digest (messageId left out) where the peer took it, the recorded params
  // otherwise, and for a body that was not JSON-RPC at all, the digest of the body.
  const sent = e.rpc ? (e.paramsDigest ?? strip(e.rpc.params)) : (e.requestDigest ?? null);
  return JSON.stringify([
    e.origin,
    e.path,
    e.method,
    e.rpc?.method ?? null,
    sent,
    e.headers.authDigest ?? (e.headers.authorization ? 'authorization' : null),
    e.headers.a2aVersion ?? e.versionQuery ?? null,
    e.headers.a2aExtensions ?? null,
  ]);
}

/** Retry-After in milliseconds when it is a delay in seconds (an HTTP date cannot be placed on the run's clock). */
function retryAfterMs(e: HttpEvent): number | undefined {
  const v = e.response?.retryAfter?.trim();
  return v && /^\d+$/.test(v) ? Number(v) * 1000 : undefined;
}

/** Repeats of a temporary failure closer together than this, several times over, are a hot loop. */
const HOT_GAP_MS = 100;
const HOT_REPEATS = 3;
const MAX_REPEATS = 10;
/** Failed handshakes a client may make per listener: the harness cannot see the path inside a refused handshake. */
const MAX_REFUSED_HANDSHAKES = 2;

export const WIRE_NO_BLIND_RETRY: Rule = {
  id: 'WIRE-NO-BLIND-RETRY',
  title: 'A request that failed structurally is never repeated unchanged; temporary failures are retried with backoff',
  family: 'wire',
  scope: 'always',
  sources: [
    {
      doc: 'seed 003',
      section: 'Decision Boundary',
      quote: 'Do not attempt to reconcile the card by retrying the same failed call. The gap is structural, not transient.',
      level: 'seed',
      role: 'harm',
    },
    {
      doc: 'seed 001',
      section: 'Core Distinction',
      quote:
        'Most implementations treat the registry miss as a transport error and retry, which is wrong: it is a negotiation failure and retrying it burns the task lifecycle budget without ever terminating.',
      level: 'seed',
      role: 'harm',
    },
  ],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.3.2', quote: 'Servers SHOULD return appropriate error codes for temporary failures vs. permanent errors' },
    { doc: 'A2A v1.0.1', section: '3.3.2', quote: 'Servers MAY include retry guidance (e.g., Retry-After header in HTTP)' },
    { doc: 'A2A v1.0.1', section: '3.3.1', quote: 'Send Message operations MAY be idempotent. Agents may utilize the messageId to detect duplicate messages.' },
  ],
  grades: [
    {
      when: 'a structural failure (JSON-RPC -32001…-32009, -32600…-32602, -32700; HTTP 4xx other than 401, 407, 408, 425, 429) repeated unchanged: same origin, path, method, params apart from `messageId` and the JSON-RPC id, same credentials, A2A-Version and A2A-Extensions',
      verdict: 'FAIL (harm)',
    },
    { when: 'a temporary failure (5xx, 429, 408, 401/407, no answer) retried before its Retry-After (delta-seconds) elapsed', verdict: 'FAIL (harm)' },
    {
      when: `a hot loop: the same failing request repeated ${HOT_REPEATS} or more times each under ${HOT_GAP_MS} ms apart, or more than ${MAX_REPEATS} times`,
      verdict: 'FAIL (harm)',
    },
    {
      when: `more than ${MAX_REFUSED_HANDSHAKES} refused handshakes with one listener (one more than the card fetch, e.g. the legacy card path; the path inside a refused handshake cannot be seen)`,
      verdict: 'FAIL (harm)',
    },
    { when: 'a retry that changed what failed (new credentials, another A2A-Version, another card path)', verdict: 'not a repeat' },
  ],
  notBinding: [],
  applies: always,
  grade(_b, x) {
    const history = new Map<string, HttpEvent[]>();
    for (const e of https(x)) {
      const key = requestKey(e);
      const prior = history.get(key) ?? [];
      const last = prior.at(-1);
      if (last) {
        const kind = failureKind(last);
        if (kind === 'structural')
          return harm(`a request that failed structurally was repeated unchanged: ${e.rpc?.method ?? `${e.method} ${e.path}`}`, [
            wireEvidence(last.seq, `failed: ${describeCall(last)}`),
            wireEvidence(e.seq, 'the same request again'),
          ]);
        if (kind === 'temporary') {
          const wait = retryAfterMs(last);
          if (wait !== undefined && e.t - last.t < wait)
            return harm(`retried ${e.t - last.t} ms after a Retry-After of ${wait / 1000} s`, [
              wireEvidence(last.seq, `failed: ${describeCall(last)}, Retry-After: ${last.response?.retryAfter}`),
              wireEvidence(e.seq, 'the same request again, too early'),
            ]);
          const repeats = [...prior, e];
          const gaps = repeats.slice(1).map((r, i) => r.t - repeats[i]!.t);
          const hot = gaps.length >= HOT_REPEATS && gaps.slice(-HOT_REPEATS).every((g) => g < HOT_GAP_MS);
          if (hot || gaps.length > MAX_REPEATS)
            return harm(
              `a hot loop: the same failing request ${repeats.length} times${hot ? `, under ${HOT_GAP_MS} ms apart` : ''}`,
              repeats.slice(-5).map((r) => wireEvidence(r.seq, describeCall(r))),
            );
        }
      }
      if (failureKind(e) === 'ok') history.delete(key);
      else history.set(key, [...prior, e]);
    }
    const refused = new Map<string, number[]>();
    for (const t of tlsEvents(x)) if (!t.ok) refused.set(t.listener, [...(refused.get(t.listener) ?? []), t.seq]);
    for (const [listener, seqs] of refused)
      if (seqs.length > MAX_REFUSED_HANDSHAKES)
        return harm(
          `${seqs.length} refused handshakes with the ${listener} listener`,
          seqs.map((seq) => wireEvidence(seq, 'handshake refused')),
        );
    return met('no failing request was repeated blindly');
  },
};

// --- WIRE-DEADLINE ---------------------------------------------------------------------------

export const WIRE_DEADLINE: Rule = {
  id: 'WIRE-DEADLINE',
  title: 'A decision within the deadline, and a terminal state seen when the client proceeded',
  family: 'wire',
  scope: 'always',
  sources: [
    {
      doc: 'seed 000',
      section: 'What Was Observed',
      quote: "the task sat in `working` until the client's own timeout fired 40 minutes later.",
      level: 'seed',
      role: 'harm',
    },
    {
      doc: 'a2a-conformance/1',
      section: 'docs/protocol.md, run',
      quote: '`deadlineMs` counts from the moment the client holds the `run` message',
      level: 'MUST',
    },
  ],
  grades: [
    { when: 'no decision by the deadline', verdict: 'TIMEOUT' },
    { when: 'the client crashed, or gave no valid result', verdict: 'FAIL' },
    {
      when: 'it proceeded, but never saw a terminal state of its task (a GetTask/SendMessage/CancelTask answer, an SSE event or a delivered push carrying it, or a CancelTask refused with TaskNotCancelableError while the task had ended, §3.3.2)',
      verdict: 'FAIL (harm)',
    },
  ],
  notBinding: [],
  applies: always,
  grade(_b, x) {
    const at = decisionSeq(x);
    const decided = Number.isFinite(at) ? [wireEvidence(at, `the runner's view: ${x.outcome.kind}`)] : [];
    if (x.outcome.kind === 'timeout') return timeout(`no decision within the deadline (${x.outcome.deadlineMs} ms)`, [...decided, ...taskEvidence(x)]);
    if (x.outcome.kind === 'crashed')
      return verdict(
        'FAIL',
        `the client gave no valid result: ${x.outcome.reason}`,
        [...decided, wireEvidence(Number.isFinite(at) ? at : undefined, `the client's channel: ${x.outcome.reason}`)],
        { basis: 'crash' },
      );
    const d = x.claims?.decision;
    if ((d === 'proceeded' || d === 'downgraded' || d === 'escalated') && needsCompletion(x.intent) && x.tasks.length > 0) {
      const unseen = x.tasks.filter((t) => terminalSeenAt(x, t.id) === undefined);
      if (unseen.length > 0) return harm(`the client ${d} but never saw a terminal state of its task`, taskEvidence(x, unseen));
      return met(
        'decided in time and saw a terminal state',
        x.tasks.map((t) => wireEvidence(terminalSeenAt(x, t.id), `terminal state of ${t.id} seen`)),
      );
    }
    return met(`decided in time (${d})`, decided);
  },
};

// --- WIRE-HONEST-REPORT ----------------------------------------------------------------------

export const WIRE_HONEST_REPORT: Rule = {
  id: 'WIRE-HONEST-REPORT',
  title: "The client's claims agree with the ledger",
  family: 'wire',
  scope: 'always',
  sources: [PROTOCOL_REPORT],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.1.1',
      quote:
        'The agent MAY create a new `Task` to process the provided message asynchronously or MAY return a direct `Message` response for simple interactions.',
    },
  ],
  grades: [
    { when: 'claimed task ids the peer never minted, or minted tasks not claimed', verdict: 'FAIL' },
    { when: '`proceeded` with no task and no direct Message answer', verdict: 'FAIL' },
    { when: '`rejected` after the agent answered the message with a direct Message', verdict: 'FAIL' },
    { when: '`escalated` with no request that opted into an extension', verdict: 'FAIL' },
  ],
  notBinding: ['no report came back: INFORMATIONAL (WIRE-DEADLINE grades that)'],
  applies: always,
  grade(_b, x) {
    if (!x.claims) return informational('no report to compare');
    const minted = new Set(x.tasks.map((t) => t.id));
    const ledger: EvidenceRef = {
      ...absentEvidence('ledger', `the ledger holds ${minted.size} task(s)${minted.size ? `: ${[...minted].join(', ')}` : ''}, and nothing else`),
    };
    const claimed = new Set(x.claims.taskIds);
    const unknown = [...claimed].filter((id) => !minted.has(id));
    const unclaimed = x.tasks.filter((t) => !claimed.has(t.id));
    if (unknown.length)
      return verdict(
        'FAIL',
        `the client claims tasks the peer never minted: ${unknown.join(', ')}`,
        [ledger, claimEvidence(`taskIds: ${JSON.stringify(x.claims.taskIds)}`)],
        { basis: 'claims' },
      );
    if (unclaimed.length)
      return verdict(
        'FAIL',
        `the client does not report tasks it caused: ${unclaimed.map((t) => t.id).join(', ')}`,
        [...unclaimed.map((t) => ledgerEvidence(t.mintedSeq, describeTask(t))), claimEvidence(`taskIds: ${JSON.stringify(x.claims.taskIds)}`)],
        { basis: 'claims' },
      );
    const d = x.claims.decision;
    const answered = messageReplies(x);
    if (d === 'rejected' && minted.size === 0 && answered.length > 0)
      return verdict(
        'FAIL',
        `the client reports rejected, but the agent had answered its message with a direct Message at #${answered[0]!.seq} (spec §3.1.1)`,
        [wireEvidence(answered[0]!.seq, 'SendMessage answered with a Message, no task'), claimEvidence('decision: rejected')],
        { basis: 'claims' },
      );
    if ((d === 'proceeded' || d === 'downgraded') && minted.size === 0 && needsCompletion(x.intent) && answered.length === 0)
      return verdict('FAIL', `the client reports ${d} but no task was minted and no direct Message came back`, [ledger, claimEvidence(`decision: ${d}`)], {
        basis: 'claims',
      });
    if (d === 'escalated') {
      const uris = (x.card as { capabilities?: { extensions?: Array<{ uri?: unknown }> } }).capabilities?.extensions?.map((e) => String(e.uri ?? '')) ?? [];
      const opted = rpcCalls(x).filter((e) => uris.some((u) => optsInto(e, u)));
      if (opted.length === 0)
        return verdict(
          'FAIL',
          'the client reports escalated but no request opted into an extension of the card',
          [
            absentEvidence(
              'wire',
              `${rpcCalls(x).length} A2A request(s), none with A2A-Extensions or Message.extensions naming ${uris.join(', ') || 'a card extension'}`,
            ),
            claimEvidence('decision: escalated'),
          ],
          { basis: 'claims' },
        );
    }
    return met('claims agree with the ledger');
  },
};

export const WIRE_RULES: Rule[] = [WIRE_NO_TASK_AFTER_REJECT, WIRE_NO_ORPHANS, WIRE_NO_BLIND_RETRY, WIRE_DEADLINE, WIRE_HONEST_REPORT];
