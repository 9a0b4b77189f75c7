/**
 * The oracle on recorded transcripts: each test records a real run over TLS (reference or a naive
 * mutant), then edits the wire evidence. Removing the offending event from a failing transcript
 * flips the rule's check to PASS; adding it to a passing one flips it to FAIL. Nothing here asks
 * the client what it did: only the events change.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { grade, type GradeInput } from '../harness/core/oracle/index.js';
import type { ScenarioResult } from '../harness/core/results.js';
import type { TaskRecord, WireEvent } from '../harness/core/transcript.js';
import { scenarioVerdict } from '../harness/core/verdict.js';
import { startHarness, type InProcessHarness } from './helpers/harness.js';
import { scenario } from './helpers/scenarios.js';

const harnesses = new Map<string, InProcessHarness>();
async function record(client: string, id: string): Promise<ScenarioResult> {
  let h = harnesses.get(client);
  if (!h) harnesses.set(client, (h = await startHarness(client)));
  return h.run(scenario(id));
}
afterAll(async () => {
  for (const h of harnesses.values()) await h.close();
});

/** Rebuilds the ledger from the task events, so an edited transcript stays self-consistent. */
function ledgerOf(events: WireEvent[]): TaskRecord[] {
  const tasks = new Map<string, TaskRecord>();
  for (const e of events) {
    if (e.kind !== 'task') continue;
    const t = tasks.get(e.taskId) ?? { id: e.taskId, contextId: 'ctx', state: e.state, mintedSeq: e.seq, history: [] };
    t.state = e.state;
    t.history.push({ seq: e.seq, state: e.state });
    tasks.set(e.taskId, t);
  }
  return [...tasks.values()];
}

function regrade(r: ScenarioResult, events: WireEvent[]) {
  const input: GradeInput = {
    scenario: scenario(r.id),
    card: r.card,
    profile: r.profile,
    intent: r.intent,
    events,
    tasks: ledgerOf(events),
    claims: r.claims,
    outcome: r.outcome.kind === 'timeout' ? { kind: 'timeout', deadlineMs: r.deadlineMs } : { kind: 'reported' },
  };
  return grade(input);
}
const check = (g: ReturnType<typeof grade>, rule: string) => g.checks.find((c) => c.rule === rule)!.verdict;

describe('the oracle reads the wire, not the report', () => {
  it('grades a recorded transcript the same way twice (deterministic)', async () => {
    const r = await record('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    expect(regrade(r, r.transcript)).toEqual(regrade(r, r.transcript));
    expect(regrade(r, r.transcript).verdict).toBe(r.verdict);
  });

  it('NEG-LIVE-INPUT: without the minted task the check passes; with one added to the reference run it fails', async () => {
    const bad = await record('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    expect(check(regrade(bad, bad.transcript), 'NEG-LIVE-INPUT')).toBe('FAIL');
    expect(check(regrade(bad, bad.transcript.filter((e) => e.kind !== 'task')), 'NEG-LIVE-INPUT')).toBe('PASS');

    const good = await record('reference', 'neg-live-input/live-audio-to-batch-peer');
    expect(check(regrade(good, good.transcript), 'NEG-LIVE-INPUT')).toBe('PASS');
    const minted: WireEvent = { seq: 99, t: 1, kind: 'task', taskId: 't-x', state: 'TASK_STATE_INPUT_REQUIRED', cause: 'minted' };
    expect(check(regrade(good, [...good.transcript, minted]), 'NEG-LIVE-INPUT')).toBe('FAIL');
  });

  it('NEG-PUSH-MTLS: a push registration added to the reference run fails it; without it the stall of the mutant is still graded', async () => {
    const good = await record('reference', 'neg-push-mtls/https-receiver-wants-push');
    expect(check(regrade(good, good.transcript), 'NEG-PUSH-MTLS')).toBe('PASS');
    const taskId = good.ledger[0]!.id;
    const reg: WireEvent = { seq: 98, t: 1, kind: 'push-register', taskId, url: 'https://127.0.0.1:9/push', via: 'inline', requestSeq: 3 };
    expect(check(regrade(good, [...good.transcript, reg]), 'NEG-PUSH-MTLS')).toBe('FAIL');

    const bad = await record('naive:registers-unusable-push', 'neg-push-mtls/https-receiver-wants-push');
    expect(check(regrade(bad, bad.transcript), 'NEG-PUSH-MTLS')).toBe('FAIL');
    // Without the registration the stall remains, so the check still does not pass: the harm is graded too.
    expect(check(regrade(bad, bad.transcript.filter((e) => e.kind !== 'push-register')), 'NEG-PUSH-MTLS')).toBe('TIMEOUT');
  });

  it('WIRE-NO-BLIND-RETRY: the repeated frame removed passes; a refused frame repeated in the reference run fails', async () => {
    const bad = await record('naive:retries-blindly', 'neg-live-input/no-signal-card-claims-streaming');
    expect(check(regrade(bad, bad.transcript), 'WIRE-NO-BLIND-RETRY')).toBe('FAIL');
    const failing = bad.transcript.filter((e) => e.kind === 'http' && e.status === 415);
    expect(failing.length).toBe(2);
    expect(check(regrade(bad, bad.transcript.filter((e) => e !== failing[1])), 'WIRE-NO-BLIND-RETRY')).toBe('PASS');

    const good = await record('reference', 'neg-live-input/no-signal-card-claims-streaming');
    expect(check(regrade(good, good.transcript), 'WIRE-NO-BLIND-RETRY')).toBe('PASS');
    const refused = good.transcript.find((e) => e.kind === 'http' && e.status === 415)!;
    expect(check(regrade(good, [...good.transcript, { ...refused, seq: 97 }]), 'WIRE-NO-BLIND-RETRY')).toBe('FAIL');
  });

  it('WIRE-NO-ORPHANS: a cancel added to the abandoned task passes; the cancel removed from the reference run fails', async () => {
    const bad = await record('naive:never-cancels', 'neg-live-input/no-signal-card-claims-streaming');
    expect(check(regrade(bad, bad.transcript), 'WIRE-NO-ORPHANS')).toBe('FAIL');
    const cancel: WireEvent = { seq: 96, t: 1, kind: 'task', taskId: bad.ledger[0]!.id, state: 'TASK_STATE_CANCELED', cause: 'canceled' };
    expect(check(regrade(bad, [...bad.transcript, cancel]), 'WIRE-NO-ORPHANS')).toBe('PASS');

    const good = await record('reference', 'neg-live-input/no-signal-card-claims-streaming');
    expect(check(regrade(good, good.transcript), 'WIRE-NO-ORPHANS')).toBe('PASS');
    const withoutCancel = good.transcript.filter((e) => !(e.kind === 'task' && e.cause === 'canceled'));
    expect(check(regrade(good, withoutCancel), 'WIRE-NO-ORPHANS')).toBe('FAIL');
  });

  it('SPEC-TLS-VERIFY: a request over the bad certificate added to the reference run fails; removed again it passes; no attempt at all is no pass', async () => {
    const bad = await record('naive:skips-tls-verify', 'spec-tls-verify/expired');
    expect(check(regrade(bad, bad.transcript), 'SPEC-TLS-VERIFY')).toBe('FAIL');

    const good = await record('reference', 'spec-tls-verify/expired');
    expect(check(regrade(good, good.transcript), 'SPEC-TLS-VERIFY')).toBe('PASS');
    const req: WireEvent = { ...bad.transcript.find((e) => e.kind === 'http')!, seq: 95 };
    const withRequest = [...good.transcript, req];
    expect(check(regrade(good, withRequest), 'SPEC-TLS-VERIFY')).toBe('FAIL');
    expect(check(regrade(good, withRequest.filter((e) => e !== req)), 'SPEC-TLS-VERIFY')).toBe('PASS');
    // A client that never even tried is not shown to verify anything.
    expect(check(regrade(good, []), 'SPEC-TLS-VERIFY')).toBe('FAIL');
  });

  it('NEG-RESUB-ONLY-OUTPUT: a SubscribeToTask repeated after -32004 fails the reference-like run', async () => {
    const good = await record('reference', 'neg-resub-only/other-output-acceptable');
    expect(check(regrade(good, good.transcript), 'NEG-RESUB-ONLY-OUTPUT')).toBe('PASS');
    const sub = (seq: number): WireEvent => ({
      seq, t: 1, kind: 'http', listener: 'tls', origin: 'https://127.0.0.1:1', method: 'POST', path: '/t/x/rpc', headers: { a2aVersion: '1.0' },
      clientCert: { presented: false }, rpc: { method: 'SubscribeToTask', id: seq, params: { id: 't' } }, status: 200, rpcError: { code: -32004, message: 'unsupported' },
    });
    expect(check(regrade(good, [...good.transcript, sub(90)]), 'NEG-RESUB-ONLY-OUTPUT')).toBe('PASS');
    expect(check(regrade(good, [...good.transcript, sub(90), sub(91)]), 'NEG-RESUB-ONLY-OUTPUT')).toBe('FAIL');
  });

  it('NEG-ESCALATE: the escalation call removed fails; a task minted before it fails', async () => {
    const good = await record('reference', 'neg-escalate/known-extension');
    expect(check(regrade(good, good.transcript), 'NEG-ESCALATE')).toBe('PASS');
    expect(check(regrade(good, good.transcript.filter((e) => !(e.kind === 'http' && e.path.endsWith('/negotiate')))), 'NEG-ESCALATE')).toBe('FAIL');
    const minted: WireEvent = { seq: 0, t: 0, kind: 'task', taskId: 't-early', state: 'TASK_STATE_SUBMITTED', cause: 'minted' };
    expect(check(regrade(good, [minted, ...good.transcript]), 'NEG-ESCALATE')).toBe('FAIL');
  });

  it('SPEC-A2A-VERSION: a request without the header is NON_STRICT, never FAIL', async () => {
    const good = await record('reference', 'neg-live-input/text-task-on-audio-card');
    expect(check(regrade(good, good.transcript), 'SPEC-A2A-VERSION')).toBe('PASS');
    const stripped = good.transcript.map((e) => (e.kind === 'http' && e.rpc?.method === 'GetTask' ? { ...e, headers: { ...e.headers, a2aVersion: undefined } } : e));
    const g = regrade(good, stripped);
    expect(check(g, 'SPEC-A2A-VERSION')).toBe('NON_STRICT');
    expect(g.verdict).toBe('NON_STRICT');
    const wrong = good.transcript.map((e) => (e.kind === 'http' && e.rpc ? { ...e, headers: { ...e.headers, a2aVersion: '0.3' } } : e));
    expect(check(regrade(good, wrong), 'SPEC-A2A-VERSION')).toBe('NON_STRICT');
  });

  it('NEG-PUSH-MTLS: a client that cancels at once is not "driven to terminal"', async () => {
    const good = await record('reference', 'neg-push-mtls/https-receiver-wants-push');
    const taskId = good.ledger[0]!.id;
    const early = good.transcript.filter((e) => !(e.kind === 'task' && e.state === 'TASK_STATE_COMPLETED') && !(e.kind === 'http' && e.taskState === 'TASK_STATE_COMPLETED'));
    const cancel: WireEvent = { seq: 94, t: 1, kind: 'task', taskId, state: 'TASK_STATE_CANCELED', cause: 'canceled' };
    expect(check(regrade(good, [...early, cancel]), 'NEG-PUSH-MTLS')).toBe('FAIL');
  });

  it('NEG-LIVE-INPUT: a card that says no streaming over a runtime that takes frames does not make the card-following rejection a FAIL', async () => {
    const s = scenario('neg-live-input/live-audio-to-batch-peer');
    const r = await record('reference', s.id);
    const input: GradeInput = {
      scenario: { ...s, peer: { ...s.peer, runtime: { ...s.peer.runtime, input: { ...s.peer.runtime.input!, acceptsFrames: true } } } },
      card: r.card, profile: r.profile, intent: r.intent, events: r.transcript, tasks: r.ledger, claims: r.claims, outcome: { kind: 'reported' },
    };
    expect(check(grade(input), 'NEG-LIVE-INPUT')).toBe('INFORMATIONAL');
  });

  it('the client\'s own words never pass a binding rule: a lying report is caught by WIRE-HONEST-REPORT', async () => {
    const bad = await record('naive:streams-live-audio', 'neg-live-input/live-audio-to-batch-peer');
    const liar = { ...bad, claims: { decision: 'rejected' as const, errorClass: 'unnegotiable-card' as const, degradations: [], taskIds: [] } };
    const g = regrade(liar, bad.transcript);
    expect(check(g, 'NEG-LIVE-INPUT')).toBe('FAIL');
    expect(check(g, 'WIRE-HONEST-REPORT')).toBe('FAIL');
    expect(check(g, 'WIRE-NO-TASK-AFTER-REJECT')).toBe('FAIL');
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
