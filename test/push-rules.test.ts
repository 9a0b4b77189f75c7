/**
 * The client as webhook receiver (issue 27): PUSH-AUTHENTICITY, PUSH-TASK-MATCH and PUSH-RECEIPT on
 * real runs over TLS (the forger posting to the client's own receiver), and on those runs edited
 * where a case needs a receiver no built-in client has (a duplicate refused, an act repeated). The
 * receiver's answer to a forged delivery is recorded, not graded; a verdict names the forged
 * delivery's sequence number and the decision it preceded.
 */
import { describe, expect, it } from 'vitest';
import { reachableAt } from '../harness/core/oracle/knowledge.js';
import { namesOtherTask, spoofsSender } from '../harness/core/oracle/rules/wire/push-shared.js';
import type { HttpEvent, PushAttemptEvent, WireEvent } from '../harness/core/transcript.js';
import { recorder } from './helpers/regrade.js';

const { record, regrade, checkOf } = recorder();
const attempts = (events: WireEvent[]) => events.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');

describe('PUSH-AUTHENTICITY (§13.2 MUST)', () => {
  it('a receiver that takes a forged COMPLETED and a client that believes it: FAIL at MUST, naming the forged delivery and the decision; the task was still working', async () => {
    const r = await record('naive:trusts-any-push', 'push-auth/no-credentials-completed');
    const c = checkOf(r, 'PUSH-AUTHENTICITY');
    // Said whole where it fails (once in a loaded run, not reproduced since): the reason and the wire in short.
    const wire = r.transcript.map((e) =>
      [e.seq, e.t, e.kind, e.kind === 'http' ? e.rpc?.method : '', 'state' in e ? e.state : '', 'outcome' in e ? e.outcome : ''].join(' '),
    );
    expect(c, `${c.reason}\n${wire.join('\n')}`).toMatchObject({ verdict: 'FAIL', basis: 'duty', level: 'MUST' });
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    expect(forged).toMatchObject({ forgery: 'credentials:none state:COMPLETED', outcome: 'delivered', status: 200 });
    expect(c.evidence.map((e) => e.seq)).toContain(forged.seq);
    expect(c.reason).toMatch(/the ledger had the task TASK_STATE_WORKING then/);
  });

  it('the reference refuses it (recorded, not graded) and follows its task to the real end: PASS; had its receiver answered 200 and ignored it, PASS all the same', async () => {
    const r = await record('reference', 'push-auth/no-credentials-completed');
    const c = checkOf(r, 'PUSH-AUTHENTICITY');
    expect(c.verdict).toBe('PASS');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    expect([401, 404]).toContain(forged.status);
    // The forged end came while the task worked: the runtime held the real end until it was attempted.
    const end = r.transcript.find((e) => e.kind === 'task' && e.state === 'TASK_STATE_COMPLETED')!;
    expect(forged.seq).toBeLessThan(end.seq);
    const taken = r.transcript.map((e) => (e === forged ? { ...forged, outcome: 'delivered' as const, status: 200 } : e));
    expect(checkOf(regrade(r, taken), 'PUSH-AUTHENTICITY').verdict).toBe('PASS');
  });

  it('only credentials make a forgery of them: another sender with the genuine ones is not (§13.2 names the credentials), nor is another task of the client’s own (a task "they created")', () => {
    expect(spoofsSender('state:COMPLETED from:other')).toBe(false);
    expect(spoofsSender('credentials:wrong state:FAILED from:other')).toBe(true);
    expect(spoofsSender('credentials:foreign state:COMPLETED')).toBe(true);
    expect(namesOtherTask('state:COMPLETED task:foreign')).toBe(true);
    expect(namesOtherTask('state:COMPLETED task:other-own')).toBe(false);
    expect(namesOtherTask('credentials:none state:COMPLETED task:foreign')).toBe(false);
  });

  it('a receiver that takes a forged end, acts on it and answers 500 is moved all the same: the status is recorded, not graded', async () => {
    // On a loaded machine the client's poll can reach the peer while the forgery is still on its way
    // (the harness lagged): the wire cannot then say which the client had last, and the check is
    // INFORMATIONAL, not FAIL. The premise of this case is a run where it is FAIL: one that did not lag,
    // looked for a few times.
    let r = await record('naive:trusts-any-push', 'push-auth/wrong-credentials-failed');
    for (let i = 0; i < 4 && checkOf(r, 'PUSH-AUTHENTICITY').verdict !== 'FAIL'; i++) {
      expect(r.lag?.lagged, checkOf(r, 'PUSH-AUTHENTICITY').reason).toBe(true);
      r = await record('naive:trusts-any-push', 'push-auth/wrong-credentials-failed');
    }
    const plain = checkOf(r, 'PUSH-AUTHENTICITY');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    const refusedAfter = r.transcript.map((e) => (e === forged ? { ...forged, outcome: 'http-error' as const, status: 500 } : e));
    // Whatever the interleaving, the receiver's answer changes nothing; where the run shows the act, FAIL at MUST.
    expect(checkOf(regrade(r, refusedAfter), 'PUSH-AUTHENTICITY')).toMatchObject({ verdict: plain.verdict, level: plain.level });
    if (!r.lag?.lagged) expect(plain).toMatchObject({ verdict: 'FAIL', level: 'MUST' });
  });

  it('a poll answered while the forgery was on its way crossed it: INFORMATIONAL at basis order (a lagged run is sampled again); a poll after the forgery was answered: INFORMATIONAL, not binding', async () => {
    let r = await record('naive:trusts-any-push', 'push-auth/wrong-credentials-failed');
    for (let i = 0; i < 4 && r.lag?.lagged; i++) r = await record('naive:trusts-any-push', 'push-auth/wrong-credentials-failed');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    const decision = r.transcript.find((e) => e.kind === 'decision')!;
    const poll = r.transcript.filter((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'GetTask' && e.seq < decision.seq).at(-1)!;
    // The forgery's connection up just before the poll arrived, its answer after: the two crossed.
    const crossedAt = r.transcript.map((e) => (e === forged ? { ...forged, openT: poll.t - 1, sentT: poll.t - 2, t: Math.max(forged.t, poll.t + 1) } : e));
    expect(checkOf(regrade(r, crossedAt), 'PUSH-AUTHENTICITY')).toMatchObject({ verdict: 'INFORMATIONAL', basis: 'order' });
    expect(checkOf(regrade(r, crossedAt), 'PUSH-AUTHENTICITY').reason).toContain('while the forgery was still on its way');
    // The forgery answered before the poll arrived: genuine word came after it, plainly.
    const before = r.transcript.map((e) => (e === forged ? { ...forged, openT: poll.t - 3, sentT: poll.t - 4, t: poll.t - 1 } : e));
    expect(checkOf(regrade(r, before), 'PUSH-AUTHENTICITY')).toMatchObject({ verdict: 'INFORMATIONAL', basis: 'not-binding' });
  });

  it('forgeries of two kinds reached the receiver: the wire cannot tell which moved the client, so the weaker duty grades it (SHOULD), and says so', async () => {
    const r = await record('naive:trusts-any-push', 'push-auth/no-credentials-completed');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    const foreign = { ...forged, seq: forged.seq - 0.5, taskId: 'task-never-created', forgery: 'state:COMPLETED task:foreign' };
    const both = [...r.transcript, foreign].sort((a, b) => a.seq - b.seq);
    const c = checkOf(regrade(r, both), 'PUSH-AUTHENTICITY');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD' });
    expect(c.reason).toMatch(/the wire cannot tell which the client believed/);
  });

  it('a forgery whose handshake took a while (a loaded machine): an answer the client had while it was under way is no news after it: FAIL all the same', async () => {
    const r = await record('naive:trusts-any-push', 'push-auth/no-credentials-completed');
    const forged = attempts(r.transcript).find((a) => a.genuine === false)!;
    const decision = r.transcript.find((e) => e.kind === 'decision')!;
    const poll = r.transcript.filter((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'GetTask' && e.seq < decision.seq).at(-1)!;
    expect(poll.t).toBeLessThanOrEqual(decision.t);
    // The post began before the last GetTask was answered; its connection was up only after it.
    const slow = { ...forged, sentT: Math.max(0, poll.t - 5), openT: poll.t + Math.floor((decision.t - poll.t) / 2) };
    const edited = r.transcript.map((e) => (e === forged ? slow : e));
    const c = checkOf(regrade(r, edited), 'PUSH-AUTHENTICITY');
    expect(c).toMatchObject({ verdict: 'FAIL', level: 'MUST' });
    expect(c.evidence.map((e) => e.seq)).toContain(forged.seq);
    // Read from when the post began (what a record without openT holds), the answer looks like news after the forgery.
    const { openT: _, ...began } = slow;
    const old = checkOf(
      regrade(
        r,
        r.transcript.map((e) => (e === forged ? began : e)),
      ),
      'PUSH-AUTHENTICITY',
    );
    expect(old.verdict).toBe('INFORMATIONAL');
    expect(old.reason).toMatch(/genuine word of task .* came after the forgery/);
  });

  it('a timeout is no decision a forgery moved: WIRE-DEADLINE grades it', async () => {
    const r = await record('naive:trusts-any-push', 'push-auth/no-credentials-completed');
    const timedOut = r.transcript.map((e) => (e.kind === 'decision' ? { ...e, outcome: 'timeout' as const } : e));
    expect(checkOf(regrade(r, timedOut), 'PUSH-AUTHENTICITY')).toMatchObject({ verdict: 'INFORMATIONAL' });
    expect(checkOf(regrade(r, timedOut), 'PUSH-AUTHENTICITY').reason).toMatch(/WIRE-DEADLINE/);
  });
});

describe('PUSH-TASK-MATCH (§13.2 SHOULD; §4.3.3 MUST for the same duty: the weaker binds)', () => {
  it('a client that takes another task’s COMPLETED for its own: NON_STRICT at SHOULD, both sentences named', async () => {
    const r = await record('naive:acts-on-foreign-task-push', 'push-task/foreign-task-completed');
    const c = checkOf(r, 'PUSH-TASK-MATCH');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', basis: 'duty', level: 'SHOULD' });
    expect(c.reason).toMatch(/§13\.2 SHOULD; §4\.3\.3 MUST: graded at the weaker/);
    const foreign = attempts(r.transcript).find((a) => a.forgery?.includes('task:foreign'))!;
    expect(c.evidence.map((e) => e.seq)).toContain(foreign.seq);
  });

  it('the reference takes the delivery (its credentials are genuine) and ignores it for its own task: PASS', async () => {
    const r = await record('reference', 'push-task/foreign-task-completed');
    expect(checkOf(r, 'PUSH-TASK-MATCH').verdict).toBe('PASS');
    expect(attempts(r.transcript).find((a) => a.forgery?.includes('task:foreign'))).toMatchObject({ status: 200 });
  });
});

describe('PUSH-RECEIPT (§4.3.3 and §13.2: MUST 2xx; SHOULD idempotent)', () => {
  it('genuine deliveries answered 500: FAIL at MUST, each named', async () => {
    const r = await record('naive:acks-push-with-error', 'push-receipt/genuine');
    const c = checkOf(r, 'PUSH-RECEIPT');
    expect(c).toMatchObject({ verdict: 'FAIL', basis: 'duty', level: 'MUST' });
    const genuine = attempts(r.transcript).filter((a) => a.genuine !== false && a.status === 500);
    expect(genuine.length).toBeGreaterThanOrEqual(1);
    expect(c.evidence.map((e) => e.seq)).toEqual(expect.arrayContaining(genuine.map((a) => a.seq)));
  });

  it('the reference answers the delivery and its duplicate 2xx: PASS; the duplicate refused, or the same act made again after it: NON_STRICT at SHOULD', async () => {
    const r = await record('reference', 'push-receipt/duplicate');
    expect(checkOf(r, 'PUSH-RECEIPT').verdict).toBe('PASS');
    const dup = attempts(r.transcript).find((a) => a.forgery === 'duplicate')!;
    expect(dup).toMatchObject({ genuine: true, status: 200 });
    const refused = r.transcript.map((e) => (e === dup ? { ...dup, outcome: 'http-error' as const, status: 409 } : e));
    expect(checkOf(regrade(r, refused), 'PUSH-RECEIPT')).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD' });
    // An acting call after the original delivery, and the same one again after the duplicate.
    const orig = attempts(r.transcript).find((a) => !a.forgery && a.body?.digest === dup.body?.digest)!;
    const call = r.transcript.find((e): e is HttpEvent => e.kind === 'http' && e.rpc?.method === 'SendMessage')!;
    const act = (seq: number, t: number): HttpEvent => ({ ...call, seq, t, rpc: { ...call.rpc!, method: 'CancelTask' }, paramsDigest: 'cafecafecafecafe' });
    const posted = (a: typeof dup) => reachableAt(a);
    const twice = [...r.transcript, act(orig.seq + 0.5, posted(orig) + 0.1), act(dup.seq + 0.5, posted(dup) + 0.1)].sort((a, b) => a.seq - b.seq);
    const c = checkOf(regrade(r, twice), 'PUSH-RECEIPT');
    expect(c).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD' });
    expect(c.reason).toMatch(/each acted on: CancelTask at #[\d.]+ and again at #[\d.]+/);
    // The original and its duplicate arrive almost together: both acts recorded after the duplicate's post, the first
    // before the duplicate's outcome was, still one act per delivery.
    const close = [...r.transcript, act(dup.seq - 0.25, posted(dup) + 0.1), act(dup.seq + 0.5, posted(dup) + 0.2)].sort((a, b) => a.seq - b.seq);
    expect(checkOf(regrade(r, close), 'PUSH-RECEIPT')).toMatchObject({ verdict: 'NON_STRICT', level: 'SHOULD' });
    // One act only: PASS.
    const once = [...r.transcript, act(dup.seq + 0.5, posted(dup) + 0.2)].sort((a, b) => a.seq - b.seq);
    expect(checkOf(regrade(r, once), 'PUSH-RECEIPT').verdict).toBe('PASS');
  });

  it('a delivery posted before any request of the client named its task (an inline config) is not graded: a receiver checking task ids cannot know it yet', async () => {
    const r = await record('naive:acks-push-with-error', 'push-receipt/genuine');
    // The same run as if the client had named its task only after every delivery.
    const late = r.transcript.map((e) => (e.kind === 'http' && e.rpc && e.seq > 2 ? { ...e, t: e.t + 60_000 } : e));
    const c = checkOf(regrade(r, late), 'PUSH-RECEIPT');
    expect(c.verdict).toBe('PASS');
    expect(c.reason).toMatch(/not graded: posted before a request of the client’s named the task/);
  });

  it('a polling client registers no receiver: INFORMATIONAL', async () => {
    const r = await record('reference', 'push-receipt/polling-client');
    expect(checkOf(r, 'PUSH-RECEIPT').verdict).toBe('INFORMATIONAL');
  });
});
