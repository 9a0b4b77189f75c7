/**
 * Levels that rest on their sentences (issue 23, item 3), each on a real run over TLS, edited only
 * where a case needs events no built-in client makes. A verdict never claims more than its source:
 * the level a check carries is the one its reason names, and a FAIL stays only where the wire
 * shows harm or a MUST-level miss.
 */
import { describe, expect, it } from 'vitest';
import type { HttpEvent, TaskEvent, WireEvent } from '../harness/core/transcript.js';
import { recorder } from './helpers/regrade.js';
import { scenario } from './helpers/scenarios.js';

const { record, regrade, checkOf } = recorder();

describe('HS-SKILL-OVERRIDE: seed level, graded by the skill the message names', () => {
  it('the card-default mode sent to the narrower skill it names: NON_STRICT at seed, not FAIL', async () => {
    const r = await record('naive:binds-blind-to-card-defaults', 'hs-skill-override/text-to-json-skill');
    expect(checkOf(r, 'HS-SKILL-OVERRIDE')).toMatchObject({ verdict: 'NON_STRICT', basis: 'up-front', level: 'field' });
    expect(checkOf(r, 'HS-SKILL-OVERRIDE').reason).not.toMatch(/MUST/);
  });

  it('the refused send repeated after -32005: FAIL (harm)', async () => {
    const r = await record('naive:binds-blind-to-card-defaults', 'hs-skill-override/text-to-json-skill');
    const refused = r.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.rpcError?.code === -32005)!;
    expect(refused).toBeDefined();
    const again = { ...refused, seq: refused.seq + 0.5, t: refused.t + 1 };
    expect(
      checkOf(
        regrade(
          r,
          [...r.transcript, again].sort((a, b) => a.seq - b.seq),
        ),
        'HS-SKILL-OVERRIDE',
      ),
    ).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
  });

  it('told in v0.3, the same miss says it extends the handshake duties and grades at convention', async () => {
    // The reference's v0.3 run that sends JSON to the skill, its send turned into the card-default text/plain.
    const r = await record('reference', 'hs-skill-override/json-to-json-skill.v03');
    const text = r.transcript.map((e) => (e.kind === 'http' && e.rpc?.method === 'SendMessage' ? { ...e, partTypes: ['text/plain'] } : e));
    expect(text.some((e) => e.kind === 'http' && e.skillId === 'intake')).toBe(true);
    const c = checkOf(regrade(r, text, { id: 'hs-skill-override/text-to-json-skill.v03' }), 'HS-SKILL-OVERRIDE');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'convention' });
    expect(c.reason).toMatch(/the handshake duties of docs\/duties\.md \(§8 to §11\) come from A2A v1\.0 delegation/);
    expect(scenario('hs-skill-override/text-to-json-skill.v03').spec).toMatch(/extends them to v0\.3, at level convention/);
  });

  it("a message that names no skill, in a default mode, routed by the runtime to the narrower skill: not the client's miss", async () => {
    const r = await record('a2a-js-sdk', 'hs-skill-override/text-to-json-skill');
    const send = r.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'SendMessage')!;
    expect(send.skillId).toBeUndefined();
    expect(send.routedSkill).toBe('intake');
    expect(checkOf(r, 'HS-SKILL-OVERRIDE').verdict).toBe('INFORMATIONAL');
    expect(r.verdict).not.toBe('FAIL');
    // The same send naming the skill is the client's aim: graded as the miss it is.
    const named = r.transcript.map((e) => (e === send ? { ...send, skillId: 'intake', routedSkill: undefined } : e));
    expect(checkOf(regrade(r, named), 'HS-SKILL-OVERRIDE').verdict).toBe('NON_STRICT');
  });
});

describe('SPEC-INTERFACE-SELECTION: a client that speaks only v0.3 is graded by v0.3.0 §5.6.3', () => {
  it.each(['dialect/both-offered-v1-first', 'dialect/both-offered-v03-client'])(
    '%s: the real @a2a-js/sdk 0.3 declines a card in v1.0 format: PASS, not over-rejection',
    async (id) => {
      const r = await record('a2a-js-sdk@0.3', id);
      expect(checkOf(r, 'SPEC-INTERFACE-SELECTION')).toMatchObject({ verdict: 'PASS' });
      expect(checkOf(r, 'SPEC-INTERFACE-SELECTION').reason).toMatch(/v0\.3\.0 §5\.6\.3/);
    },
  );

  it('the reference, speaking only v0.3, proceeds on the 0.3 interface: PASS; a call to the 1.0 URL instead is a MUST-level miss', async () => {
    const r = await record('reference', 'dialect/both-offered-v03-client');
    expect(checkOf(r, 'SPEC-INTERFACE-SELECTION').verdict).toBe('PASS');
    const card = r.card as { supportedInterfaces: Array<{ url: string }> };
    const v1 = new URL(card.supportedInterfaces[0]!.url);
    const moved = r.transcript.map((e) => (e.kind === 'http' && e.rpc ? { ...e, origin: v1.origin, path: v1.pathname } : e));
    expect(checkOf(regrade(r, moved), 'SPEC-INTERFACE-SELECTION')).toMatchObject({ verdict: 'FAIL', level: 'MUST' });
  });
});

describe('SPEC-INTERFACE-SELECTION: the choice among bindings', () => {
  it('a call elsewhere than the first interface is a MUST miss; a switch after the selected one failed is a convention (§8.3.2 names no fallback)', async () => {
    const r = await record('reference', 'interface/first-busy-once');
    expect(checkOf(r, 'SPEC-INTERFACE-SELECTION').verdict).toBe('PASS');
    const card = r.card as { supportedInterfaces: Array<{ url: string }> };
    const jsonRpc = new URL(card.supportedInterfaces[1]!.url);
    const calls = r.transcript.filter((e): e is HttpEvent => e.kind === 'http' && !!e.rpc);
    const busy = calls.find((e) => e.status === 503)!;
    expect(busy).toBeDefined();
    // The same wire, but the call after the 503 went to the JSON-RPC interface: a switch.
    const after = calls.find((e) => e.seq > busy.seq)!;
    const moved = (target: HttpEvent) =>
      r.transcript.map((e) =>
        e === target ? { ...target, binding: 'JSONRPC' as const, interfaceUrl: jsonRpc.href, origin: jsonRpc.origin, path: jsonRpc.pathname } : e,
      );
    expect(checkOf(regrade(r, moved(after)), 'SPEC-INTERFACE-SELECTION')).toMatchObject({ verdict: 'NON_STRICT', level: 'convention' });
    // The first call on the JSON-RPC interface, nothing failed before: the card's order ignored.
    expect(checkOf(regrade(r, moved(calls[0]!)), 'SPEC-INTERFACE-SELECTION')).toMatchObject({ verdict: 'FAIL', level: 'MUST' });
  });
});

describe('HS-CHALLENGE-SCHEME: an over-rejection cites §7.3', () => {
  it('declining a card whose scheme the client can meet: FAIL over-rejection, citing §7.3, not the unlisted-scheme sentence', async () => {
    // The reference's run, cut after it read the card, and a rejection reported: no client here declines this card.
    const r = await record('reference', 'hs-challenge/listed-not-required');
    const card = r.transcript.find((e) => e.kind === 'http' && e.method === 'GET' && e.path.endsWith('agent-card.json'))!;
    const cut = r.transcript.filter((e) => e.seq <= card.seq);
    const c = checkOf(regrade(r, cut, { claims: { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds: [] } }), 'HS-CHALLENGE-SCHEME');
    expect(c).toMatchObject({ verdict: 'FAIL', basis: 'over-rejection' });
    expect(c.cites?.map((x) => `${x.doc} §${x.section}`)).toEqual(['A2A v1.0.1 §7.3', 'A2A v1.0.1 §7.3']);
    expect(c.reason).toMatch(/§7\.3/);
  });
});

describe('the signature rules: the level a reason names is the one results.json records', () => {
  it.each([
    ['naive:trusts-any-jku', 'trust-jku/own-origin', 'TRUST-UNTRUSTED-JKU', 'security'],
    ['naive:skips-signature-verification', 'trust-kid/not-yet-valid', 'TRUST-UNKNOWN-KID', 'security'],
    ['naive:skips-signature-verification', 'trust-kid/expired', 'TRUST-UNKNOWN-KID', 'MUST'],
  ])('%s on %s: %s FAIL at %s', async (client, id, rule, level) => {
    const r = await record(client, id);
    const c = checkOf(r, rule);
    expect(c).toMatchObject({ verdict: 'FAIL', basis: 'up-front', level });
    if (level !== 'MUST') expect(c.reason).not.toMatch(/\bMUST\b/);
    if (rule === 'TRUST-UNTRUSTED-JKU') expect(c.reason).toMatch(/trust anchors \(docs\/protocol\.md/);
  });
});

describe('TRUST-NO-RETRY-ON-DECODE: harm is what accumulates', () => {
  /** The naive client's run on the drifting runtime, cut after its first re-send, with cancels where a case needs them. */
  async function oneResend(cancelSecond: boolean) {
    const r = await record('naive:retries-on-decode', 'trust-decode/drift');
    const sends = r.transcript.filter((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'SendMessage');
    expect(sends.length).toBeGreaterThanOrEqual(3);
    const [first, second, third] = sends as [HttpEvent, HttpEvent, HttpEvent];
    const cancel = (task: string, seq: number): WireEvent[] => [
      {
        ...first,
        seq,
        rpc: { method: 'CancelTask', id: 9, params: { id: task } },
        taskId: task,
        paramsDigest: `cancel-${task}`,
        reply: undefined,
        taskState: 'TASK_STATE_CANCELED',
      } as HttpEvent,
      { kind: 'task', seq: seq + 0.1, t: first.t, taskId: task, state: 'TASK_STATE_CANCELED', cause: 'canceled', requestSeq: seq } as TaskEvent,
    ];
    const kept = r.transcript.filter((e) => e.seq < third.seq && !(e.kind === 'task' && e.state === 'TASK_STATE_CANCELED'));
    return {
      r,
      events: [...kept, ...cancel(first.taskId!, second.seq - 0.5), ...(cancelSecond ? cancel(second.taskId!, third.seq - 0.5) : [])].sort(
        (a, b) => a.seq - b.seq,
      ),
    };
  }

  it('re-sent without end (three tasks for one intent): FAIL (harm)', async () => {
    const r = await record('naive:retries-on-decode', 'trust-decode/drift');
    expect(checkOf(r, 'TRUST-NO-RETRY-ON-DECODE')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
  });

  it('one re-send after the client canceled the first task, nothing left working: NON_STRICT at seed, not harm', async () => {
    const { r, events } = await oneResend(true);
    expect(checkOf(regrade(r, events), 'TRUST-NO-RETRY-ON-DECODE')).toMatchObject({ verdict: 'NON_STRICT', level: 'field' });
  });

  it('one re-send after the earlier task ended by itself (not canceled by the client): the work done twice, FAIL (harm)', async () => {
    const { r, events } = await oneResend(true);
    // The first task's cancel becomes the runtime's own completion: the client never gave it up.
    const first = events.find((e) => e.kind === 'http' && e.rpc?.method === 'CancelTask') as HttpEvent;
    const ended = events
      .filter((e) => e !== first)
      .map((e) => (e.kind === 'task' && e.seq === first.seq + 0.1 ? ({ ...e, state: 'TASK_STATE_COMPLETED', cause: 'runtime' } as TaskEvent) : e));
    expect(checkOf(regrade(r, ended), 'TRUST-NO-RETRY-ON-DECODE')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
  });

  it('the same re-send with its task left working: FAIL (harm)', async () => {
    const { r, events } = await oneResend(false);
    expect(checkOf(regrade(r, events), 'TRUST-NO-RETRY-ON-DECODE')).toMatchObject({ verdict: 'FAIL', basis: 'harm' });
  });
});

describe('a contested canonical form (A2A #2122): refusing a sound signature the published readings disagree on is NON_STRICT', () => {
  it.each(['trust-canonical/empty-scope-requirement', 'trust-canonical/empty-capabilities'])(
    '%s: the reference verifies and completes; @a2a-js/sdk 1.3.0 refuses it, NON_STRICT naming the divergence',
    async (id) => {
      expect((await record('reference', id)).verdict).toBe('PASS');
      const r = await record('a2a-js-sdk', id);
      expect(r.verdict).toBe('NON_STRICT');
      const c = checkOf(r, 'TRUST-BAD-SIGNATURE');
      expect(c).toMatchObject({ verdict: 'NON_STRICT', basis: 'over-rejection' });
      expect(c.reason).toMatch(/A2A #2122/);
      // Without the JWKS fetch before its decision, nothing on the wire shows it verified: a plain over-rejection.
      const blind = r.transcript.filter((e) => !(e.kind === 'http' && e.path.includes('jwks')));
      expect(checkOf(regrade(r, blind), 'TRUST-BAD-SIGNATURE')).toMatchObject({ verdict: 'FAIL', basis: 'over-rejection' });
    },
  );

  it('the same refusal of a sound card the readings agree on is a FAIL (over-rejection)', async () => {
    const r = await record('reference', 'trust-signature/valid');
    const send = r.transcript.find((e) => e.kind === 'http' && !!e.rpc)!;
    const cut = r.transcript.filter((e) => e.seq < send.seq);
    expect(cut.some((e) => e.kind === 'http' && e.path.includes('jwks'))).toBe(true);
    const g = regrade(r, [...cut, { kind: 'decision', seq: send.seq, t: send.t, outcome: 'reported', decision: 'rejected' } as WireEvent], {
      claims: { decision: 'rejected', errorClass: 'untrusted-card', degradations: [], taskIds: [] },
    });
    expect(checkOf(g, 'TRUST-BAD-SIGNATURE')).toMatchObject({ verdict: 'FAIL', basis: 'over-rejection' });
  });
});
