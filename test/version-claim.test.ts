/**
 * A card that claims a version its endpoint does not speak (runtime.speaks): the peer serves the
 * other dialect at the interface the card declares, and SPEC-INTERFACE-SELECTION grades what the
 * client does after the first call's refusal. Bare requests show the peer; real runs and edited
 * transcripts show the grading.
 */
import { describe, expect, it } from 'vitest';
import type { HttpEvent } from '../harness/core/transcript.js';
import { bareRpc, rpcUrlOf, sharedPeer } from './helpers/peer.js';
import { recorder } from './helpers/regrade.js';
import { scenario } from './helpers/scenarios.js';
import { untellable } from '../harness/core/card-binding.js';

const { record, regrade, checkOf } = recorder();
const V1_CLAIM = 'dialect/claims-1.0-speaks-0.3';
const V03_CLAIM = 'dialect/claims-0.3-speaks-1.0';
const rpcs = (events: readonly { kind: string }[]) => events.filter((e): e is HttpEvent => e.kind === 'http' && !!(e as HttpEvent).rpc);
const message = (text: string) => ({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] } });
const message03 = (text: string) => ({ message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }] } });

describe('the peer: the interface the card declares speaks the other dialect', () => {
  const shared = sharedPeer();

  it('a card that declares 1.0 over a v0.3 endpoint: SendMessage gets -32601, message/send mints a task', async () => {
    const run = shared.fx.start(scenario(V1_CLAIM).peer);
    const url = rpcUrlOf(run.peer.card);
    expect((run.peer.card.supportedInterfaces as Array<{ protocolVersion: string }>)[0]!.protocolVersion).toBe('1.0');
    expect((await bareRpc(shared.agent, url, 'SendMessage', message('hi'))).json?.error?.code).toBe(-32601);
    const sent = await bareRpc(shared.agent, url, 'message/send', message03('hi'), { 'a2a-version': '' });
    run.end();
    expect(sent.json?.result).toMatchObject({ kind: 'task' });
    expect(run.ledger.snapshot()).toHaveLength(1);
  });

  it('a v0.3 card over a v1.0 endpoint: message/send without A2A-Version gets -32009 (read as 0.3), SendMessage at 1.0 mints a task', async () => {
    const run = shared.fx.start(scenario(V03_CLAIM).peer);
    const url = String(run.peer.card.url);
    expect(run.peer.card.protocolVersion).toBe('0.3.0');
    expect((await bareRpc(shared.agent, url, 'message/send', message03('hi'), { 'a2a-version': '' })).json?.error?.code).toBe(-32009);
    const sent = await bareRpc(shared.agent, url, 'SendMessage', message('hi'));
    run.end();
    expect(sent.json?.result?.task?.id).toEqual(expect.any(String));
    expect(run.ledger.snapshot()).toHaveLength(1);
  });
});

describe('SPEC-INTERFACE-SELECTION on a card whose version claim is false', () => {
  it('the reference calls the declared interface, hears the refusal, and reports it with no task: PASS on both; the refusal is the evidence', {
    timeout: 60_000,
  }, async () => {
    for (const id of [V1_CLAIM, V03_CLAIM]) {
      const r = await record('reference', id);
      const c = checkOf(r, 'SPEC-INTERFACE-SELECTION');
      expect(r.verdict, id).toBe('PASS');
      expect(c.reason, id).toMatch(/refused #\d+ \((-32601|-32009)\), and the client reported it \(rejected\) with no task minted/);
      const [call] = rpcs(r.transcript);
      expect(
        c.evidence.map((e) => e.seq),
        id,
      ).toContain(call!.seq);
      expect(r.ledger, id).toEqual([]);
    }
  });

  it('a success reported from the refusal alone is harm; no report is left to WIRE-DEADLINE; declining before any call is credited once the card was read', {
    timeout: 60_000,
  }, async () => {
    const r = await record('reference', V1_CLAIM);
    const claimed = checkOf(regrade(r, r.transcript, { claims: { ...r.claims!, decision: 'proceeded' } }), 'SPEC-INTERFACE-SELECTION');
    expect([claimed.verdict, claimed.basis]).toEqual(['FAIL', 'harm']);
    expect(claimed.reason).toMatch(/reported proceeded, but #\d+ was refused and no task exists/);
    // The same run, the decision taken away: a timeout, which this rule leaves to WIRE-DEADLINE.
    const silent = r.transcript.map((e) => (e.kind === 'decision' ? { ...e, outcome: 'timeout' as const } : e));
    const timedOut = regrade(r, silent, { claims: undefined });
    expect(checkOf(timedOut, 'SPEC-INTERFACE-SELECTION').verdict).toBe('INFORMATIONAL');
    expect(checkOf(timedOut, 'WIRE-DEADLINE').verdict).toBe('TIMEOUT');
    // Declined before any call: the claim was never put to the test, the card was read.
    const noCall = r.transcript.filter((e) => !(e.kind === 'http' && (e as HttpEvent).rpc));
    expect(checkOf(regrade(r, noCall), 'SPEC-INTERFACE-SELECTION')).toMatchObject({
      verdict: 'PASS',
      reason: expect.stringMatching(/declined before any call/),
    });
    // No call, and a report of success: nothing is credited.
    expect(checkOf(regrade(r, noCall, { claims: { ...r.claims!, decision: 'proceeded' } }), 'SPEC-INTERFACE-SELECTION').verdict).toBe('FAIL');
    // The scenario is about its JSON-RPC interface: never told over another binding, where the card would tell the truth.
    expect(untellable(scenario(V1_CLAIM), 'HTTP+JSON')).toMatch(/runtime\.speaks/);
  });
});
