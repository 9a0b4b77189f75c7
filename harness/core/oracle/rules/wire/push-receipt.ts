/**
 * PUSH-RECEIPT (wire): Genuine push deliveries are acknowledged with 2xx, and a duplicate does not make the client act twice.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * A genuine delivery the receiver answered with another status is a MUST miss (§4.3.3, §13.2). One
 * whose request went out whole and got no status at all (held past the dispatcher's wait, closed, an
 * unreadable answer) is a SHOULD miss of the test protocol's (docs/protocol.md): the MUST binds a
 * successful receipt, and silence does not say whether the receipt failed. A delivery that never
 * reached the receiver (no connection, a TLS failure the sender saw) is not graded here: NEG-PUSH-MTLS
 * and the cross-cutting rules read those. A duplicate is
 * the same delivery again: answering it otherwise, or making the same call again after it, is a
 * SHOULD miss (idempotent processing, §13.2).
 */
import type { HttpEvent, PushAttemptEvent } from '../../../transcript.js';
import { upFrontMissFails, type Level } from '../../../sources.js';
import { verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { pushRegistrations, rpcCalls } from '../../evidence.js';
import { namesTask, paramsName, reachableAt } from '../../knowledge.js';
import { binds, informational, met, notBinding, type RuleOf } from '../../rule.js';
import { ANSWER_IN_TIME, IDEMPOTENT, RECEIPT_2XX } from './push-shared.js';

/** The calls a client makes to act on a task (never a read): what a duplicate must not make it make twice. */
const ACTS = new Set(['SendMessage', 'SendStreamingMessage', 'CancelTask', 'CreateTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig']);

const ok = (a: PushAttemptEvent) => a.status !== undefined && a.status >= 200 && a.status < 300;

export const PUSH_RECEIPT: RuleOf<'PUSH-RECEIPT'> = {
  id: 'PUSH-RECEIPT',
  title: 'Genuine push deliveries are acknowledged with 2xx; a duplicate does not make the client act twice',
  family: 'wire',
  scope: 'own',
  sources: [RECEIPT_2XX, ANSWER_IN_TIME, IDEMPOTENT],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '4.3.3',
      quote: 'Agents MAY implement retry logic with exponential backoff for failed deliveries',
    },
    {
      doc: 'A2A v1.0.1',
      section: '4.3.3',
      quote: 'Agents SHOULD include a reasonable timeout for webhook requests (recommended: 10-30 seconds)',
    },
  ],
  grades: [
    {
      when: 'a genuine delivery (the config’s credentials, the task’s real state) answered with a status outside 2xx',
      verdict: 'FAIL (MUST, §4.3.3 and §13.2)',
    },
    {
      when: 'a duplicate of a genuine delivery answered otherwise than 2xx, or the same acting call on its task (a message, a cancel, a push config; messageId aside) made once per delivery, whatever the order in which the deliveries and the calls were recorded',
      verdict: 'NON_STRICT (SHOULD, §13.2: idempotent processing)',
    },
    {
      when: 'a genuine delivery whose request went out whole and got no status: held past the wait (10 s times --deadline-multiplier), the connection closed, or headers that could not be read',
      verdict: 'NON_STRICT (SHOULD, docs/protocol.md: silence hides whether the receipt succeeded, which the MUST binds)',
    },
    { when: 'every genuine delivery that reached the receiver answered 2xx, the duplicates with no second act', verdict: 'PASS' },
    { when: 'a delivery that never reached the receiver (no connection, a TLS failure the sender saw)', verdict: 'not graded here (recorded)' },
    {
      when: 'a delivery posted before any request of the client’s named its task (an inline config: the agent posts before SendMessage is answered), answered otherwise than 2xx or not at all',
      verdict: 'not graded (a receiver that checks task ids, as §4.3.3 asks, cannot know it yet)',
    },
  ],
  notBinding: ['the peer delivers no push', 'fire-and-forget', 'the client registered no push, or no genuine delivery reached its receiver'],
  applies(s) {
    if (!s.truth.runtime.push.supported) return notBinding('the peer delivers no push');
    if (s.intent.taskClass === 'fire-and-forget') return notBinding('fire-and-forget: no receiver to answer');
    return binds('every genuine delivery that reaches the client’s receiver must be acknowledged with 2xx', ['proceed', 'downgrade']);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const genuine = x.events.filter(
      (e): e is PushAttemptEvent =>
        e.kind === 'push-attempt' &&
        e.genuine !== false &&
        (e.status !== undefined || e.outcome === 'unanswered') &&
        (!e.forgery || e.forgery.startsWith('duplicate')),
    );
    if (genuine.length === 0)
      return informational(pushRegistrations(x).length === 0 ? 'the client registered no push' : 'no genuine delivery reached the client’s receiver');
    // A delivery posted before any request of the client's named its task (an inline config: the agent posts while
    // SendMessage is still unanswered) may be refused by a receiver that checks task ids, as §4.3.3 asks: not graded.
    const calls = rpcCalls(x);
    const early = (g: PushAttemptEvent) => {
      const known = calls.find((e) => paramsName(e, g.taskId))?.t;
      return known === undefined || reachableAt(g) < known;
    };
    const misses: Array<{ level: Level; ev: EvidenceRef; why: string }> = [];
    for (const a of genuine.filter((g) => !ok(g) && !early(g))) {
      const dup = !!a.forgery;
      if (a.status === undefined) {
        misses.push({
          level: dup ? IDEMPOTENT.level : ANSWER_IN_TIME.level,
          ev: wireEvidence(
            a.seq,
            `${dup ? 'a duplicate of a genuine' : 'genuine'} push of ${a.state} for task ${a.taskId}, never answered: ${a.error ?? a.unanswered}`,
          ),
          why: `${dup ? 'the duplicate' : 'the genuine'} delivery #${a.seq} (${a.state}) was never answered: ${a.error ?? a.unanswered}`,
        });
        continue;
      }
      misses.push({
        level: dup ? IDEMPOTENT.level : RECEIPT_2XX.level,
        ev: wireEvidence(a.seq, `${dup ? 'a duplicate of a genuine' : 'genuine'} push of ${a.state} for task ${a.taskId}, answered ${a.status}`),
        why: `${dup ? 'the duplicate' : 'the genuine'} delivery #${a.seq} (${a.state}) was answered ${a.status}, not 2xx`,
      });
    }
    // A duplicate that made the client act again: the same acting call on the task (method and params, messageId
    // aside) made once per delivery, counted from the original's post until the task's next genuine delivery. By
    // time, not by record: the original and its duplicate arrive almost together, and the act the original caused
    // may be recorded after the duplicate's post.
    const acts = calls.filter((e) => ACTS.has(e.rpc!.method) && e.paramsDigest);
    for (const dup of genuine.filter((g) => g.forgery && ok(g))) {
      const orig = genuine.find((g) => !g.forgery && g.taskId === dup.taskId && g.body?.digest === dup.body?.digest && g.seq < dup.seq);
      if (!orig) continue;
      const next = genuine.find((g) => !g.forgery && g.taskId === dup.taskId && reachableAt(g) > reachableAt(orig) && g.body?.digest !== orig.body?.digest);
      const window = acts.filter((e) => e.t >= reachableAt(orig) && (next === undefined || e.t < reachableAt(next)) && namesTask(e, dup.taskId));
      const same = new Map<string, HttpEvent[]>();
      for (const e of window) same.set(`${e.rpc!.method} ${e.paramsDigest}`, [...(same.get(`${e.rpc!.method} ${e.paramsDigest}`) ?? []), e]);
      const twice = [...same.values()].find((g) => g.length >= 2 && g[1]!.t >= reachableAt(dup));
      if (twice)
        misses.push({
          level: IDEMPOTENT.level,
          ev: wireEvidence(twice[1]!.seq, `${twice[1]!.rpc!.method} again, the same params as #${twice[0]!.seq}`),
          why: `the original delivery #${orig.seq} and its duplicate #${dup.seq} (${dup.state}) were each acted on: ${twice[0]!.rpc!.method} at #${twice[0]!.seq} and again at #${twice[1]!.seq}, the same call`,
        });
    }
    if (misses.length > 0) {
      const worst = misses.find((m) => upFrontMissFails(m.level)) ?? misses[0]!;
      return verdict(
        upFrontMissFails(worst.level) ? 'FAIL' : 'NON_STRICT',
        misses.map((m) => m.why).join('; '),
        misses.map((m) => m.ev),
        { basis: 'duty', level: worst.level },
      );
    }
    const graded = genuine.filter((g) => !early(g) || ok(g));
    const notGraded = genuine.filter((g) => early(g) && !ok(g));
    const dups = graded.filter((g) => g.forgery).length;
    return met(
      `${graded.length} genuine deliver${graded.length === 1 ? 'y' : 'ies'} answered 2xx${dups ? ` (${dups} duplicate${dups === 1 ? '' : 's'}, no second act)` : ''}${
        notGraded.length
          ? `; ${notGraded.map((g) => `#${g.seq} ${g.status !== undefined ? `answered ${g.status}` : 'never answered'}`).join(', ')} not graded: posted before a request of the client’s named the task`
          : ''
      }`,
      graded.slice(0, 4).map((a) => wireEvidence(a.seq, `push of ${a.state}${a.forgery ? ' (duplicate)' : ''}, answered ${a.status}`)),
    );
  },
};
