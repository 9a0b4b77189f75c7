/**
 * `report --format a2a-cli` (docs/a2a-cli.md): the a2a-cli registry's YAML form, filled from a run's
 * wire verdicts. It parses, has the template's keys in their order, maps at least ten requirements to
 * evidence, and takes each status from the checks it names: a failing client's entry fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { A2A_CLI_REQUIREMENTS, withA2aCliTable } from '../harness/runner/judge/a2a-cli-registry.js';
import { a2aCliReport } from '../harness/runner/judge/a2a-cli.js';
import { ROOT } from './helpers/cli.js';
import { mainRun, runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';

const TEMPLATE_KEYS = ['report', 'summary', 'requirements', 'default_001_breakdown', 'error_codes', 'attestation'];
const REPORT_KEYS = [
  'tool',
  'tool_version',
  'language',
  'repository',
  'maintainer',
  'report_date',
  'spec_version',
  'spec_revision',
  'a2a_versions',
  'agent_tested',
  'agent_tck_conformant',
  'transports_covered',
  'tier_claimed',
];
const ENTRY_KEYS = ['tier', 'area', 'spec', 'requirement', 'status', 'note', 'evidence'];

type Yaml = {
  report: Record<string, unknown>;
  summary: Record<string, { total: number; pass: number; partial: number; fail: number; not_measured: number; na: number; satisfied: boolean }>;
  requirements: Record<string, { tier: number; status: string; note: string | null; evidence: string | null }>;
};

describe('report --format a2a-cli', () => {
  it("the reference's run: a YAML with the template's keys, ten or more requirements evidenced from the wire, each naming its checks", {
    timeout: 120_000,
  }, async () => {
    const r = await mainRun(['--client', 'reference']);
    const o = await runMain(['report', join(r.out, 'results.json'), '--format', 'a2a-cli']);
    expect(o.code, o.stderr).toBe(0);
    const y = parse(o.stdout) as Yaml;
    expect(Object.keys(y)).toEqual(TEMPLATE_KEYS);
    expect(Object.keys(y.report)).toEqual(REPORT_KEYS);
    expect(y.report).toMatchObject({ tool: 'reference', spec_version: '0.2', tier_claimed: null, agent_tck_conformant: 'unknown' });
    expect(Object.keys(y.requirements)).toEqual(A2A_CLI_REQUIREMENTS.map((q) => q.id));
    expect(Object.keys(y.requirements)).toHaveLength(66);
    for (const e of Object.values(y.requirements)) {
      expect(Object.keys(e)).toEqual(ENTRY_KEYS);
      expect(['pass', 'partial', 'fail', 'not_measured', 'na']).toContain(e.status);
      // The registry's rule: every status but pass carries a note.
      if (e.status !== 'pass') expect(e.note).toBeTruthy();
    }
    const evidenced = Object.entries(y.requirements).filter(([, e]) => e.evidence);
    expect(evidenced.length).toBeGreaterThanOrEqual(10);
    for (const [id, e] of evidenced) {
      expect(['pass', 'partial'], id).toContain(e.status);
      expect(e.evidence, id).toMatch(/^results\.json: [A-Z-]+.*check\(s\) in \d+ scenario\(s\)/);
    }
    expect(y.requirements.A2ACLI_VER_001).toMatchObject({ status: 'pass' });
    expect(y.requirements.A2ACLI_VER_001!.evidence).toContain('SPEC-A2A-VERSION');
    expect(y.requirements.A2ACLI_TX_003!.evidence).toContain('interface/tenant');
    expect(y.requirements.A2ACLI_EXIT_001).toMatchObject({ status: 'not_measured' });
    // The summary is recomputed from the statuses; no tier is satisfied from the wire alone.
    const t1 = y.summary.tier_1!;
    expect(t1.total).toBe(39);
    expect(t1.pass + t1.partial + t1.fail + t1.not_measured + t1.na).toBe(39);
    expect(t1.satisfied).toBe(false);
  });

  it("a failing client's entry fails, naming the check; a wrong use is one line, exit 2", { timeout: 120_000 }, async () => {
    const r = await mainRun(['--client', 'naive:omits-a2a-version', '--grep', 'spec-tls-verify/']);
    const o = await runMain(['report', join(r.out, 'results.json'), '--format', 'a2a-cli']);
    expect(o.code, o.stderr).toBe(0);
    const y = parse(o.stdout) as Yaml;
    expect(y.requirements.A2ACLI_VER_001).toMatchObject({ status: 'fail' });
    expect(y.requirements.A2ACLI_VER_001!.note).toMatch(/SPEC-A2A-VERSION FAIL/);
    // A client that declares it does not verify signatures does not meet CARD_GET_004, whatever its refusals; one transport is no TX_004.
    const declared = { ...r.results, client: { ...r.results.client, notImplemented: [{ capability: 'signed-card-verification' as const, reason: 'no JWS' }] } };
    const rep = a2aCliReport(declared, { version: '0' });
    expect(rep.requirements.A2ACLI_CARD_GET_004).toMatchObject({ status: 'fail', note: expect.stringContaining('does not verify card signatures') });
    expect(rep.requirements.A2ACLI_TX_004).toMatchObject({ status: 'not_measured', note: expect.stringContaining('two are needed') });
    const bad = await runMain(['report', join(r.out, 'results.json'), '--format', 'yaml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')[0]).toMatch(/--format "yaml": the one format is a2a-cli/);
    const both = await runMain(['report', join(r.out, 'results.json'), '--format', 'a2a-cli', '--bundle', join(testTemp('a2a-cli-'), 'b.zip')]);
    expect(both.code).toBe(2);
  });

  it("docs/a2a-cli.md's table is the registry's (npm run docs writes it)", () => {
    const doc = readFileSync(join(ROOT, 'docs/a2a-cli.md'), 'utf8');
    expect(withA2aCliTable(doc), 'docs/a2a-cli.md is out of date: run npm run docs').toBe(doc);
    for (const q of A2A_CLI_REQUIREMENTS) expect(doc).toContain(`\`${q.id}\``);
  });
});
