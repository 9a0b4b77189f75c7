/**
 * HS-SPLIT-ORIGIN (handshake): A card from another origin than the RPC is no signal of freshness: a cheap probe comes before the task, and a refusal is met on the surface that works.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Limit, Source } from '../../../sources.js';
import { wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { readCard, cardPointer } from '../../../protocol/card-view.js';
import { describeCall, failed, firstRealStart, probeReads, probeTasks, rpcCalls, startAttempts, type GradeInput } from '../../evidence.js';
import { mustProceed as proceedBinding } from '../../graders.js';
import { binds, informational, met, signal, upFrontMiss, type Binding, type RuleOf, type Situation } from '../../rule.js';
import { SEED_PROBE, SEED_NOT_ABORT, SEED_RESIDUAL, residual, complete } from './shared.js';

const SEED_SPLIT: Source = {
  doc: 'docs/duties.md',
  section: '11 A card from another origin',
  quote:
    "A card served from another origin than the agent's endpoint, such as a CDN, or cached across a redeploy, may be stale: a clean card from there is no evidence that the agent matches it.",
  level: 'field',
};

const CARD_REPLACEMENT: Source = {
  doc: 'A2A v1.0.1',
  section: '3.1.11',
  quote:
    "Clients retrieving this extended card SHOULD replace their cached public Agent Card with the content received from this endpoint for the duration of their authenticated session or until the card's version changes.",
  level: 'SHOULD',
};

const IDEMPOTENT_READS: Limit = {
  doc: 'A2A v1.0.1',
  section: '3.3.1',
  quote: 'Get operations (Get Task, List Tasks, Get Extended Agent Card) are naturally idempotent',
};

/** Evidence of the probes before a sequence number (or at all). */
function probeEvidence(x: GradeInput, before = Number.POSITIVE_INFINITY): EvidenceRef[] {
  const reads = probeReads(x).filter((e) => e.seq < before);
  const tasks = probeTasks(x).filter((t) => t.mintedSeq < before);
  return [
    ...reads.slice(0, 3).map((e) => wireEvidence(e.seq, `probe: ${describeCall(e)}`)),
    ...tasks.slice(0, 3).map((t) => wireEvidence(t.mintedSeq, `probe: task ${t.id} minted, then canceled by the client`)),
  ];
}

/** What the served card claims that the runtime no longer does (a redeploy the CDN's copy missed). */
function staleClaims(s: Situation): string[] {
  const rt = s.truth.runtime;
  const out: string[] = [];
  if (s.card.streaming === true && !rt.streaming) out.push('streaming');
  if (s.card.pushNotifications === true && !rt.push.supported) out.push('push notifications');
  return out;
}

const STREAM_METHODS = new Set(['SendStreamingMessage', 'SubscribeToTask']);

export const HS_SPLIT_ORIGIN: RuleOf<'HS-SPLIT-ORIGIN'> = {
  id: 'HS-SPLIT-ORIGIN',
  title:
    'A card from another origin than the RPC is no signal of freshness: a cheap probe comes before the task, and a refusal is met on the surface that works',
  family: 'handshake',
  scope: 'own',
  sources: [SEED_SPLIT, SEED_PROBE, SEED_NOT_ABORT, CARD_REPLACEMENT],
  limits: [
    IDEMPOTENT_READS,
    { doc: 'A2A v1.0.1', section: '3.1.11', quote: 'Retrieves a potentially more detailed version of the Agent Card after the client has authenticated.' },
    SEED_RESIDUAL,
  ],
  grades: [
    {
      when: 'a split origin: a probe (an idempotent read, or a task canceled before the next) before the first task, then the task completed on the surface that works',
      verdict: 'PASS',
    },
    { when: 'a split origin: the first task sent before any probe', verdict: 'NON_STRICT (field)' },
    { when: 'the extended card fetched, and a surface it leaves out used afterwards', verdict: 'NON_STRICT (§3.1.11 SHOULD replace the public card)' },
    { when: 'a stale card: the client stopped where polling works', verdict: 'NON_STRICT (field: not giving up, but using what card and agent both offer)' },
    { when: 'a fresh card on the split, or the card from the RPC origin itself: no task completed', verdict: 'FAIL (over-rejection)' },
  ],
  notBinding: ['the residual risk: a probe passes, a payload over a ceiling no field shows fails (INFORMATIONAL)'],
  applies(s) {
    const rt = s.truth.runtime;
    const res = residual(s);
    if (res) return res;
    if (rt.cardListener === rt.rpcListener)
      return proceedBinding(s, 'the card comes from the RPC origin itself: a clean card is a signal here; it must proceed, no probe needed', ['proceed']);
    const stale = staleClaims(s);
    return binds(
      `the card comes from the ${rt.cardListener} origin and the RPC from the ${rt.rpcListener} origin: a clean card from another origin is no signal of freshness${stale.length ? `; this one is stale (it still offers ${stale.join(', ')})` : ' (this one is fresh)'}`,
      stale.length ? ['downgrade'] : ['proceed', 'downgrade'],
      [signal(s, cardPointer(s.card, 'rpcUrl'), 'field', 'the RPC URL is on another origin than the card')],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const split = x.scenario.peer.runtime.cardListener !== x.scenario.peer.runtime.rpcListener;
    const done = complete(x, b.reason);
    if (!split) return done;
    const real = firstRealStart(x);
    const probes = probeEvidence(x, real?.seq);
    if (done.kind === 'TIMEOUT') return { ...done, evidence: [...done.evidence, ...probes] };
    if (done.kind !== 'PASS') {
      if (!b.acceptable.includes('proceed') && (done.basis === 'over-rejection' || done.basis === 'incomplete'))
        return upFrontMiss(
          this,
          b as Binding,
          `stopped although a working surface exists (polling): docs/duties.md §10: not to give up but to use what the card and the agent both offer`,
          [...done.evidence, ...probes],
        );
      return done;
    }
    const extended = rpcCalls(x).find((e) => e.rpc!.method === 'GetExtendedAgentCard' && !failed(e));
    if (extended) {
      const fresh = x.scenario.peer.runtime.extendedCard;
      const ignored = readCard(fresh ?? {}).streaming !== true ? rpcCalls(x).find((e) => e.seq > extended.seq && STREAM_METHODS.has(e.rpc!.method)) : undefined;
      if (ignored) {
        // §3.1.11's SHOULD ("replace their cached public Agent Card") decides this miss, not docs/duties.md.
        const replace: Binding = {
          ...(b as Binding),
          signals: [
            {
              pointer: cardPointer(readCard(x.card), 'extendedAgentCard'),
              level: 'SHOULD',
              note: 'the runtime serves its own card',
            },
          ],
        };
        return upFrontMiss(
          this,
          replace,
          `fetched the runtime's own card at #${extended.seq}, which offers no streaming, then called ${ignored.rpc!.method} at #${ignored.seq} from the public card`,
          [wireEvidence(extended.seq, "GetExtendedAgentCard → the runtime's card"), wireEvidence(ignored.seq, describeCall(ignored))],
        );
      }
    }
    if (probes.length === 0)
      return upFrontMiss(
        this,
        b as Binding,
        `the first attempt at the task was sent at #${real?.seq ?? '?'} before any probe (an idempotent read that was answered, or a task canceled before the next)`,
        [...(real ? [wireEvidence(real.seq, `first task: ${describeCall(real)}`)] : []), ...done.evidence],
      );
    const refusals = startAttempts(x).filter((e) => failed(e));
    return met(`probed before the first task, then completed${refusals.length ? ` after ${refusals.length} refusal(s), on the surface that works` : ''}`, [
      ...probes,
      ...refusals.slice(0, 2).map((e) => wireEvidence(e.seq, describeCall(e))),
      ...done.evidence,
    ]);
  },
};
