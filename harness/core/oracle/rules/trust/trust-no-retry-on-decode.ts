/**
 * TRUST-NO-RETRY-ON-DECODE (trust): An artifact the client cannot decode ends its task: never re-sent, the task canceled.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Source } from '../../../sources.js';
import { isTerminal } from '../../../transcript.js';
import { verdict, wireEvidence } from '../../../verdict.js';
import { outputModesFor, cardPointer } from '../../../protocol/card-view.js';
import { canceledByClient, cardReadEvidence, https, taskEvidence, wireTrail } from '../../evidence.js';
import { mustComplete } from '../../graders.js';
import { binds, informational, met, notBinding, signal, timeout, type RuleOf } from '../../rule.js';
import { SEED_ORPHANS, resends, trustHarm, decodable, unverified, undecodableSeen } from './shared.js';

const SEED_TERMINAL: Source = {
  doc: 'docs/duties.md',
  section: '7 Outputs the client cannot decode',
  quote: 'A media type the client cannot decode ends the attempt for this task: it is checked before sending, and never retried.',
  level: 'field',
};

export const TRUST_NO_RETRY_ON_DECODE: RuleOf<'TRUST-NO-RETRY-ON-DECODE'> = {
  id: 'TRUST-NO-RETRY-ON-DECODE',
  title: 'An artifact the client cannot decode ends its task: never re-sent, the task canceled',
  family: 'trust',
  scope: 'own',
  sources: [SEED_TERMINAL, SEED_ORPHANS],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.3.1', quote: 'Send Message operations MAY be idempotent. Agents may utilize the messageId to detect duplicate messages.' },
  ],
  grades: [
    {
      when: 'the same message re-sent after the decode failure more than once, or while an earlier task was still working (tasks accumulate, docs/duties.md §7)',
      verdict: 'FAIL (harm)',
    },
    { when: 'a task left working at the end', verdict: 'FAIL (harm)' },
    {
      when: 're-sent once, after the client had canceled the earlier task, and nothing left working: no task accumulated',
      verdict: 'NON_STRICT (field: the failure was treated as transient)',
    },
    {
      when: 're-sent, but the peer deduplicated it by messageId (§3.3.1): no harm here',
      verdict: 'NON_STRICT (field: the failure was still treated as transient)',
    },
    {
      when: 'one task, ended (canceled by the client, or terminal)',
      verdict: 'PASS (NON_STRICT where signed cards are required and no JWKS was fetched before the first send)',
    },
    { when: 'a runtime that emits what the card lists and the client decodes (the control): no task completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['a status-only consumer', 'a card whose own outputs are undecodable (TRUST-SIGNED-UNINTERPRETABLE grades it)'],
  applies(s) {
    const rt = s.truth.runtime;
    const emitted = rt.outputs.filter((o) => o.channel === 'task' && (o.skill === undefined || o.skill === s.intent.skillId)).map((o) => o.mediaType);
    const bad = emitted.filter((m) => !decodable(s.profile.mediaTypes, m));
    if (!s.profile.consumesArtifacts) return notBinding('a status-only consumer decodes no artifact');
    if (bad.length === 0) return binds('the runtime emits what the card lists and the client decodes: the intent must complete', ['proceed']);
    const offered = outputModesFor(s.card, s.intent.skillId);
    if (!offered.some((m) => decodable(s.profile.mediaTypes, m))) return notBinding('the card itself offers nothing decodable', 'TRUST-SIGNED-UNINTERPRETABLE');
    return binds(
      `the card lists ${offered.join(', ')}, but the runtime emits ${bad.join(', ')}, which the client cannot decode`,
      ['proceed'],
      [signal(s, cardPointer(s.card, 'defaultOutputModes'), 'field', 'looks decodable; the runtime drifts')],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.signals.length === 0) return trustHarm(x) ?? unverified(x, mustComplete(x, b.reason));
    const damage = trustHarm(x);
    if (damage) return damage;
    const { deduplicated } = resends(x);
    const seen = undecodableSeen(x);
    if (deduplicated.length > 0)
      return verdict(
        'NON_STRICT',
        `the message was re-sent ${deduplicated.length} time(s) after the decode failure; the peer deduplicated it by messageId, so no task was added here, but a peer without idempotency would have minted ${deduplicated.length + 1}`,
        [
          ...seen.slice(0, 1).map((e) => wireEvidence(e.seq, `shown ${e.type}, which the client cannot decode`)),
          ...deduplicated
            .slice(0, 3)
            .map((e) => wireEvidence(e.seq, `re-sent (messageId ${e.messageId ?? '?'}), deduplicated to ${e.taskId ?? 'the same task'}`)),
        ],
        { basis: 'up-front', level: 'field' },
      );
    if (x.tasks.length === 0) {
      if (x.outcome.kind === 'timeout') return timeout('no task and no decision by the deadline', wireTrail(x));
      return informational('no task was minted: nothing was decoded and nothing re-sent', cardReadEvidence(x));
    }
    if (x.outcome.kind === 'timeout' && x.tasks.some((t) => !isTerminal(t.state))) return timeout('the task was still open at the deadline', taskEvidence(x));
    const t = x.tasks[0]!;
    const cancel = canceledByClient(t, x) ? https(x).find((e) => e.rpc?.method === 'CancelTask' && e.taskId === t.id && !e.rpcError) : undefined;
    const count = x.tasks.length === 1 ? 'one task for the intent' : `${x.tasks.length} tasks, none of them a re-send after the decode failure, all ended`;
    return unverified(
      x,
      met(
        `${count}${seen[0] ? `; shown ${seen[0].type} at #${seen[0].seq}` : ''}; ${cancel ? `canceled at #${cancel.seq}` : `ended ${t.state}`}; not re-sent after it`,
        [...taskEvidence(x), ...(cancel ? [wireEvidence(cancel.seq, `CancelTask ${t.id}`)] : [])],
      ),
    );
  },
};
