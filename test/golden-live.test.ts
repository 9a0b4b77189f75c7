/**
 * The recorded transcripts the oracle's tests grade (test/golden/) grade as what the clients do today:
 * every pair is run again over real TLS, and its verdict and each check's verdict must be the golden
 * file's (its events may differ where a change keeps them). A client, peer or rule changed since the recording fails here, naming the pair: run
 * `npm run golden` and read the difference in the oracle's tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';
import { type Golden, goldenFile, pairsIn } from './helpers/golden.js';
import { startHarness, type InProcessHarness } from './helpers/harness.js';
import { scenario } from './helpers/scenarios.js';

const tests = (await glob(['test/**/*.test.ts'], { cwd: ROOT, ignore: ['**/node_modules/**'] })).map((f) => readFileSync(join(ROOT, f), 'utf8'));
const PAIRS = pairsIn(tests);

const harnesses = new Map<string, InProcessHarness>();
afterAll(async () => {
  for (const h of harnesses.values()) await h.close();
});

const summary = (r: Golden['result']) => ({ verdict: r.verdict, checks: r.checks.map((c) => [c.rule, c.verdict]).sort() });

describe('the recorded transcripts are what the clients do today', () => {
  it('the oracle tests read at least twenty pairs', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(PAIRS)('%s in %s: the same verdict and checks, recorded again', { timeout: 120_000 }, async (client, id) => {
    const golden = JSON.parse(readFileSync(goldenFile(client, id), 'utf8')) as Golden;
    let h = harnesses.get(client);
    if (!h) harnesses.set(client, (h = await startHarness(client)));
    let live = await h.run(scenario(id));
    // A run the harness held up (load, GC) is confirmed by another, as a run confirms its lagged failures.
    for (let again = 0; again < 2 && live.lag?.lagged && JSON.stringify(summary(live)) !== JSON.stringify(summary(golden.result)); again++)
      live = await h.run(scenario(id));
    expect(summary(live), `${client} in ${id} (run npm run golden after a change it should show)`).toEqual(summary(golden.result));
  });
});
