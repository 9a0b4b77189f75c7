/**
 * Clients nobody on the harness team wrote the rules for: the real @a2a-js/sdk 1.3.0 and 0.3.14 (the
 * python3 shim is test/clients.test.ts's). Both run end to end; their verdicts must match what the
 * README publishes.
 */
import { describe, expect, it } from 'vitest';
import { runInProcess } from './helpers/results.js';
import { publishedVerdicts, verdicts } from './helpers/readme.js';


describe('@a2a-js/sdk under test (the README tables are written by bench/scenario-table.mjs from CLI runs)', () => {
  it('@a2a-js/sdk 1.3.0 runs through every scenario; its results are the README\'s', { timeout: 120_000 }, async () => {
    const r = { results: await runInProcess('a2a-js-sdk') };
    expect(r.results.summary.ERROR).toBe(0);
    expect(verdicts(r.results)).toEqual(publishedVerdicts('README.md', 'sdk'));
  });

  it('@a2a-js/sdk 0.3.14 runs through every scenario for a v0.3 client; its results are the README\'s, and it is PASSed nowhere it never reached the peer\'s dialect', { timeout: 120_000 }, async () => {
    const r = await runInProcess('a2a-js-sdk@0.3');
    expect(r.summary.ERROR).toBe(0);
    expect(verdicts(r)).toEqual(publishedVerdicts('README.md', 'sdk03'));
    for (const x of r.results.filter((x) => x.verdict === 'PASS' && x.outcome.kind === 'reported'))
      // A PASS either declined after reading the card, or spoke the peer's dialect on the wire.
      expect(x.claims?.decision === 'rejected' || x.transcript.some((e) => e.kind === 'http' && !!e.rpc?.wireMethod), x.id).toBe(true);
  });
});
