/**
 * Real runs over TLS, graded again on an edited transcript: a case that needs events no built-in
 * client makes starts from what a real client did. One in-process harness per client, closed after the file.
 */
import { afterAll } from 'vitest';
import { grade, type GradeInput } from '../../harness/core/oracle/index.js';
import type { ScenarioResult } from '../../harness/core/results.js';
import type { WireEvent } from '../../harness/core/transcript.js';
import { startHarness, type InProcessHarness } from './harness.js';
import { ledgerOf } from './ledger.js';
import { scenario } from './scenarios.js';

export function recorder() {
  const harnesses = new Map<string, InProcessHarness>();
  afterAll(async () => {
    for (const h of harnesses.values()) await h.close();
  });
  async function record(client: string, id: string): Promise<ScenarioResult> {
    let h = harnesses.get(client);
    if (!h) {
      h = await startHarness(client);
      harnesses.set(client, h);
    }
    let r = await h.run(scenario(id));
    // A run whose verdict turns on two events the wire cannot order (basis `order`: a push and a poll that crossed, as
    // they do on a loaded machine) is graded conservatively and shows nothing these tests are about: sampled again, as a
    // run samples again a lagged run that crossed (harness/runner/judge/confirm.ts), until the wire orders the two.
    for (let i = 0; i < 5 && r.checks.some((c) => c.basis === 'order'); i++) r = await h.run(scenario(id));
    return r;
  }
  function regrade(r: ScenarioResult, events: WireEvent[], as: { id?: string; claims?: ScenarioResult['claims'] } = {}) {
    const s = scenario(as.id ?? r.id);
    const input: GradeInput = {
      scenario: s,
      card: r.card,
      profile: r.profile,
      intent: s.intent,
      events,
      tasks: ledgerOf(events),
      claims: as.claims === undefined ? r.claims : as.claims,
      // As the runner has it: the decision event says how the run ended (an edit may make it a timeout or a crash).
      outcome: outcomeOf(events, s.deadlineMs),
    };
    return grade(input);
  }
  function outcomeOf(events: WireEvent[], deadlineMs: number): GradeInput['outcome'] {
    const d = events.find((e) => e.kind === 'decision');
    if (d?.kind === 'decision' && d.outcome === 'timeout') return { kind: 'timeout', deadlineMs };
    if (d?.kind === 'decision' && d.outcome === 'crashed') return { kind: 'crashed', reason: 'the edited run crashed' };
    return { kind: 'reported' };
  }
  const checkOf = (r: { checks: ScenarioResult['checks'] }, rule: string) => r.checks.find((c) => c.rule === rule)!;
  return { record, regrade, checkOf };
}
