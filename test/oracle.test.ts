/**
 * The oracle on recorded transcripts: each test reads a real run recorded over TLS (reference or a
 * naive mutant; test/golden/, `npm run golden`), then edits the wire evidence, or builds the few
 * events a case needs. Nothing here asks the
 * client what it did: only the events change. Each case of the fidelity audit (ruleset 2) is here,
 * with the verdict DESIGN.md §3 states for it.
 */
import { describe, expect, it } from 'vitest';
import { CROSS_CUTTING, grade, type GradeInput } from '../harness/core/oracle/index.js';
import type { ScenarioResult } from '../harness/core/results.js';
import type { HttpEvent, PushAttemptEvent, WireEvent } from '../harness/core/transcript.js';
import type { ClientReport } from '../harness/core/protocol/types.js';
import { scenarioVerdict } from '../harness/core/verdict.js';
import { upFrontMiss } from '../harness/core/oracle/rule.js';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { glob } from 'tinyglobby';
import { GOLDEN_DIR, goldenFile, pairsIn, recorded } from './helpers/golden.js';
import { ROOT } from './helpers/cli.js';
import { scenario } from './helpers/scenarios.js';
import { ledgerOf } from './helpers/ledger.js';

function regrade(r: ScenarioResult, events: WireEvent[], o: { claims?: ClientReport | null; profile?: ScenarioResult['profile']; timeout?: boolean } = {}) {
  const input: GradeInput = {
    scenario: scenario(r.id),
    card: r.card,
    profile: o.profile ?? r.profile,
    intent: r.intent,
    events,
    tasks: ledgerOf(events),
    claims: o.claims === undefined ? r.claims : o.claims,
    outcome: o.timeout || r.outcome.kind === 'timeout' ? { kind: 'timeout', deadlineMs: r.deadlineMs } : { kind: 'reported' },
  };
  return grade(input);
}
const checkOf = (g: ReturnType<typeof grade>, rule: string) => g.checks.find((c) => c.rule === rule)!;
const check = (g: ReturnType<typeof grade>, rule: string) => checkOf(g, rule).verdict;

/** A recorded request, built by hand: what a listener would have written. */
let nextSeq = 1000;
function http(o: Partial<HttpEvent> & { t: number }): HttpEvent {
  return {
    seq: nextSeq++,
    kind: 'http',
    listener: 'tls',
    origin: 'https://127.0.0.1:1',
    method: 'POST',
    path: '/t/x/rpc',
    headers: { a2aVersion: '1.0' },
    clientCert: { presented: false },
    status: 200,
    ...o,
  } as HttpEvent;
}
const sendMessage = (params: unknown = { message: { messageId: String(Math.random()), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }) => ({
  method: 'SendMessage',
  id: 1,
  params,
});

describe('the recorded transcripts (test/golden/)', () => {
  it('every pair a test reads has its file, recorded from the scenario as it is; no file is unread', async () => {
    const tests = await glob(['test/**/*.test.ts'], { cwd: ROOT, ignore: ['**/node_modules/**'] });
    const pairs = pairsIn(tests.map((f) => readFileSync(join(ROOT, f), 'utf8')));
    expect(pairs.length).toBeGreaterThanOrEqual(20);
    for (const [client, id] of pairs) expect(() => recorded(client, id), `${client} ${id}`).not.toThrow();
    // Beside them, the mutation check's counterexamples (test/helpers/counterexamples.ts).
    expect(readdirSync(GOLDEN_DIR).sort()).toEqual([...pairs.map(([client, id]) => basename(goldenFile(client, id))), 'counterexamples.json'].sort());
  });
});

describe('the oracle reads the wire, not the report', () => {
  it('grades a recorded transcript the same way twice (deterministic)', async () => {
    const r = recorded('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    expect(regrade(r, r.transcript)).toEqual(regrade(r, r.transcript));
    expect(regrade(r, r.transcript).verdict).toBe(r.verdict);
  });

  it("every check carries its rule's sources; every piece of evidence says where it comes from", async () => {
    const r = recorded('reference', 'neg-push-mtls/https-receiver-wants-push');
    for (const c of r.checks) {
      expect(c.sources?.length, c.rule).toBeGreaterThan(0);
      for (const e of c.evidence) expect(['wire', 'ledger', 'claims'], `${c.rule}: ${e.fact}`).toContain(e.source);
    }
  });
});

describe("NEG-LIVE-INPUT: streaming covers the agent's updates in v1.0, so the signal is the seed's (level seed)", () => {
  it('a task minted to stream frames is NON_STRICT at level seed, not FAIL', async () => {
    const r = recorded('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    const c = checkOf(regrade(r, r.transcript), 'NEG-LIVE-INPUT');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', basis: 'up-front', level: 'field' });
    expect(c.sources!.every((s) => s.doc === 'docs/duties.md')).toBe(true);
  });

  it('the whole live audio buffered into one message that completes is PASS (a downgrade the wire shows)', async () => {
    // The bufferable run sends one complete payload to the same card and peer; graded here for a live-only profile.
    const r = recorded('reference', 'neg-live-input/bufferable-audio');
    const liveOnly = { ...r.profile, liveOnlyInputModes: ['audio/pcm'], bufferableInputModes: ['text/plain'] };
    const g = regrade({ ...r, id: 'neg-live-input/live-audio-to-batch-peer' }, r.transcript, { profile: liveOnly });
    expect(checkOf(g, 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'PASS', basis: 'met' });
  });

  it('harm stays FAIL: the task left in input-required, or the refused frame sent again', async () => {
    const r = recorded('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    const noCancel = r.transcript.filter((e) => !(e.kind === 'task' && e.cause === 'canceled'));
    expect(checkOf(regrade(r, noCancel), 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    const refused = r.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.status === 415)!;
    const again = [...r.transcript, { ...refused, seq: 990 }];
    expect(checkOf(regrade(r, again), 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
  });

  it('a rejection is credited only when the card GET is on the wire before the decision', async () => {
    const r = recorded('reference', 'neg-live-input/live-audio-to-batch-peer');
    expect(check(regrade(r, r.transcript), 'NEG-LIVE-INPUT')).toBe('PASS');
    const blind = r.transcript.filter((e) => !(e.kind === 'http' && e.method === 'GET'));
    expect(checkOf(regrade(r, blind), 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'FAIL', basis: 'no-credit' });
    // The card read after the decision does not count either.
    const decision = r.transcript.find((e) => e.kind === 'decision')!;
    const cardGet = r.transcript.find((e) => e.kind === 'http' && e.method === 'GET')!;
    const late = [...blind, { ...cardGet, seq: decision.seq + 500 }];
    expect(check(regrade(r, late), 'NEG-LIVE-INPUT')).toBe('FAIL');
    // A client that answers without a single request gets no PASS.
    expect(check(regrade(r, []), 'NEG-LIVE-INPUT')).toBe('FAIL');
  });

  it('naive:decides-blind is caught: FAIL, citing the wire', async () => {
    const r = recorded('naive:decides-blind', 'neg-live-input/live-audio-to-batch-peer');
    const c = checkOf(regrade(r, r.transcript), 'NEG-LIVE-INPUT');
    expect(c.verdict).toBe('FAIL');
    expect(c.evidence.some((e) => e.source === 'wire')).toBe(true);
  });
});

describe('NEG-PUSH-MTLS: webhooks are authenticated with the client-chosen credentials in v1.0 (level seed)', () => {
  it('push registered on the mTLS card, polled to completion: NON_STRICT, never FAIL', async () => {
    const good = recorded('reference', 'neg-push-mtls/https-receiver-wants-push');
    expect(check(regrade(good, good.transcript), 'NEG-PUSH-MTLS')).toBe('PASS');
    const taskId = good.ledger[0]!.id;
    const reg: WireEvent = { seq: 98, t: 1, kind: 'push-register', taskId, url: 'https://127.0.0.1:9/push', via: 'inline', requestSeq: 3 };
    const lost: WireEvent = {
      seq: 99,
      t: 2,
      kind: 'push-attempt',
      taskId,
      url: 'https://127.0.0.1:9/push',
      state: 'TASK_STATE_WORKING',
      outcome: 'tls-error',
      error: 'SELF_SIGNED_CERT_IN_CHAIN',
      presentedClientCert: true,
    };
    const c = checkOf(regrade(good, [...good.transcript, reg, lost]), 'NEG-PUSH-MTLS');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', basis: 'up-front', level: 'field' });
  });

  it('the real SDK registers push there and polls: NON_STRICT, and the task completes at the peer', async () => {
    const r = recorded('a2a-js-sdk', 'neg-push-mtls/https-receiver-wants-push');
    expect(r.ledger[0]!.state).toBe('TASK_STATE_COMPLETED');
    expect(check(regrade(r, r.transcript), 'NEG-PUSH-MTLS')).toBe('NON_STRICT');
  });

  it('waiting on the lost push alone is harm: TIMEOUT at the deadline (naive:registers-unusable-push)', async () => {
    const bad = recorded('naive:registers-unusable-push', 'neg-push-mtls/https-receiver-wants-push');
    expect(bad.outcome.kind).toBe('timeout');
    expect(checkOf(regrade(bad, bad.transcript), 'NEG-PUSH-MTLS')).toMatchObject({ verdict: 'TIMEOUT', basis: 'deadline' });
  });

  it("no mTLS signal, a poll intent: a push registered anyway and lost is not the client's harm once it polled to completion", async () => {
    const good = recorded('reference', 'neg-push-mtls/no-signal');
    const taskId = good.ledger[0]!.id;
    const reg: WireEvent = { seq: 98, t: 1, kind: 'push-register', taskId, url: 'https://127.0.0.1:9/push', via: 'inline', requestSeq: 3 };
    const lost: WireEvent = {
      seq: 99,
      t: 2,
      kind: 'push-attempt',
      taskId,
      url: 'https://127.0.0.1:9/push',
      state: 'TASK_STATE_WORKING',
      outcome: 'tls-error',
      error: 'SELF_SIGNED_CERT_IN_CHAIN',
      presentedClientCert: true,
    };
    const poll = { ...good, intent: { ...good.intent, completion: 'poll' as const } };
    expect(checkOf(regrade(poll, [...good.transcript, reg, lost]), 'NEG-PUSH-MTLS')).toMatchObject({ verdict: 'PASS' });
  });

  it('push with Bearer authentication to an https receiver, no mTLS signal: PASS, the deliveries authenticated', async () => {
    const r = recorded('reference', 'neg-push-mtls/bearer-push-no-mtls-signal');
    expect(check(regrade(r, r.transcript), 'NEG-PUSH-MTLS')).toBe('PASS');
    expect(r.transcript.some((e) => e.kind === 'push-attempt' && e.outcome === 'delivered')).toBe(true);
  });

  it('deliveries lost to a receiver that should take them are harm only before the client knew the outcome; lost after it saw the terminal state, they are moot', async () => {
    // The partner-mTLS receiver: the client polls and also takes the agent's push.
    // A recording with a delivery in it (npm run golden keeps recording until it has one).
    const r = recorded('reference', 'neg-push-mtls/mtls-receiver');
    const attempts = r.transcript.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');
    expect(attempts.length).toBeGreaterThan(0);
    // The client's poll that saw the terminal state, at #500 (whichever came first in this recording).
    const taskId = r.ledger[0]!.id;
    const poll = r.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.taskId === taskId && e.rpc?.method === 'GetTask');
    expect(poll).toBeDefined();
    const sawTerminal = (e: WireEvent) => e.kind === 'http' && e.taskState === 'TASK_STATE_COMPLETED';
    const others: WireEvent[] = [
      ...r.transcript.filter((e) => e.kind !== 'push-attempt' && e.kind !== 'decision' && !sawTerminal(e)),
      { ...poll!, seq: 500, taskState: 'TASK_STATE_COMPLETED' },
    ];
    const lostAt = (seq: number, a: PushAttemptEvent): WireEvent => ({ ...a, seq, outcome: 'connect-error', error: 'ECONNREFUSED' });
    // Every delivery lost, one of them before the client saw the terminal state: harm.
    const early = [...others, ...attempts.map((a, i) => lostAt(i === 0 ? 400 : 900 + i, a))].sort((a, b) => a.seq - b.seq);
    expect(checkOf(regrade(r, early), 'NEG-PUSH-MTLS')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    // Every delivery lost, all after the client saw it: moot, said in the reason.
    const late = [...others, ...attempts.map((a, i) => lostAt(900 + i, a))];
    const c = checkOf(regrade(r, late), 'NEG-PUSH-MTLS');
    expect(c.verdict).toBe('PASS');
    expect(c.reason).toMatch(/moot/);
  });

  it('a client that cancels at once is not "driven to terminal": it lost a task polling would have completed', async () => {
    const good = recorded('reference', 'neg-push-mtls/https-receiver-wants-push');
    const taskId = good.ledger[0]!.id;
    const early = good.transcript.filter(
      (e) => !(e.kind === 'task' && e.state === 'TASK_STATE_COMPLETED') && !(e.kind === 'http' && e.taskState === 'TASK_STATE_COMPLETED'),
    );
    const cancel: WireEvent = { seq: 94, t: 1, kind: 'task', taskId, state: 'TASK_STATE_CANCELED', cause: 'canceled' };
    expect(checkOf(regrade(good, [...early, cancel]), 'NEG-PUSH-MTLS')).toMatchObject({ verdict: 'FAIL', basis: 'incomplete' });
  });
});

describe('levels: the grade of an up-front miss is computed from the sources and the signals, never chosen in a branch', () => {
  it("a scenario's signal kind can lower a level, never raise it", async () => {
    const good = recorded('reference', 'neg-push-mtls/https-receiver-wants-push');
    const taskId = good.ledger[0]!.id;
    const reg: WireEvent = { seq: 98, t: 1, kind: 'push-register', taskId, url: 'https://127.0.0.1:9/push', via: 'inline', requestSeq: 3 };
    const s = scenario(good.id);
    const withKind = (kind: 'MUST' | 'convention') => ({
      ...s,
      peer: { ...s.peer, signals: s.peer.signals.map((x) => (x.pointer === '/securityRequirements' ? { ...x, kind } : x)) },
    });
    const gradeWith = (sc: typeof s) =>
      grade({
        scenario: sc,
        card: good.card,
        profile: good.profile,
        intent: good.intent,
        events: [...good.transcript, reg],
        tasks: good.ledger,
        claims: good.claims,
        outcome: { kind: 'reported' },
      });
    expect(checkOf(gradeWith(withKind('MUST')), 'NEG-PUSH-MTLS')).toMatchObject({ verdict: 'NON_STRICT', level: 'field' });
    expect(checkOf(gradeWith(withKind('convention')), 'NEG-PUSH-MTLS')).toMatchObject({ verdict: 'NON_STRICT', level: 'convention' });
  });

  it('a rule whose duty and signals are all MUST (or security) fails a miss; one weak link makes it NON_STRICT', () => {
    const must = { sources: [{ doc: 'A2A v1.0.1', section: '0', quote: 'x', level: 'MUST' as const }] };
    const b = (levels: Array<'MUST' | 'security' | 'field'>) => ({
      binds: true as const,
      reason: 'r',
      acceptable: ['reject' as const],
      signals: levels.map((level, i) => ({ pointer: `/p${i}`, level, note: '' })),
    });
    expect(upFrontMiss(must, b(['MUST', 'security']), 'r', []).kind).toBe('FAIL');
    expect(upFrontMiss(must, b(['MUST', 'field']), 'r', [])).toMatchObject({ kind: 'NON_STRICT', level: 'field' });
    expect(upFrontMiss({ sources: [{ ...must.sources[0]!, level: 'SHOULD' }] }, b(['MUST']), 'r', [])).toMatchObject({ kind: 'NON_STRICT', level: 'SHOULD' });
  });
});

describe('NEG-ESCALATE: through capabilities.extensions, only for clients that declared the extension', () => {
  it('opted in and completed: PASS; declared but not used: NON_STRICT (convention), and NEG-LIVE-INPUT grades what the client did instead', async () => {
    const good = recorded('reference', 'neg-escalate/known-extension');
    expect(check(regrade(good, good.transcript), 'NEG-ESCALATE')).toBe('PASS');
    // It rejected after reading the card, with the extension at hand.
    const rejected = recorded('naive:never-escalates', 'neg-escalate/known-extension');
    const g = regrade(rejected, rejected.transcript);
    expect(checkOf(g, 'NEG-ESCALATE')).toMatchObject({ verdict: 'NON_STRICT', basis: 'up-front', level: 'convention' });
    expect(checkOf(g, 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'PASS' });
    expect(g.verdict).toBe('NON_STRICT');
    // The same rejection without a card read earns no credit; the refused frame sent again is harm.
    const blind = regrade(
      rejected,
      rejected.transcript.filter((e) => !(e.kind === 'http' && e.method === 'GET')),
    );
    expect(checkOf(blind, 'NEG-ESCALATE')).toMatchObject({ verdict: 'FAIL', basis: 'no-credit' });
    expect(checkOf(blind, 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'FAIL', basis: 'no-credit' });
    // Streaming the frames without opting in: NON_STRICT twice over; the refused frame sent again: harm.
    const streamed = recorded('naive:streams-live-audio', 'neg-escalate/known-extension');
    const sg = regrade(streamed, streamed.transcript);
    expect(checkOf(sg, 'NEG-ESCALATE').verdict).toBe('NON_STRICT');
    expect(checkOf(sg, 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'NON_STRICT', level: 'field' });
    const refused = streamed.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.status === 415)!;
    const again = regrade(streamed, [...streamed.transcript, { ...refused, seq: 990 }]);
    expect(checkOf(again, 'NEG-ESCALATE')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(again.verdict).toBe('FAIL');
  });

  it("a client that did not declare the extension is never assigned it: INFORMATIONAL, and NEG-LIVE-INPUT's verdict is the scenario's", async () => {
    const r = recorded('a2a-js-sdk', 'neg-escalate/known-extension');
    expect(r.profile.knownExtensions).toEqual([]);
    const g = regrade(r, r.transcript);
    expect(check(g, 'NEG-ESCALATE')).toBe('INFORMATIONAL');
    // The SDK streams the frames and leaves the refused task in input-required: harm.
    expect(checkOf(g, 'NEG-LIVE-INPUT')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    const ref = recorded('reference', 'neg-escalate/unknown-extension');
    expect(ref.checks.find((c) => c.rule === 'NEG-LIVE-INPUT')?.verdict).toBe('PASS');
    expect(ref.verdict).toBe('PASS');
  });

  it('naive:never-escalates is caught at NON_STRICT (it declared the extension and rejected instead)', async () => {
    const r = recorded('naive:never-escalates', 'neg-escalate/known-extension');
    expect(r.verdict).toBe('NON_STRICT');
    expect(checkOf(regrade(r, r.transcript), 'NEG-ESCALATE').verdict).toBe('NON_STRICT');
  });
});

describe('WIRE-NO-BLIND-RETRY: structural vs temporary failures, keyed on what was sent', () => {
  const card = scenario('neg-live-input/text-task-on-audio-card');
  const input = (events: WireEvent[]): GradeInput => ({
    scenario: card,
    card: card.peer.card,
    profile: { ...scenario('neg-live-input/text-task-on-audio-card').profileConstraints } as never,
    intent: card.intent,
    events,
    tasks: [],
    claims: { decision: 'rejected', degradations: [], taskIds: [] },
    outcome: { kind: 'reported' },
  });
  const blind = (events: WireEvent[]) => checkOf(grade(input(events)), 'WIRE-NO-BLIND-RETRY');
  const params = sendMessage().params as { message: Record<string, unknown> };

  it('a structural failure repeated unchanged (apart from messageId and the JSON-RPC id) is FAIL', () => {
    const a = http({ t: 0, rpc: { method: 'SendMessage', id: 1, params }, rpcError: { code: -32005, message: 'Incompatible content types' } });
    const b = http({
      t: 500,
      rpc: { method: 'SendMessage', id: 2, params: { ...params, message: { ...params.message, messageId: 'other' } } },
      rpcError: { code: -32005, message: 'x' },
    });
    expect(blind([a, b])).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(blind([a, b]).evidence.map((e) => e.seq)).toEqual([a.seq, b.seq]);
  });

  it('a 503 retried after backoff is fine; before its Retry-After, or in a hot loop, it is FAIL', () => {
    const fail = (t: number, retryAfter?: string) =>
      http({ t, rpc: { method: 'SendMessage', id: t, params }, status: 503, ...(retryAfter ? { response: { retryAfter } } : {}) });
    const ok = (t: number) => http({ t, rpc: { method: 'SendMessage', id: t, params }, status: 200 });
    expect(blind([fail(0, '1'), ok(1200)]).verdict).toBe('PASS');
    expect(blind([fail(0), fail(300), ok(900)]).verdict).toBe('PASS');
    expect(blind([fail(0, '2'), ok(500)])).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    expect(blind([fail(0), fail(10), fail(20), fail(30)]).verdict).toBe('FAIL');
  });

  it('401, then a token, then the same call with the new credentials: not a repeat', () => {
    const a = http({ t: 0, rpc: { method: 'SendMessage', id: 1, params }, status: 401, response: { wwwAuthenticate: 'Bearer' } });
    const b = http({
      t: 200,
      rpc: { method: 'SendMessage', id: 2, params },
      status: 200,
      headers: { a2aVersion: '1.0', authorization: true, authScheme: 'Bearer', authDigest: 'aaaaaaaaaaaa' },
    });
    expect(blind([a, b]).verdict).toBe('PASS');
  });

  it('-32009, then the same call with another A2A-Version: not a repeat; the same version again: FAIL', () => {
    const a = http({
      t: 0,
      headers: { a2aVersion: '0.3' },
      rpc: { method: 'GetTask', id: 1, params: { id: 't' } },
      rpcError: { code: -32009, message: 'Version not supported' },
    });
    const b = http({
      t: 100,
      headers: { a2aVersion: '1.0' },
      rpc: { method: 'GetTask', id: 2, params: { id: 't' } },
      rpcError: { code: -32001, message: 'Task not found' },
    });
    expect(blind([a, b]).verdict).toBe('PASS');
    expect(blind([a, { ...a, seq: 2000, t: 100 }]).verdict).toBe('FAIL');
  });

  it('the legacy card path after a refused handshake is not a retry; a third refused handshake is', () => {
    const tls = (seq: number): WireEvent => ({
      seq,
      t: seq,
      kind: 'tls',
      listener: 'expired',
      ok: false,
      error: 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED',
      clientCert: false,
    });
    expect(blind([tls(1), tls(2)]).verdict).toBe('PASS');
    expect(blind([tls(1), tls(2), tls(3)]).verdict).toBe('FAIL');
    const card = (path: string, t: number) => http({ t, method: 'GET', path, status: 404 });
    expect(blind([card('/t/x/.well-known/agent-card.json', 0), card('/t/x/.well-known/agent.json', 50)]).verdict).toBe('PASS');
  });

  it('a recorded refused frame repeated (naive:retries-blindly) is FAIL; without the repeat, PASS', async () => {
    const bad = recorded('naive:retries-blindly', 'neg-live-input/no-signal-card-claims-streaming');
    expect(check(regrade(bad, bad.transcript), 'WIRE-NO-BLIND-RETRY')).toBe('FAIL');
    const failing = bad.transcript.filter((e) => e.kind === 'http' && e.status === 415);
    expect(failing.length).toBe(2);
    expect(
      check(
        regrade(
          bad,
          bad.transcript.filter((e) => e !== failing[1]),
        ),
        'WIRE-NO-BLIND-RETRY',
      ),
    ).toBe('PASS');
  });
});

describe('SPEC-A2A-VERSION: a MUST (§3.6.1), patch numbers a SHOULD NOT (§3.6)', () => {
  it('missing or wrong → FAIL at MUST; a patch number → NON_STRICT at SHOULD; the query parameter counts', async () => {
    const good = recorded('reference', 'neg-live-input/text-task-on-audio-card');
    expect(check(regrade(good, good.transcript), 'SPEC-A2A-VERSION')).toBe('PASS');
    const edit = (f: (e: HttpEvent) => HttpEvent) => good.transcript.map((e) => (e.kind === 'http' && e.rpc?.method === 'GetTask' ? f(e) : e));
    expect(
      checkOf(
        regrade(
          good,
          edit((e) => ({ ...e, headers: { ...e.headers, a2aVersion: undefined } })),
        ),
        'SPEC-A2A-VERSION',
      ),
    ).toMatchObject({ verdict: 'FAIL', basis: 'duty', level: 'MUST' });
    expect(
      check(
        regrade(
          good,
          edit((e) => ({ ...e, headers: { ...e.headers, a2aVersion: '0.3' } })),
        ),
        'SPEC-A2A-VERSION',
      ),
    ).toBe('FAIL');
    expect(
      checkOf(
        regrade(
          good,
          edit((e) => ({ ...e, headers: { ...e.headers, a2aVersion: '1.0.1' } })),
        ),
        'SPEC-A2A-VERSION',
      ),
    ).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD' });
    expect(
      check(
        regrade(
          good,
          edit((e) => ({ ...e, headers: { ...e.headers, a2aVersion: undefined }, versionQuery: '1.0' })),
        ),
        'SPEC-A2A-VERSION',
      ),
    ).toBe('PASS');
  });

  it('naive:omits-a2a-version is caught: FAIL, and the peers answered -32009 on the wire', async () => {
    const r = recorded('naive:omits-a2a-version', 'neg-live-input/text-task-on-audio-card');
    expect(check(regrade(r, r.transcript), 'SPEC-A2A-VERSION')).toBe('FAIL');
    expect(r.transcript.some((e) => e.kind === 'http' && e.rpcError?.code === -32009)).toBe(true);
  });
});

describe('SPEC-TLS-VERIFY: A2A §7.2 SHOULD, held as security with RFC 9110 §4.3.4', () => {
  it('cites §7.2 at level security, not §7.1 MUST', async () => {
    const r = recorded('reference', 'spec-tls-verify/expired');
    const c = checkOf(regrade(r, r.transcript), 'SPEC-TLS-VERIFY');
    expect(c.verdict).toBe('PASS');
    expect(c.sources!.map((s) => `${s.doc} ${s.section} ${s.level}`)).toContain('A2A v1.0.1 7.2 security');
    expect(c.sources!.some((s) => s.section === '7.1')).toBe(false);
  });

  it('a completed handshake followed by no request (a pin checked after it) is PASS; no handshake at all is no credit', async () => {
    const r = recorded('reference', 'spec-tls-verify/expired');
    const pinned: WireEvent[] = [{ seq: 1, t: 0, kind: 'tls', listener: 'expired', ok: true, clientCert: false }];
    expect(check(regrade(r, pinned), 'SPEC-TLS-VERIFY')).toBe('PASS');
    expect(checkOf(regrade(r, []), 'SPEC-TLS-VERIFY')).toMatchObject({ verdict: 'FAIL', basis: 'no-credit' });
  });

  it('a request over the bad certificate is harm: FAIL', async () => {
    const bad = recorded('naive:skips-tls-verify', 'spec-tls-verify/expired');
    expect(checkOf(regrade(bad, bad.transcript), 'SPEC-TLS-VERIFY')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
  });
});

describe('WIRE-HONEST-REPORT: an agent may answer with a Message and no task (§3.1.1)', () => {
  it('proceeded after a Message reply is honest; proceeded with neither a task nor a Message is not', async () => {
    const r = recorded('reference', 'wire/message-reply');
    expect(r.verdict).toBe('PASS');
    expect(r.claims?.decision).toBe('proceeded');
    expect(check(regrade(r, r.transcript), 'WIRE-HONEST-REPORT')).toBe('PASS');
    const noReply = r.transcript.map((e) => (e.kind === 'http' ? { ...e, reply: undefined } : e));
    expect(checkOf(regrade(r, noReply), 'WIRE-HONEST-REPORT')).toMatchObject({ verdict: 'FAIL', basis: 'claims' });
  });
});

describe('NEG-RESUB-ONLY-OUTPUT: code and docs agree', () => {
  it('still waiting at the deadline after the task was seen COMPLETED is FAIL (harm); waiting without having seen it is TIMEOUT', async () => {
    const r = recorded('reference', 'neg-resub-only/other-output-acceptable');
    const onlyAudio = { ...r, id: 'neg-resub-only/only-output-unreachable', intent: scenario('neg-resub-only/only-output-unreachable').intent };
    expect(checkOf(regrade(onlyAudio, r.transcript, { timeout: true }), 'NEG-RESUB-ONLY-OUTPUT')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
    const unseen = r.transcript.filter((e) => !(e.kind === 'http' && e.taskState === 'TASK_STATE_COMPLETED'));
    expect(check(regrade(onlyAudio, unseen, { timeout: true }), 'NEG-RESUB-ONLY-OUTPUT')).toBe('TIMEOUT');
  });

  it('SubscribeToTask repeated after -32004 is FAIL (harm)', async () => {
    const good = recorded('reference', 'neg-resub-only/other-output-acceptable');
    const sub = (t: number) => http({ t, rpc: { method: 'SubscribeToTask', id: t, params: { id: 't' } }, rpcError: { code: -32004, message: 'unsupported' } });
    expect(check(regrade(good, [...good.transcript, sub(1)]), 'NEG-RESUB-ONLY-OUTPUT')).toBe('PASS');
    expect(check(regrade(good, [...good.transcript, sub(1), sub(2)]), 'NEG-RESUB-ONLY-OUTPUT')).toBe('FAIL');
  });
});

describe("the client's words never outrank the wire", () => {
  it("`unsupported` replaces only the scenario's own rule: the wire checks still run", async () => {
    const r = recorded('naive:skips-tls-verify', 'spec-tls-verify/expired');
    const declined = { decision: 'unsupported' as const, degradations: [], taskIds: [] };
    // It fetched the card over the expired certificate: harm, which no claim replaces.
    expect(regrade(r, r.transcript, { claims: declined }).verdict).toBe('FAIL');
    // Failing calls repeated, and no A2A-Version: every check still runs.
    const call = http({
      t: 0,
      headers: {},
      rpc: { method: 'GetTask', id: 1, params: { id: 't' } },
      rpcError: { code: -32009, message: 'Version not supported' },
    });
    const g = regrade(r, [...r.transcript, call, { ...call, seq: 3000, t: 5 }], { claims: declined });
    expect(check(g, 'WIRE-NO-BLIND-RETRY')).toBe('FAIL');
    expect(check(g, 'SPEC-A2A-VERSION')).toBe('FAIL');
    // A plain decline with a clean wire is UNSUPPORTED.
    const clean = recorded('reference', 'neg-live-input/live-audio-to-batch-peer');
    const d = regrade(clean, clean.transcript, { claims: declined });
    expect(d.verdict).toBe('UNSUPPORTED');
    expect(d.checks.filter((c) => c.rule.startsWith('WIRE-')).length).toBe(CROSS_CUTTING.filter((id) => id.startsWith('WIRE-')).length);
  });

  it('a lying report is caught by WIRE-HONEST-REPORT, citing the ledger', async () => {
    const bad = recorded('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    const liar = { decision: 'rejected' as const, errorClass: 'unnegotiable-card' as const, degradations: [], taskIds: [] };
    const g = regrade(bad, bad.transcript, { claims: liar });
    expect(checkOf(g, 'WIRE-HONEST-REPORT')).toMatchObject({ verdict: 'FAIL', basis: 'claims' });
    expect(checkOf(g, 'WIRE-HONEST-REPORT').evidence.some((e) => e.source === 'ledger')).toBe(true);
    expect(check(g, 'NEG-LIVE-INPUT')).toBe('NON_STRICT');
    // The task was canceled by the client: a probe, named as such.
    expect(checkOf(g, 'WIRE-NO-TASK-AFTER-REJECT')).toMatchObject({ verdict: 'PASS' });
    expect(checkOf(g, 'WIRE-NO-TASK-AFTER-REJECT').reason).toMatch(/probe/);
  });
});

describe('a probe that ends on its own just before its cancel (found under load)', () => {
  it('the cancel refused with TaskNotCancelableError while the task had ended shows the client that end (§3.3.2); refused while it still works, it shows nothing', async () => {
    // The recording needs the probe canceled while it still works; on a loaded machine the runtime can
    // finish it first (the very race this test rewrites), so a few recordings are allowed to get one.
    let r = recorded('reference', 'neg-push-mtls/mtls-receiver.v03');
    const canceledIn = (x: typeof r) => x.transcript.find((e) => e.kind === 'task' && e.cause === 'canceled');
    for (let i = 0; i < 4 && !canceledIn(r); i++) r = recorded('reference', 'neg-push-mtls/mtls-receiver.v03');
    expect(r.verdict).toBe('PASS');
    const canceled = canceledIn(r)!;
    expect(canceled, 'the reference probes this card with a task it cancels').toBeDefined();
    const probe = (canceled as { taskId: string }).taskId;
    const cancelCall = r.transcript.find((e) => e.kind === 'http' && e.rpc?.method === 'CancelTask' && e.taskId === probe) as HttpEvent;
    // The runtime completes the probe first; the cancel that follows is refused.
    const ended = r.transcript.flatMap((e): WireEvent[] => {
      if (e === canceled) return [];
      if (e === cancelCall)
        return [
          { ...canceled, state: 'TASK_STATE_COMPLETED', cause: 'runtime', seq: cancelCall.seq - 0.5 } as WireEvent,
          { ...cancelCall, taskState: undefined, rpcError: { code: -32002, message: 'Task cannot be canceled: task is TASK_STATE_COMPLETED' } } as WireEvent,
        ];
      return [e];
    });
    const g = regrade(r, ended);
    expect([check(g, 'NEG-PUSH-MTLS'), check(g, 'WIRE-DEADLINE'), check(g, 'WIRE-NO-ORPHANS')]).toEqual(['PASS', 'PASS', 'PASS']);
    // Refused while the ledger still has it WORKING: the client was shown no end, and the probe is live.
    const stillWorking = ended.filter((e) => !(e.kind === 'task' && e.taskId === probe && e.state === 'TASK_STATE_COMPLETED'));
    expect(regrade(r, stillWorking).verdict).toBe('FAIL');
  });

  it('a client that probes, is refused the cancel because the probe had ended, and then rejects left no task behind (WIRE-NO-TASK-AFTER-REJECT); refused while it works, it did', async () => {
    const r = recorded('reference', 'neg-push-mtls/mtls-receiver.v03');
    const canceled = r.transcript.find((e) => e.kind === 'task' && e.cause === 'canceled')!;
    const probe = (canceled as { taskId: string }).taskId;
    const cancelCall = r.transcript.find((e) => e.kind === 'http' && e.rpc?.method === 'CancelTask' && e.taskId === probe) as HttpEvent;
    // The wire up to the probe's cancel, the probe completed just before it, the cancel refused; then the client rejects.
    const upTo = r.transcript.filter((e) => e.seq <= cancelCall.seq && e !== canceled);
    const ended = upTo.flatMap((e): WireEvent[] =>
      e === cancelCall
        ? [
            { ...canceled, state: 'TASK_STATE_COMPLETED', cause: 'runtime', seq: cancelCall.seq - 0.5 } as WireEvent,
            { ...cancelCall, taskState: undefined, rpcError: { code: -32002, message: 'Task cannot be canceled' } } as WireEvent,
          ]
        : [e],
    );
    const rejected: ClientReport = { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds: [probe] };
    expect(check(regrade(r, ended, { claims: rejected }), 'WIRE-NO-TASK-AFTER-REJECT')).toBe('PASS');
    const stillWorking = ended.filter((e) => !(e.kind === 'task' && e.state === 'TASK_STATE_COMPLETED'));
    expect(check(regrade(r, stillWorking, { claims: rejected }), 'WIRE-NO-TASK-AFTER-REJECT')).toBe('FAIL');
  });
});

describe('scenario verdict', () => {
  it('is the worst check; a rule that does not bind reads INFORMATIONAL; INFORMATIONAL never masks a failure', () => {
    const c = (rule: string, verdict: 'PASS' | 'FAIL' | 'INFORMATIONAL' | 'NON_STRICT' | 'TIMEOUT') => ({ rule, verdict, reason: '', evidence: [] });
    expect(scenarioVerdict([c('R', 'PASS'), c('W', 'FAIL')], 'R')).toBe('FAIL');
    expect(scenarioVerdict([c('R', 'INFORMATIONAL'), c('W', 'PASS')], 'R')).toBe('INFORMATIONAL');
    expect(scenarioVerdict([c('R', 'PASS'), c('W', 'INFORMATIONAL')], 'R')).toBe('PASS');
    expect(scenarioVerdict([c('R', 'INFORMATIONAL'), c('W', 'NON_STRICT')], 'R')).toBe('NON_STRICT');
    expect(scenarioVerdict([c('R', 'TIMEOUT'), c('W', 'FAIL')], 'R')).toBe('FAIL');
  });
});
