/**
 * `npm run golden`: records the transcripts the oracle's tests grade (test/helpers/golden.ts): every
 * (client, scenario) pair a test reads with `recorded(...)`, run once each over real TLS in this
 * process, written to test/golden/ (files no test reads any more are removed). Run it after changing a
 * scenario, a peer or a client those tests read; test/golden-live.test.ts says when it is due.
 *
 * Then the mutation check's counterexamples (test/helpers/counterexamples.ts): each recorded one is
 * replayed, and kept where it still gives its verdict; a mistake with none, or whose case no longer
 * gives it, is swept again (its family alone, seed 1, 100 runs). `npm run golden -- --sweep` sweeps
 * every mistake again.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { startHarness, type InProcessHarness } from './harness.js';
import { GOLDEN_DIR, type Golden, goldenFile, pairsIn, scenarioDigest } from './golden.js';
import { ROOT } from './cli.js';
import { scenario } from './scenarios.js';
import {
  COUNTEREXAMPLES_FILE,
  COVERED,
  NEMESIS_COVERED,
  type Counterexamples,
  problems,
  readCounterexamples,
  SWEEP,
  sweep,
  writeCounterexamples,
} from './counterexamples.js';

const tests = await glob(['test/**/*.test.ts'], { cwd: ROOT, ignore: ['**/node_modules/**'] });
const pairs = pairsIn(tests.map((f) => readFileSync(join(ROOT, f), 'utf8')));
mkdirSync(GOLDEN_DIR, { recursive: true });
const harnesses = new Map<string, InProcessHarness>();
const written = new Set<string>();
try {
  for (const [client, id] of pairs) {
    let h = harnesses.get(client);
    if (!h) harnesses.set(client, (h = await startHarness(client)));
    let result = await h.run(scenario(id));
    // The oracle's tests read a delivery in this one: on a loaded machine the client can see the end and report before the
    // agent's push goes out, so it is recorded again until it holds one (or the recording is refused).
    for (let i = 0; i < 5 && id === 'neg-push-mtls/mtls-receiver' && !result.transcript.some((e) => e.kind === 'push-attempt'); i++)
      result = await h.run(scenario(id));
    if (id === 'neg-push-mtls/mtls-receiver' && !result.transcript.some((e) => e.kind === 'push-attempt'))
      throw new Error(`${client} in ${id}: no push delivery in five recordings; run npm run golden on a quieter machine`);
    const g: Golden = { client, scenario: id, scenarioDigest: scenarioDigest(id), result };
    const file = goldenFile(client, id);
    writeFileSync(file, `${JSON.stringify(g, null, 1)}\n`);
    written.add(file);
    console.log(`${client} ${id}: ${result.verdict}`);
  }
} finally {
  for (const h of harnesses.values()) await h.close();
}
written.add(COUNTEREXAMPLES_FILE);
for (const f of readdirSync(GOLDEN_DIR)) if (!written.has(join(GOLDEN_DIR, f))) rmSync(join(GOLDEN_DIR, f));
console.log(`${written.size - 1} recorded transcripts in test/golden/`);

const everyOne = process.argv.includes('--sweep');
const before = readCounterexamples();
const found: Counterexamples = {};
const missed: string[] = [];
for (const [name, m, family, key] of [...COVERED, ...NEMESIS_COVERED]) {
  const had = before[key];
  if (had && !everyOne && (await problems(m, family, had)).length === 0) {
    found[key] = had;
    console.log(`naive:${name} ${family.id} ${had.path}: ${had.verdict}, kept`);
    continue;
  }
  const { found: ce } = await sweep(m, family);
  // What is recorded holds as the test will ask it to (replayed once here), or is said and not written.
  const wrong = ce ? await problems(m, family, ce) : [`the ${family.id} family alone did not catch it in ${SWEEP.runs} runs (seed ${SWEEP.seed})`];
  if (wrong.length) {
    missed.push(`naive:${name}: ${wrong.join('; ')}`);
    continue;
  }
  found[key] = ce!;
  console.log(`naive:${name} ${family.id} ${ce!.path}: ${ce!.verdict}, swept`);
}
writeCounterexamples(found);
console.log(`${Object.keys(found).length} counterexamples in ${COUNTEREXAMPLES_FILE}`);
if (missed.length) {
  console.error(`not recorded (the mutation check will fail on them):\n${missed.join('\n')}`);
  process.exitCode = 1;
}
