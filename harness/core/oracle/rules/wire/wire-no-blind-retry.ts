/**
 * WIRE-NO-BLIND-RETRY (wire): A request that failed structurally is never repeated unchanged; temporary failures are retried with backoff.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { HttpEvent } from '../../../transcript.js';
import { wireEvidence } from '../../../verdict.js';
import { describeCall, https, tlsEvents } from '../../evidence.js';
import { harm, met, type RuleOf } from '../../rule.js';
import { always } from './shared.js';

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

export const WIRE_NO_BLIND_RETRY: RuleOf<'WIRE-NO-BLIND-RETRY'> = {
  id: 'WIRE-NO-BLIND-RETRY',
  title: 'A request that failed structurally is never repeated unchanged; temporary failures are retried with backoff',
  family: 'wire',
  scope: 'always',
  sources: [
    {
      doc: 'docs/duties.md',
      section: '6 The same failed call, sent again',
      quote: 'A failure that comes from what the card says does not go away when the same call is sent again; retrying it is never the fix.',
      level: 'field',
      role: 'harm',
    },
    {
      doc: 'docs/duties.md',
      section: '6 The same failed call, sent again',
      quote: "Treating a negotiation failure as a transport error and retrying it spends the task's time budget and never ends.",
      level: 'field',
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
