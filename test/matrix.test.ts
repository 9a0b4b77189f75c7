/**
 * The conformance matrix: tiers computed from verdicts (harness/runner/judge/tiers.ts) with every
 * condition of docs/tiers.md on both sides of its line, the matrix built from results of several
 * clients (shards merged, rulesets checked), `report --compare`, and the commands end to end.
 */
import { readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PropertyFamilyResult, RunResults, ScenarioResult } from '../harness/core/results.js';
import type { Level } from '../harness/core/sources.js';
import type { Basis, Check, VerdictKind } from '../harness/core/verdict.js';
import { compareRuns, regressed } from '../harness/runner/judge/compare.js';
import { buildMatrix } from '../harness/runner/judge/matrix.js';
import { summarize } from '../harness/runner/judge/policy.js';
import { tierOf } from '../harness/runner/judge/tiers.js';
import { loadRequirementSet, requirementSets, type RequirementSet } from '../harness/runner/judge/requirements.js';
import { RULE_IDS, RULESET_VERSION } from '../harness/core/oracle/rules.js';
import { FAMILY_IDS } from '../harness/core/family-ids.js';
import { schemaValidator } from '../harness/runner/load/json-schema.js';
import { readmeMatrixRow, renderMatrixReports } from '../reports/matrix.js';
import { renderMarkdown } from '../reports/markdown.js';
import { writeOutput } from '../harness/cli/output.js';
import { runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';

const check = (
  rule: string,
  verdict: VerdictKind,
  level: Level,
  basis: Basis = verdict === 'PASS' ? 'met' : verdict === 'INFORMATIONAL' ? 'not-binding' : 'up-front',
): Check => ({
  rule,
  verdict,
  reason: `${rule} ${verdict}`,
  evidence: [],
  basis,
  sources: [{ doc: 'A2A v1.0.1', section: '1', quote: 'q', level }],
});

const result = (id: string, checks: Check[]): ScenarioResult =>
  ({
    id,
    opaqueId: id,
    rule: checks[0]!.rule,
    title: id,
    description: '',
    expectation: '',
    spec: '',
    expect: 'PASS',
    verdict: checks.reduce<VerdictKind>(
      (v, c) => (['FAIL', 'TIMEOUT', 'ERROR', 'NON_STRICT'].includes(c.verdict) ? c.verdict : v),
      checks.some((c) => c.verdict === 'PASS') ? 'PASS' : checks[0]!.verdict,
    ),
    checks,
    card: {},
    cardPointers: [],
    peer: { factory: 'f', runtime: {} },
    profile: {},
    intent: {},
    claims: null,
    outcome: { kind: 'reported' },
    transcript: [],
    ledger: [],
    deadlineMs: 1000,
    durationMs: 1,
  }) as unknown as ScenarioResult;

function run(results: ScenarioResult[], client = 'c', extra: Partial<RunResults> = {}): RunResults {
  return {
    schema: 'a2a-conformance/results@1',
    harness: { name: 'a2a-conformance', version: '0.1.0' },
    ruleset: 'r@1',
    client: { name: client, version: '1.0.0', profile: null, taskClasses: [] },
    seed: 's',
    shard: null,
    strict: false,
    deadlineMultiplier: 1,
    startedAt: '2026-12-03T00:00:00.000Z',
    durationMs: 1,
    results,
    notRun: [],
    summary: summarize(results),
    unexpected: results.filter((r) => ['FAIL', 'TIMEOUT', 'ERROR'].includes(r.verdict)).map((r) => ({ id: r.id, verdict: r.verdict, why: 'x' })),
    exitCode: results.some((r) => r.verdict === 'ERROR') ? 2 : results.some((r) => ['FAIL', 'TIMEOUT'].includes(r.verdict)) ? 1 : 0,
    ...extra,
  };
}

const family = (id: string, runs = 100, failed = false, ran = runs): PropertyFamilyResult => ({
  family: id,
  title: id,
  rules: [],
  seed: 1,
  runs,
  ran,
  // Every case graded: passed (a failed family's last case failed).
  verdicts: failed ? { PASS: ran - 1, FAIL: 1 } : { PASS: ran },
  stories: {},
  labels: {},
  failed,
  cases: [],
  durationMs: 1,
});
const FAMILIES = ['negotiation', 'handshake', 'trust', 'transport', 'delivery', 'wire'];
const props = (fams: PropertyFamilyResult[], client = 'c') => run([], client, { properties: fams, seed: '1', exitCode: fams.some((f) => f.failed) ? 1 : 0 });

/** Ten MUST rules, each graded once, of which the first `failing` FAIL (up front, not harm). */
const tenMust = (failing = 0, client = 'c') =>
  run(
    Array.from({ length: 10 }, (_, i) => result(`s${i}`, [check(`R${i}`, i < failing ? 'FAIL' : 'PASS', 'MUST'), check('ALWAYS', 'PASS', 'MUST')])),
    client,
  );

describe('tiers (docs/tiers.md), from the verdicts alone', () => {
  it('tier 1: no MUST failure, no harm, every family passed at 100 runs; without the property run, tier 2 and says why', () => {
    const t1 = tierOf(tenMust(), props(FAMILIES.map((f) => family(f))));
    expect(t1).toMatchObject({ tier: 1, label: 'tier 1', blockers: [], mustRules: { graded: 11, passed: 11 } });
    const t2 = tierOf(tenMust());
    expect(t2.tier).toBe(2);
    expect(t2.blockers.map((b) => b.condition)).toEqual(['every property family passes at --runs 100 or more']);
  });

  it('property runs: a failed family, one swept with --runs 99, one no case of which could be told, or one missing keeps a client at tier 2, each named', () => {
    const t = tierOf(
      tenMust(),
      props([family('negotiation', 100, true), family('handshake', 99), { ...family('trust', 100, false, 0), verdicts: {} }, family('transport')]),
    );
    expect(t.tier).toBe(2);
    expect(t.blockers[0]!.items.map((i) => `${i.family}: ${i.why}`)).toEqual([
      'delivery: not in the property run',
      'wire: not in the property run',
      'negotiation: failed after 100 case(s)',
      'handshake: swept with --runs 99, fewer than 100',
      'trust: no case of it graded this client (none could be told, it declined them, or no rule bound)',
    ]);
    // Cases a client's dialects cannot be told are skipped: 7 of 100 ran, all passed, is a pass (a v0.3 client's trust family).
    expect(tierOf(tenMust(), props(FAMILIES.map((f) => family(f, 100, false, f === 'trust' ? 7 : 100)))).tier).toBe(1);
  });

  it('tier 2 at 80% of MUST rules passing or more (exactly 80%: 4 of 5), unranked below it', () => {
    const five = run(Array.from({ length: 5 }, (_, i) => result(`f${i}`, [check(`R${i}`, i === 0 ? 'FAIL' : 'PASS', 'security')])));
    expect(tierOf(five)).toMatchObject({ tier: 2, mustRules: { graded: 5, passed: 4 } });
    const one = tierOf(tenMust(1), props(FAMILIES.map((f) => family(f))));
    expect(one.tier).toBe(2);
    expect(one.blockers[0]!.condition).toBe('no FAIL or TIMEOUT in a MUST or security rule');
    expect(one.blockers[0]!.items[0]).toMatchObject({ scenario: 's0', rule: 'R0', verdict: 'FAIL', level: 'MUST' });
    // 8 of 11 pass: 72% < 80%.
    const three = tierOf(tenMust(3));
    expect(three.tier).toBeNull();
    expect(three.blockers[0]!.condition).toMatch(/^at least 80% of the MUST and security rules pass \(8 of 11, 72%\)/);
    // Counted by rule, not by check: a rule failing in many scenarios is one rule, and an always-on rule passing everywhere is one too.
    const many = run([...tenMust(2).results, result('s0b', [check('R0', 'FAIL', 'MUST')]), result('s0c', [check('R0', 'FAIL', 'MUST')])]);
    expect(tierOf(many).mustRules).toMatchObject({ graded: 11, passed: 9 });
  });

  it('harm anywhere (even at seed level) leaves a client unranked; misses at SHOULD or seed level without harm do not block tier 1', () => {
    const harmed = run([...tenMust().results, result('h', [check('WIRE-X', 'FAIL', 'field', 'harm')])]);
    const t = tierOf(harmed, props(FAMILIES.map((f) => family(f))));
    expect(t.tier).toBeNull();
    expect(t.harm).toBe(1);
    expect(t.blockers[0]).toMatchObject({ condition: 'no harm on the wire, at any level', items: [{ scenario: 'h', level: 'harm' }] });
    // A rule that names only harm sources (WIRE-NO-ORPHANS) is graded at their level, never as a vendor's.
    const onlyHarm = {
      ...check('WIRE-O', 'PASS', 'field'),
      sources: [{ doc: 'seed 000', section: 's', quote: 'q', level: 'field' as const, role: 'harm' as const }],
    };
    expect(buildMatrix([run([result('o', [onlyHarm])])]).matrix.clients[0]!.levels).toMatchObject({ field: { graded: 1 }, vendor: { graded: 0 } });
    const soft = run([
      ...tenMust().results,
      result('n', [check('NEG-Y', 'NON_STRICT', 'SHOULD', 'up-front')]),
      result('m', [check('NEG-Z', 'NON_STRICT', 'field', 'record')]),
    ]);
    expect(tierOf(soft, props(FAMILIES.map((f) => family(f)))).tier).toBe(1);
  });

  it("a blocker in a scenario the client's glue answers for names the glue, in matrix.json, the matrix page, its summary, the README row and the run's summary.md", () => {
    const note = 'glue: an SDK error ends the run; waiting it out is the application’s to write';
    const glued = { ...result('g', [check('WIRE-X', 'FAIL', 'field', 'harm')]), glue: [note] };
    const shim = { ...result('m', [check('R-MUST', 'FAIL', 'MUST')]), glue: [note] };
    const r = run([...tenMust().results, glued, shim], 'sdk');
    const t = tierOf(r);
    expect(t.blockers[0]!.items).toEqual([expect.objectContaining({ scenario: 'g', glue: [note] })]);
    const built = buildMatrix([r]).matrix;
    expect(schemaValidator('matrix.schema.json')(JSON.parse(JSON.stringify(built)))).toBe(true);
    const files = renderMatrixReports(built, [{ client: built.clients[0]!, run: r }]).files;
    const text = (name: string) => files.find((f) => f.name === name)!.text;
    expect(text('matrix.json')).toContain(note);
    // The glue's note is the client's own text: shown as code, so nothing in it renders.
    expect(text('summary.md')).toContain(`[the client's glue: \`${note}\`]`);
    expect(text('index.html')).toContain('data-testid="blocker-glue"');
    expect(readmeMatrixRow(built.clients[0]!)).toContain('WIRE-X (glue)');
    expect(renderMarkdown(r)).toContain(`the client's glue: ${note}`);
    // A client without glue: no glue named anywhere.
    expect(JSON.stringify(tierOf(run([...tenMust().results, result('h', [check('WIRE-X', 'FAIL', 'field', 'harm')])])))).not.toContain('glue');
  });

  it('checks that did not bind, UNSUPPORTED and INFORMATIONAL never count; a client graded on under half its MUST rules is unranked; an ERROR withholds the tier', () => {
    const declined = run(
      Array.from({ length: 4 }, (_, i) => result(`u${i}`, [check(`R${i}`, i === 0 ? 'PASS' : 'UNSUPPORTED', 'MUST', i === 0 ? 'met' : 'unsupported')])),
    );
    const t = tierOf(declined, props(FAMILIES.map((f) => family(f))));
    expect(t.tier).toBeNull();
    expect(t.withheld).toMatch(/graded on 1 of the 4 MUST and security rule/);
    // Half is enough to be ranked.
    const half = run(
      Array.from({ length: 4 }, (_, i) => result(`h${i}`, [check(`R${i}`, i < 2 ? 'PASS' : 'UNSUPPORTED', 'MUST', i < 2 ? 'met' : 'unsupported')])),
    );
    expect(tierOf(half, props(FAMILIES.map((f) => family(f))))).toMatchObject({ tier: 1, mustRules: { graded: 2, exercised: 4 } });
    const informational = run([...tenMust().results, result('i', [check('R-INFO', 'INFORMATIONAL', 'MUST')])]);
    expect(tierOf(informational, props(FAMILIES.map((f) => family(f)))).tier).toBe(1);
    const errored = run([...tenMust().results, result('e', [check('R0', 'ERROR', 'MUST', 'harness')])]);
    expect(tierOf(errored, props(FAMILIES.map((f) => family(f))))).toMatchObject({
      tier: null,
      withheld: expect.stringMatching(/the harness failed \(ERROR\) in 1 scenario/),
    });
  });
});

describe('tiers: what a client may not be credited with (found by review)', () => {
  /** A scenario the client declined, as prepare.ts writes it: UNSUPPORTED, one check that cites nothing. */
  const declined = (id: string, rule: string) =>
    ({
      ...result(id, [{ rule, verdict: 'UNSUPPORTED', reason: 'declined', evidence: [], basis: 'unsupported' }]),
      outcome: { kind: 'unsupported' },
    }) as ScenarioResult;
  const allFamilies = props(FAMILIES.map((f) => ({ ...family(f), verdicts: { PASS: 100 } })));

  it("a declined scenario exercises its rule at the registry's level: declining most MUST and security rules leaves a client unranked", () => {
    const r = run([
      result('p', [check('SPEC-A2A-VERSION', 'PASS', 'MUST')]),
      declined('d1', 'SPEC-TLS-VERIFY'),
      declined('d2', 'SPEC-INTERFACE-SELECTION'),
      declined('d3', 'PUSH-AUTHENTICITY'),
    ]);
    expect(tierOf(r, allFamilies)).toMatchObject({
      tier: null,
      mustRules: { graded: 1, exercised: 4 },
      withheld: expect.stringMatching(/graded on 1 of the 4/),
    });
  });

  it('checks of a scenario the run could not credit (UNSUPPORTED with PASS checks) grade nothing, in the tier and in the levels', () => {
    const uncredited = {
      ...result('u', [check('SPEC-TLS-VERIFY', 'PASS', 'security')]),
      verdict: 'UNSUPPORTED',
      outcome: { kind: 'reported' },
    } as ScenarioResult;
    const r = run([...tenMust().results, uncredited]);
    expect(tierOf(r, allFamilies).mustRules).toMatchObject({ graded: 11, exercised: 12 });
    expect(buildMatrix([r]).matrix.clients[0]!.levels.security.graded).toBe(0);
  });

  it('a property family whose every case was declined (UNSUPPORTED) or did not bind does not pass; a merge missing shards withholds the tier', () => {
    const declinedFamilies = props(FAMILIES.map((f) => ({ ...family(f), verdicts: { UNSUPPORTED: 100 } })));
    const t = tierOf(tenMust(), declinedFamilies);
    expect(t.tier).toBe(2);
    expect(t.blockers[0]!.items).toHaveLength(FAMILIES.length);
    expect(t.blockers[0]!.items[0]!.why).toMatch(/^no case of it graded this client/);
    const partial = { ...tenMust(), incomplete: { why: 'merge the rest', shards: ['2/2'], missing: ['x'] } };
    expect(tierOf(partial, allFamilies)).toMatchObject({ tier: null, withheld: expect.stringMatching(/lacks some of the run's shards \(2\/2\)/) });
  });

  it('a selection is ranked and says so on its badge; a client named ".." gets a file name of its own', () => {
    const r = run(tenMust().results, '..', { notRun: [{ id: 'z', reason: 'filtered out by --rule R0' }] });
    r.client.version = '';
    const { matrix, entries } = buildMatrix([r]);
    const c = matrix.clients[0]!;
    expect(c.id).toBe('client');
    expect(c.tier.selection).toBe('selected by --rule R0');
    const files = renderMatrixReports(matrix, entries).files;
    const svg = files.find((f) => f.name === 'badges/client.svg')!.text as string;
    // About 150 px, the tier on its face; the rest of the claim in its title.
    expect(Number(/<svg[^>]* width="(\d+)"/.exec(svg)![1])).toBeLessThanOrEqual(200);
    expect(svg).toContain('>tier 2 (selection)</text>');
    expect(svg).toContain(`: tier 2 (a selection: selected by --rule R0) · a2a-conformance ${matrix.harness.version} · ruleset ${matrix.ruleset}</title>`);
    // A selection of a client that declares a capability absent: both said, the badge still at most 200 px.
    const both = run(tenMust().results, 'wide', { notRun: [{ id: 'z', reason: 'filtered out by --rule R0' }] });
    both.client.notImplemented = [{ capability: 'signed-card-verification', reason: 'not yet' }];
    const wide = buildMatrix([both]);
    const wideSvg = renderMatrixReports(wide.matrix, wide.entries).files.find((f) => f.name.endsWith('.svg'))!.text as string;
    expect(wideSvg).toContain('(subset)</text>');
    expect(Number(/<svg[^>]* width="(\d+)"/.exec(wideSvg)![1])).toBeLessThanOrEqual(200);
    expect(wideSvg).toContain('(a selection: selected by --rule R0) for the declared capabilities (not implemented: signed-card-verification)');
    // Shields answers "invalid response data" to any key its endpoint format lacks.
    const endpoint = JSON.parse(files.find((f) => f.name === 'badges/client.json')!.text as string);
    expect(endpoint).toEqual({ schemaVersion: 1, label: 'A2A client', message: 'tier 2 (selection)', color: 'yellow' });
    // A name with replacement patterns ($&, $') stays text in the title: the SVG around it is whole.
    const odd = buildMatrix([run(tenMust().results, "acme$'$&<x>")]);
    const oddSvg = renderMatrixReports(odd.matrix, odd.entries).files.find((f) => /^badges\/.*\.svg$/.test(f.name))!.text as string;
    expect(oddSvg).toContain("<title>A2A client conformance of acme$'$&amp;&lt;x> 1.0.0:");
    expect(oddSvg.match(/<title>/g)).toHaveLength(1);
    expect(oddSvg.trim().endsWith('</svg>')).toBe(true);
  });
});

describe('frozen requirement sets (docs/requirements/): a tier against the set a vendor published', () => {
  const base = tenMust();
  const frozen: RequirementSet = {
    ruleset: 'r@1',
    scenarios: base.results.map((r) => r.id),
    rules: [...Array.from({ length: 10 }, (_, i) => `R${i}`), 'ALWAYS'],
    families: FAMILIES.filter((f) => f !== 'wire'),
  };
  // The next release: one more scenario (the client fails it, with harm), one more cross-cutting rule (its check fails in s0), one more family.
  const next: RequirementSet = { ruleset: 'r@2', scenarios: [...frozen.scenarios, 'x/added'], rules: [...frozen.rules, 'NEW-RULE'], families: FAMILIES };
  const grown = run([
    ...base.results.map((r) => (r.id === 's0' ? { ...r, checks: [...r.checks, check('NEW-RULE', 'FAIL', 'MUST')] } : r)),
    result('x/added', [check('R1', 'FAIL', 'MUST', 'harm')]),
    result('vendor/own', [check('VENDOR:mine', 'PASS', 'vendor')]),
  ]);
  const fams = props(FAMILIES.map((f) => family(f)));

  it('adding a scenario, a rule and a family to the catalogue does not change a tier computed against the earlier set; it is said what was not scored', () => {
    const before = tierOf(base, fams, { set: frozen, current: frozen });
    expect(before).toMatchObject({ tier: 1, requirements: 'r@1', notScored: { scenarios: 0, checks: 0 } });
    const against = tierOf(grown, fams, { set: frozen, current: next });
    expect(against).toMatchObject({ tier: 1, requirements: 'r@1', notScored: { scenarios: 1, checks: 1 }, mustRules: before.mustRules, harm: 0 });
    expect(against.properties).toEqual({ given: true, passed: 5, families: 5 });
    // Which scenario and which rule were set aside, and why.
    expect(against.notScored?.which).toEqual([{ id: 'x/added', reason: expect.stringContaining('r@1') }]);
    expect(against.notScored?.rules).toEqual([{ rule: 'NEW-RULE', checks: 1 }]);
    // Against the newer set (or none) the same run is unranked: the added scenario's harm and the new rule's FAIL count.
    expect(tierOf(grown, fams, { set: next, current: next })).toMatchObject({ tier: null, requirements: 'r@2', notScored: { scenarios: 0, checks: 0 } });
    expect(tierOf(grown, fams).tier).toBeNull();
    // The harness's own checks (HARNESS, CLIENT-PROTOCOL) are no rule of a set: never set aside.
    const own = run([...base.results.map((r) => (r.id === 's1' ? { ...r, checks: [...r.checks, check('CLIENT-PROTOCOL', 'PASS', 'MUST')] } : r))]);
    expect(tierOf(own, fams, { set: frozen, current: next }).notScored).toEqual({ scenarios: 0, checks: 0 });
    // A set naming scenarios the runs never had (a newer one) is refused, not scored as passed by their absence.
    expect(() => buildMatrix([base], undefined, RULESET_VERSION)).toThrow(/names \d+ scenario\(s\) these runs never had/);
  });

  it('the current set is the catalogue (npm run requirements); every shipped set names its own ruleset; an unknown one is refused, naming those there are', async () => {
    const { loadCatalogue } = await import('../harness/runner/load/catalogue.js');
    const { scenarioFiles } = await import('../harness/cli/context.js');
    const current = loadRequirementSet();
    expect(current.ruleset).toBe(RULESET_VERSION);
    expect(current.scenarios).toEqual((await loadCatalogue(await scenarioFiles(undefined))).map((e) => e.scenario.id).sort());
    expect(current.rules).toEqual([...RULE_IDS]);
    expect(current.families).toEqual([...FAMILY_IDS]);
    for (const name of requirementSets()) expect(loadRequirementSet(name).ruleset).toBe(name);
    // An earlier set scores fewer scenarios, never another shape.
    expect(requirementSets().length).toBeGreaterThanOrEqual(2);
    expect(() => loadRequirementSet('no-such@1')).toThrow(/no requirement set "no-such@1"; this package has .*a2a-1\.0\.1@14/);
  });
});

describe('the matrix of several clients', () => {
  it('groups by client, merges each client’s shards, orders rules worst first, and its JSON matches docs/matrix.schema.json', () => {
    const a1 = run(tenMust(0, 'a').results.slice(0, 5), 'a', { shard: '1/2' });
    const a2 = run(tenMust(0, 'a').results.slice(5), 'a', { shard: '2/2' });
    const b = tenMust(2, 'b');
    const { matrix, entries } = buildMatrix([
      a1,
      b,
      a2,
      props(
        FAMILIES.map((f) => family(f)),
        'a',
      ),
    ]);
    expect(matrix.clients.map((c) => [c.id, c.tier.label, c.scenarios.ran])).toEqual([
      ['a-1.0.0', 'tier 1', 10],
      ['b-1.0.0', 'tier 2', 10],
    ]);
    expect(matrix.rules.slice(0, 2).map((r) => r.rule)).toEqual(['R0', 'R1']);
    expect(matrix.rules[0]!.cells).toEqual({ 'a-1.0.0': { PASS: 1 }, 'b-1.0.0': { FAIL: 1 } });
    expect(matrix.exitCode).toBe(1);
    const validate = schemaValidator('matrix.schema.json', undefined, true);
    expect(validate(JSON.parse(JSON.stringify(matrix))), JSON.stringify(validate.errors)).toBe(true);
    const files = renderMatrixReports(matrix, entries).files.map((f) => f.name);
    expect(files).toEqual(
      expect.arrayContaining([
        'index.html',
        'matrix.json',
        'summary.md',
        'badges/a-1.0.0.svg',
        'badges/a-1.0.0.json',
        'clients/a-1.0.0/results.json',
        'clients/a-1.0.0/properties/results.json',
      ]),
    );
  });

  it('refuses clients graded by different rulesets, and a client with a property run but no scenario run', () => {
    expect(() => buildMatrix([tenMust(0, 'a'), run([], 'b', { ruleset: 'r@2' })])).toThrow(/different rulesets/);
    expect(() => buildMatrix([tenMust(0, 'a'), props([family('trust')], 'b')])).toThrow(/b 1.0.0 has a property run but no scenario run/);
  });
});

describe('a matrix folder (harness/cli/output.ts): its own folders replaced, never what it did not write', () => {
  it("writes clients/ and badges/ again over its own, and refuses a folder of its holding a user's file, or a link in its place", async () => {
    const { matrix, entries } = buildMatrix([tenMust(0, 'a'), tenMust(2, 'b')]);
    const rendered = renderMatrixReports(matrix, entries);
    const dir = testTemp('a2a-matrix-out-');
    await writeOutput('--out', dir, rendered);
    await writeOutput('--out', dir, rendered);
    expect(readdirSync(join(dir, 'clients')).sort()).toEqual(['a-1.0.0', 'b-1.0.0']);
    writeFileSync(join(dir, 'clients', 'NOTES.md'), 'mine');
    await expect(writeOutput('--out', dir, rendered)).rejects.toThrow(/holds files that are not a report a2a-conformance wrote \(clients\)/);
    expect(readFileSync(join(dir, 'clients', 'NOTES.md'), 'utf8')).toBe('mine');
    rmSync(join(dir, 'clients', 'NOTES.md'));
    const elsewhere = testTemp('a2a-matrix-elsewhere-');
    writeFileSync(join(elsewhere, 'keep.txt'), 'keep');
    rmSync(join(dir, 'badges'), { recursive: true });
    symlinkSync(elsewhere, join(dir, 'badges'));
    await expect(writeOutput('--out', dir, rendered)).rejects.toThrow(/\(badges\)/);
    expect(readFileSync(join(elsewhere, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('report --compare', () => {
  it('a verdict that got worse is a regression, one that got better an improvement, PASS ↔ INFORMATIONAL only a change; a family that starts failing regresses', () => {
    const old = run([
      result('x', [check('R', 'PASS', 'MUST')]),
      result('y', [check('R', 'FAIL', 'MUST')]),
      result('z', [check('R', 'PASS', 'MUST')]),
      result('gone', [check('R', 'PASS', 'MUST')]),
    ]);
    const now = run([
      result('x', [check('R', 'FAIL', 'MUST')]),
      result('y', [check('R', 'PASS', 'MUST')]),
      result('z', [check('R', 'INFORMATIONAL', 'MUST')]),
      result('new', [check('R', 'PASS', 'MUST')]),
    ]);
    const c = compareRuns(old, now);
    expect(c.regressions.map((x) => `${x.scenario} ${x.from}→${x.to} ${x.level}`)).toEqual(['x PASS→FAIL MUST']);
    expect(c.improvements.map((x) => x.scenario)).toEqual(['y']);
    expect(c.changed.map((x) => x.scenario)).toEqual(['z']);
    expect([c.added, c.removed]).toEqual([['new'], ['gone']]);
    expect(regressed(c)).toBe(true);
    expect(regressed(compareRuns(old, old))).toBe(false);
    expect(regressed(compareRuns(props([family('trust')]), props([family('trust', 100, true)])))).toBe(true);
    // A scenario the new run no longer holds, or a passing family gone, is a regression; FAIL → UNSUPPORTED is not an improvement.
    const fewer = compareRuns(now, run(now.results.filter((r) => r.id !== 'y')));
    expect([fewer.removed, regressed(fewer)]).toEqual([['y'], true]);
    expect(regressed(compareRuns(props([family('trust')]), props([])))).toBe(true);
    const declinedNow = compareRuns(old, run([result('y', [check('R', 'UNSUPPORTED', 'MUST', 'unsupported')])]));
    expect([declinedNow.improvements, declinedNow.changed.map((x) => x.scenario)]).toEqual([[], ['y']]);
  });
});

describe('matrix and report, end to end (in this process)', () => {
  it('matrix writes one report naming each client with its tier and badge; report of two clients writes the matrix; --compare exits 1 on regressions and 0 against itself', async () => {
    const out = testTemp('a2a-matrix-');
    const rules = ['--rule', 'TRUST-NO-RETRY-ON-DECODE,SPEC-TLS-VERIFY'];
    const m = await runMain([
      'matrix',
      '--client',
      'reference',
      '--client',
      'naive:never-cancels',
      ...rules,
      '--runs',
      '3',
      '--seed',
      '1',
      '--workers',
      '1',
      '--out',
      out,
    ]);
    expect(m.code, m.stderr).toBe(1);
    expect(m.stdout).toMatch(/tier 2 \(selection\) +reference 0\.1\.0 — kept from the next tier by: every property family passes at --runs 100 or more/);
    expect(m.stdout).toMatch(/unranked \(selection\) +naive:never-cancels 0\.1\.0/);
    // The property sweeps are not silent: each family's line, under its client's name.
    expect(m.stderr).toMatch(/^ {2}reference · [✓✗] negotiation +\d+ case\(s\)/m);
    const matrix = JSON.parse(readFileSync(join(out, 'matrix.json'), 'utf8'));
    expect(matrix.clients.map((c: { name: string }) => c.name)).toEqual(['reference', 'naive:never-cancels']);
    for (const c of matrix.clients) {
      // A run of --rule is a selection, and its badge says so.
      expect(readFileSync(join(out, c.badge.svg), 'utf8')).toContain(`: ${c.tier.label} (a selection: selected by --rule`);
      expect(JSON.parse(readFileSync(join(out, c.badge.endpoint), 'utf8'))).toMatchObject({
        schemaVersion: 1,
        label: 'A2A client',
        message: `${c.tier.label} (selection)`,
      });
      expect(readFileSync(join(out, c.report), 'utf8')).toContain(c.name);
    }
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    expect(html).toContain('data-tier="tier 2"');
    expect(html).toContain('data-tier="unranked"');
    // The same folder again: the matrix replaces its own (its folders too).
    const ref = join(out, 'clients/reference-0.1.0/results.json');
    const naive = join(out, 'clients/naive-never-cancels-0.1.0/results.json');
    const again = testTemp('a2a-matrix-report-');
    const r = await runMain(['report', ref, naive, '--out', again]);
    expect(r.code, r.stderr).toBe(1);
    expect(JSON.parse(readFileSync(join(again, 'matrix.json'), 'utf8')).clients).toHaveLength(2);
    const r2 = await runMain(['report', ref, naive, join(out, 'clients/reference-0.1.0/properties/results.json'), '--out', again]);
    expect(r2.code, r2.stderr).toBe(1);
    // One client's scenario run beside its property run: a matrix of one, with its tier.
    const alone = testTemp('a2a-matrix-alone-');
    const r3 = await runMain(['report', ref, join(out, 'clients/reference-0.1.0/properties/results.json'), '--out', alone]);
    expect(r3.code, r3.stderr).toBe(0);
    expect(r3.stdout).toMatch(/tier 2 \(selection\) +reference 0\.1\.0 — kept from the next tier by: every property family passes/);
    const worse = await runMain(['report', '--compare', ref, naive]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toMatch(/regressions: [1-9]/);
    expect(worse.stdout).toMatch(/PASS → FAIL {2}TRUST-NO-RETRY-ON-DECODE/);
    const same = await runMain(['report', '--compare', ref, ref]);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('regressions: 0');
    // --json: the same comparison as data, against its published schema; the exit code as without it.
    const asJson = await runMain(['report', '--compare', ref, naive, '--json']);
    expect(asJson.code).toBe(1);
    const doc = JSON.parse(asJson.stdout) as { schema: string; regressed: boolean; regressions: Array<{ rule: string; from: string; to: string }> };
    const valid = schemaValidator('compare.schema.json', undefined, true);
    expect(valid(doc), JSON.stringify(valid.errors)).toBe(true);
    expect(doc).toMatchObject({ schema: 'a2a-conformance/compare@1', regressed: true });
    expect(doc.regressions).toContainEqual(expect.objectContaining({ rule: 'TRUST-NO-RETRY-ON-DECODE', from: 'PASS', to: 'FAIL' }));
    expect((await runMain(['report', ref, '--json'])).code).toBe(2);
    const bad = await runMain(['report', '--compare', ref]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--compare takes two results.json files');
    // --requirements scores tiers; --compare has none to score: said, not ignored.
    const scoped = await runMain(['report', '--compare', ref, ref, '--requirements', RULESET_VERSION]);
    expect(scoped.code).toBe(2);
    expect(scoped.stderr).toContain('--compare lists changed verdicts, not tiers');
  });

  it('matrix takes the selection and gating knobs of run: --grep, --scenario, --dialect, --binding, --lanes, and --expectations per client', async () => {
    const out = testTemp('a2a-matrix-knobs-');
    const knobs = ['--grep', 'spec-tls-verify/', '--dialect', 'a2a-v1', '--binding', 'grpc', '--lanes', '2', '--workers', '1', '--no-properties'];
    const clients = ['--client', 'reference', '--client', 'naive:skips-tls-verify'];
    const first = await runMain(['matrix', ...clients, ...knobs, '--out', out]);
    expect(first.code, first.stderr).toBe(1);
    const resultsOf = (name: string) =>
      JSON.parse(readFileSync(join(out, 'clients', readdirSync(join(out, 'clients')).find((d) => d.startsWith(name))!, 'results.json'), 'utf8')) as RunResults;
    const ref = resultsOf('reference-');
    const ids = ref.results.map((r) => r.id);
    expect(ids.length).toBeGreaterThan(2);
    // Only what the filters let through: the grep's scenarios, no v0.3 one, the gRPC tellings among them.
    expect(ids.every((id) => id.startsWith('spec-tls-verify/') && !id.includes('.v03'))).toBe(true);
    expect(ids.some((id) => id.endsWith('.grpc'))).toBe(true);
    const naive = resultsOf('naive-skips-tls-verify-');
    expect(naive.unexpected.length).toBeGreaterThan(0);
    // The naive client's failures as its own expectations: its run judged by them, the reference's by the default.
    const file = join(out, '..', `${out.split('/').pop()}-naive.json`);
    writeFileSync(
      file,
      JSON.stringify({
        schema: 'a2a-conformance/expectations@1',
        entries: naive.unexpected.map((u) => ({ scenario: u.id, verdict: u.verdict, reason: 'known' })),
      }),
    );
    const again = await runMain(['matrix', ...clients, ...knobs, '--expectations', `naive:skips-tls-verify=${file}`, '--out', out]);
    rmSync(file, { force: true });
    expect(again.code, again.stderr).toBe(0);
    expect(resultsOf('naive-skips-tls-verify-').unexpected).toEqual([]);
    // One scenario by id; a client the matrix does not have is refused in one line before anything runs.
    const plain = ids[0]!.replace(/\.grpc$/, '');
    const one = await runMain(['matrix', '--client', 'reference', '--scenario', plain, '--no-properties', '--workers', '1', '--out', out]);
    expect(one.code, one.stderr).toBe(0);
    expect(resultsOf('reference-').results.map((r) => r.id)).toEqual([plain]);
    const wrong = await runMain(['matrix', ...clients, '--expectations', 'nobody=x.json', '--no-properties', '--out', out]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('"nobody" is no client of this matrix (reference, naive:skips-tls-verify)');
  });
});
