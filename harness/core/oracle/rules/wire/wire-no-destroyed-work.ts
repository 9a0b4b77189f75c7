/**
 * WIRE-NO-DESTROYED-WORK (wire): Work is not destroyed on a false alarm.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 *
 * Grade what the client does, not only what it reports (docs/rules.md, principle 6). A forged delivery, a refusal
 * that asked the client to wait, and a stream the peer ended early are not news of a task's end
 * (../../knowledge.ts). A client that cancels its healthy task on one of them, or starts the intent
 * again beside it, destroys or doubles work whatever it reports: harm, FAIL at every level. The rule
 * reads only acts the wire ties to such an alarm (one came after the task was minted, and no genuine
 * word since said the task had ended or waited for the client); a cancel on genuine news (an output it
 * cannot decode, a task waiting for input it does not have) is not this rule's.
 */
import { ledgerEvidence, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { alarms, cancelsOnAlarms, secondTasks, type Alarm } from '../../knowledge.js';
import { harm, informational, met, type RuleOf } from '../../rule.js';
import { always } from './shared.js';

const alarmEvidence = (a: Alarm): EvidenceRef => wireEvidence(a.seq, `${a.kind}: ${a.fact}`);
const an = (kind: string) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;

export const WIRE_NO_DESTROYED_WORK: RuleOf<'WIRE-NO-DESTROYED-WORK'> = {
  id: 'WIRE-NO-DESTROYED-WORK',
  title: 'No healthy task is canceled, and no second task started, on a forged delivery, a transient refusal, a stream that ended early or a lost answer',
  family: 'wire',
  scope: 'always',
  sources: [
    {
      doc: 'A2A v1.0.1',
      section: '3.5.2',
      quote: "The task lifecycle is independent of any individual stream's lifecycle",
      level: 'convention',
      role: 'harm',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.3.2',
      quote: 'Servers MAY include retry guidance (e.g., Retry-After header in HTTP)',
      level: 'convention',
      role: 'harm',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.3.1',
      quote: 'Send Message operations MAY be idempotent. Agents may utilize the messageId to detect duplicate messages.',
      level: 'convention',
      role: 'harm',
    },
  ],
  limits: [
    { doc: 'A2A v1.0.1', section: '13.2', quote: 'Clients MUST validate webhook authenticity using the provided authentication credentials' },
    { doc: 'A2A v1.0.1', section: '3.1.5', quote: 'Requests the cancellation of an ongoing task.' },
  ],
  grades: [
    {
      when: 'a CancelTask that canceled a task the ledger had submitted or working (on a runtime that ends its tasks on its own), after a forged delivery, a 429/503 with Retry-After it could have waited out, a stream the peer ended early or a lost answer, with no genuine word since that the task had ended or waited for the client',
      verdict: 'FAIL (harm: work destroyed; acting on a forgery is also PUSH-AUTHENTICITY’s MUST, §13.2)',
    },
    {
      when: 'a second task started for the intent (SendMessage or a stream, any messageId, configuration or metadata) after such an alarm or an answer the connection lost mid-way, while an earlier task was healthy and no genuine word of its end had reached the client',
      verdict: 'FAIL (harm: tasks multiplied for one intent; Send Message is only MAY-idempotent, §3.3.1)',
    },
    { when: 'alarms came, and the client acted on none of them', verdict: 'PASS' },
  ],
  notBinding: [
    'no forged delivery reached the receiver, no call was asked to wait, no stream ended early, no answer was lost: nothing to mistake for news (INFORMATIONAL)',
  ],
  applies: always,
  grade(_b, x) {
    const all = alarms(x);
    if (all.length === 0)
      return informational('no forged delivery, no refusal asking to wait, no stream ended early, no answer lost: nothing to mistake for news');
    const cancels = cancelsOnAlarms(x, all);
    if (cancels.length > 0) {
      const c = cancels[0]!;
      return harm(
        `the client canceled task ${c.task.id} at #${c.cancel.seq} while it was ${c.task.history.filter((h) => h.seq < c.cancel.seq).at(-1)?.state ?? 'working'}, on a runtime that would have ended it, after ${an(c.alarm.kind)} (#${c.alarm.seq}: ${c.alarm.fact}) and no genuine word since that the task had ended or waited for it: the alarm is no news of the task's end`,
        [
          alarmEvidence(c.alarm),
          wireEvidence(c.cancel.seq, `CancelTask of ${c.task.id}`),
          ledgerEvidence(c.task.mintedSeq, `task ${c.task.id}: ${c.task.state} in the end`),
        ],
      );
    }
    const again = secondTasks(x, all);
    if (again.length > 0) {
      const s = again[0]!;
      return harm(
        `a second task (${s.task.id}) was started for the intent at #${s.start.seq} by ${s.start.rpc!.method}, after ${an(s.alarm.kind)} (#${s.alarm.seq}: ${s.alarm.fact}), while task ${s.earlier.id} was going on with no word of its end`,
        [
          alarmEvidence(s.alarm),
          ledgerEvidence(s.earlier.mintedSeq, `task ${s.earlier.id}: ${s.earlier.state} in the end`),
          ledgerEvidence(s.task.mintedSeq, `task ${s.task.id} minted by #${s.start.seq}`),
        ],
      );
    }
    const kinds = [...new Set(all.map((a) => a.kind))];
    return met(
      `${all.length} false alarm(s) (${kinds.join(', ')}); the client canceled no healthy task and started no second task on them`,
      all.slice(0, 3).map(alarmEvidence),
    );
  },
};
