/**
 * Every naive mutant is caught by the rule it declares, end to end over real TLS in child processes.
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_CLIENTS } from '../clients/index.js';
import { cliRun, resultsValidator } from './helpers/cli.js';

describe('naive mutants', () => {
  const mutants = BUILTIN_CLIENTS.filter((c) => c.caughtBy);
  it('has a mutant per mistake, each naming the rule that must catch it', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(6);
  });

  it('every naive mutant exits 1 with a FAIL or TIMEOUT from the rule it declares, citing transcript sequence numbers', { timeout: 400_000 }, async () => {
    const pending = [...mutants];
    const validate = resultsValidator();
    const failures: string[] = [];
    // Two child runs at a time: the machine has two cores.
    await Promise.all(
      [0, 1].map(async () => {
        for (let m = pending.shift(); m; m = pending.shift()) {
          const r = await cliRun(['--client', m.name]);
          if (!validate(r.results)) failures.push(`${m.name}: results.json does not follow the schema: ${JSON.stringify(validate.errors)}`);
          const caught = r.results.results.flatMap((x) => x.checks.filter((c) => c.rule === m.caughtBy && (c.verdict === 'FAIL' || c.verdict === 'TIMEOUT')));
          if (r.code !== 1) failures.push(`${m.name}: exit ${r.code}`);
          if (caught.length === 0) failures.push(`${m.name}: no FAIL/TIMEOUT from ${m.caughtBy}`);
          else if (!caught.some((c) => c.evidence.some((e) => typeof e.seq === 'number'))) failures.push(`${m.name}: ${m.caughtBy} cites no sequence number`);
        }
      }),
    );
    expect(failures).toEqual([]);
  });

  it('over-rejection variants: PASS for the reference, FAIL for naive:rejects-whole-card', async () => {
    const r = await cliRun(['--client', 'naive:rejects-whole-card', '--rule', 'NEG-LIVE-INPUT']);
    const v = Object.fromEntries(r.results.results.map((x) => [x.id, x.verdict]));
    expect(v['neg-live-input/text-task-on-audio-card']).toBe('FAIL');
    expect(v['neg-live-input/bufferable-audio']).toBe('FAIL');
    expect(r.code).toBe(1);
  });
});
