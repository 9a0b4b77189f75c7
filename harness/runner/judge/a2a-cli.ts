/**
 * The a2a-cli compliance report (`report --format a2a-cli`; docs/a2a-cli.md): the registry's YAML form
 * filled from one run's verdicts, for the requirements a wire verdict can evidence. Each such entry
 * is pass, partial or fail from the checks of the rules behind it and names them; every other entry
 * is not_measured and says why. Nothing here claims a tier: the registry asks for a run against a
 * live agent, and for every requirement of a tier, which the wire alone cannot give.
 */
import { bindingOfId } from '../../core/card-binding.js';
import type { RunResults } from '../../core/results.js';
import type { Check } from '../../core/verdict.js';
import { A2A_CLI_DEFAULTS, A2A_CLI_ERROR_CODES, A2A_CLI_REQUIREMENTS, A2A_CLI_SPEC, UNSEEN, type A2aCliRequirement } from './a2a-cli-registry.js';

export type A2aCliStatus = 'pass' | 'partial' | 'fail' | 'not_measured' | 'na';

export interface A2aCliEntry {
  tier: 1 | 2 | 3;
  area: string;
  spec: string;
  requirement: string;
  status: A2aCliStatus;
  note: string | null;
  evidence: string | null;
}

const GRADED = new Set(['PASS', 'NON_STRICT', 'FAIL', 'TIMEOUT']);
const MAX_IDS = 10;

/** The checks of a requirement's rules that graded the client, with their scenarios. */
function checksFor(run: RunResults, e: NonNullable<A2aCliRequirement['evidence']>): Array<{ scenario: string; check: Check }> {
  return run.results
    .filter((r) => r.verdict !== 'UNSUPPORTED' && r.verdict !== 'ERROR' && r.outcome.kind !== 'unsupported' && (!e.scenarios || e.scenarios.test(r.id)))
    .flatMap((r) =>
      r.checks.filter((c) => e.rules.includes(c.rule) && GRADED.has(c.verdict) && c.basis !== 'not-binding').map((check) => ({ scenario: r.id, check })),
    );
}

/** One requirement's entry, from the run. */
function entryFor(run: RunResults, q: A2aCliRequirement): A2aCliEntry {
  const base = { tier: q.tier, area: q.area, spec: q.spec, requirement: q.asks };
  if (q.id === 'A2ACLI_PUSH_002') {
    const absent = run.client.notImplemented?.find((d) => d.capability === 'push-receiver');
    if (absent) return { ...base, status: 'na', note: `the client declares it hosts no push receiver ("${absent.reason}")`, evidence: null };
  }
  if (q.id === 'A2ACLI_CARD_GET_004') {
    // Refusing every signed card passes the broken-signature scenarios; a client that says it does not verify does not meet this.
    const absent = run.client.notImplemented?.find((d) => d.capability === 'signed-card-verification');
    if (absent) return { ...base, status: 'fail', note: `the client declares it does not verify card signatures ("${absent.reason}")`, evidence: null };
  }
  if (q.id === 'A2ACLI_TX_004' && transportsCovered(run).length < 2)
    return {
      ...base,
      status: 'not_measured',
      note: `this run graded the client over ${transportsCovered(run).join(', ') || 'no transport'}: two are needed (run with --binding grpc or rest beside JSON-RPC)`,
      evidence: null,
    };
  if (!q.evidence) return { ...base, status: 'not_measured', note: `not seen by a2a-conformance: ${UNSEEN[q.unseen ?? 'cli']}`, evidence: null };
  const e = q.evidence;
  const checks = checksFor(run, e);
  if (!checks.length)
    return {
      ...base,
      status: 'not_measured',
      note: `no scenario of this run graded ${e.rules.join(' or ')}${e.scenarios ? ` in the scenarios it needs (${e.scenarios.source})` : ''}${/grpc|rest/.test(e.scenarios?.source ?? '') ? '; run with --binding grpc or rest, for a client that declares that binding' : ''}`,
      evidence: null,
    };
  const counts = new Map<string, number>();
  for (const x of checks) counts.set(x.check.verdict, (counts.get(x.check.verdict) ?? 0) + 1);
  const scenarios = [...new Set(checks.map((x) => x.scenario))];
  const evidence = `results.json: ${e.rules.join(', ')}: ${checks.length} check(s) in ${scenarios.length} scenario(s), ${[...counts].map(([v, n]) => `${v} ${n}`).join(', ')}; ${scenarios.slice(0, MAX_IDS).join(', ')}${scenarios.length > MAX_IDS ? ', …' : ''}`;
  const failing = checks.find((x) => x.check.verdict === 'FAIL' || x.check.verdict === 'TIMEOUT');
  if (failing)
    return {
      ...base,
      status: 'fail',
      note: `${failing.scenario}: ${failing.check.rule} ${failing.check.verdict}: ${firstLine(failing.check.reason)}`,
      evidence,
    };
  const missed = checks.find((x) => x.check.verdict === 'NON_STRICT');
  if (missed) return { ...base, status: 'partial', note: `${missed.scenario}: ${missed.check.rule} NON_STRICT: ${firstLine(missed.check.reason)}`, evidence };
  if (e.covers === 'part') return { ...base, status: 'partial', note: `what the wire shows of it passes; not seen: ${e.unseen ?? 'the rest'}`, evidence };
  return { ...base, status: 'pass', note: null, evidence };
}

const firstLine = (s: string) => s.split('\n')[0]!.slice(0, 300);

const TRANSPORTS = { JSONRPC: 'JSON-RPC', 'HTTP+JSON': 'HTTP+JSON', GRPC: 'gRPC' } as const;

/** The transports the run's scenarios graded the client over (the registry's names). */
function transportsCovered(run: RunResults): string[] {
  const told = new Set<string>();
  for (const r of run.results) {
    if (r.verdict === 'UNSUPPORTED') continue;
    told.add(TRANSPORTS[bindingOfId(r.id)]);
  }
  return Object.values(TRANSPORTS).filter((t) => told.has(t));
}

/** The compliance report of one scenario run, as the registry's YAML template lays it out. */
export function a2aCliReport(run: RunResults, harness: { version: string }) {
  const requirements = Object.fromEntries(A2A_CLI_REQUIREMENTS.map((q) => [q.id, entryFor(run, q)]));
  const summary = Object.fromEntries(
    ([1, 2, 3] as const).map((tier) => {
      const entries = Object.values(requirements).filter((e) => e.tier === tier);
      const n = (s: A2aCliStatus) => entries.filter((e) => e.status === s).length;
      return [
        `tier_${tier}`,
        {
          total: entries.length,
          pass: n('pass'),
          partial: n('partial'),
          fail: n('fail'),
          not_measured: n('not_measured'),
          na: n('na'),
          satisfied: entries.every((e) => e.status === 'pass' || e.status === 'na'),
        },
      ];
    }),
  );
  const unseen = { note: 'not visible to a2a-conformance: a command-line matter' };
  return {
    report: {
      tool: run.client.name,
      tool_version: run.client.version,
      language: null,
      repository: null,
      maintainer: null,
      report_date: run.startedAt.slice(0, 10),
      spec_version: A2A_CLI_SPEC.version,
      spec_revision: A2A_CLI_SPEC.revision,
      a2a_versions: [...new Set((run.client.dialects ?? ['a2a-v1']).map((d) => (d === 'a2a-v1' ? '1.0' : '0.3')))],
      agent_tested: `a2a-conformance ${harness.version} scripted peers over TLS on loopback (ruleset ${run.ruleset}), not a live agent`,
      agent_tck_conformant: 'unknown',
      transports_covered: transportsCovered(run),
      tier_claimed: null,
    },
    summary,
    requirements,
    default_001_breakdown: Object.fromEntries(A2A_CLI_DEFAULTS.map((k) => [k, { shipped: null, overridable: null, ...unseen }])),
    error_codes: Object.fromEntries(A2A_CLI_ERROR_CODES.map((k) => [k, { emitted: null, ...unseen }])),
    attestation: { reported_by: null, date: null, statement: null },
  };
}

/** What heads the YAML: where it comes from, and what it does not claim. */
export function a2aCliPreamble(run: RunResults, harness: { version: string }): string {
  return [
    ` a2a-cli compliance report (${A2A_CLI_SPEC.repository}, spec ${A2A_CLI_SPEC.version} of ${A2A_CLI_SPEC.revision}),`,
    ` filled by a2a-conformance ${harness.version} from the wire verdicts of ${run.client.name} ${run.client.version} (docs/a2a-cli.md).`,
    " pass, partial and fail come from the checks named in each entry's evidence; not_measured says why it was not seen.",
    ' It claims no tier: the registry asks for a run against a live agent and an outcome for every',
    ' requirement of a tier. Fill in what the wire cannot show, then the summary, then the attestation.',
  ].join('\n');
}
