/**
 * Clients nobody on the harness team wrote the rules for: the real @a2a-js/sdk 1.3.0 and 0.3.14 (the
 * python3 shim is test/clients.test.ts's). Both run end to end as the CLI runs them (runConformance,
 * on lanes); their verdicts must be those their baselines pin (baselines/*.json, from which docs/clients/a2a-js-sdk.md renders its tables), and every body the peers sent them
 * is valid for its dialect (the other clients' are checked in test/full-runs.test.ts).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../harness/runner/engine/run.js';
import { BUILTIN_FILES } from './helpers/scenarios.js';
import { payloadProblems, V03_SCHEMA } from './helpers/payloads.js';
import { differences, matrixRowProblems, baselineVerdicts, verdicts } from './helpers/published.js';

describe('@a2a-js/sdk under test (its verdicts pinned in baselines/, from which docs/clients/a2a-js-sdk.md renders its tables)', () => {
  // 20–40 s and about 90 s on a quiet machine, 96 and 111 s beside eight busy loops: the bounds leave room past that.
  it("@a2a-js/sdk 1.3.0 runs through every scenario; its verdicts are its baseline's", { timeout: 300_000 }, async () => {
    const r = await runConformance({ client: 'a2a-js-sdk', files: BUILTIN_FILES, lanes: 8 });
    expect(r.summary.ERROR).toBe(0);
    expect(differences(r, baselineVerdicts('a2a-js-sdk'))).toEqual([]);
    expect(verdicts(r)).toEqual(baselineVerdicts('a2a-js-sdk'));
    expect(matrixRowProblems(r)).toEqual([]);
  });

  it("@a2a-js/sdk 0.3.14 runs through every scenario for a v0.3 client; its verdicts are its baseline's, it is PASSed nowhere it never reached the peer's dialect, and every body it was sent is valid v0.3", {
    timeout: 300_000,
  }, async () => {
    const r = await runConformance({ client: 'a2a-js-sdk@0.3', files: BUILTIN_FILES, lanes: 8 });
    expect(r.summary.ERROR).toBe(0);
    expect(differences(r, baselineVerdicts('a2a-js-sdk@0.3'))).toEqual([]);
    expect(verdicts(r)).toEqual(baselineVerdicts('a2a-js-sdk@0.3'));
    expect(matrixRowProblems(r)).toEqual([]);
    // A PASS either declined after reading the card, or spoke the peer's dialect on the wire.
    for (const x of r.results.filter((x) => x.verdict === 'PASS' && x.outcome.kind === 'reported'))
      expect(x.claims?.decision === 'rejected' || x.transcript.some((e) => e.kind === 'http' && !!e.rpc?.wireMethod), x.id).toBe(true);
    const count = { v1: 0, v03: 0, v03Unchecked: 0 };
    expect(r.results.flatMap((x) => payloadProblems(x, count))).toEqual([]);
    expect(count.v03 + count.v03Unchecked).toBeGreaterThan(30);
    if (existsSync(V03_SCHEMA)) expect(count.v03Unchecked).toBe(0);
  });
});
