/**
 * The end of a scenario run: the oracle's verdict on the wire, checked against the harness's own
 * reading of the served card's signature, with the client's protocol warnings added.
 */
import { grade, markProbes } from '../../core/oracle/index.js';
import type { LagRecord, ScenarioResult, SignatureStatus } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { claimEvidence, type Check, type EvidenceRef } from '../../core/verdict.js';
import type { ClientDiagnostics } from '../../core/protocol/adapter.js';
import { DEGRADATION_RECORDS, isKnownDegradation } from '../../core/protocol/types.js';
import type { RunEnv } from '../infrastructure/env.js';
import { signatureStatus } from '../judge/signature-status.js';
import { REPORT_FIELDS } from './client-report.js';
import type { Driven } from './drive.js';
import type { Prepared } from './prepare.js';

export async function gradeRun(
  s: Scenario,
  env: RunEnv,
  base: Prepared['base'],
  d: Driven,
  timing: { started: number; lag: LagRecord | undefined },
): Promise<ScenarioResult> {
  const { card, claims, outcome, profile, transcript } = d;
  const diagnostics = env.client.diagnostics?.(d.runId);
  const signatures = Array.isArray(card.signatures) ? await signatureStatus(card, d.mounted?.peer.jwks ?? []).catch(() => undefined) : undefined;
  const ledgerSnapshot = d.mounted?.ledger.snapshot() ?? [];
  // A fresh input for each reader: neither sees what the other may have done to its own. The oracle reads the
  // deadline the client was given (the scenario's, scaled by --deadline-multiplier), not the one the file wrote.
  const input = () => ({
    scenario: { ...s, deadlineMs: base.deadlineMs },
    card,
    profile,
    intent: s.intent,
    events: transcript.events,
    tasks: ledgerSnapshot,
    claims,
    outcome,
  });
  let g: ReturnType<typeof grade>;
  try {
    g = grade(input());
  } catch (err) {
    g = { verdict: 'ERROR', checks: [{ rule: 'HARNESS', verdict: 'ERROR', reason: `the oracle failed: ${(err as Error).message}`, evidence: [] }] };
  }
  const untrue = signingProblem(s, signatures);
  if (untrue) g = { verdict: 'ERROR', checks: [untrue, ...g.checks] };
  const warnings = protocolWarnings(diagnostics, d.unknownFields, claims?.degradations ?? []);
  if (warnings.length)
    g.checks.push({
      rule: 'CLIENT-PROTOCOL',
      verdict: 'INFORMATIONAL',
      reason: `${warnings.length} protocol warning(s); they cost nothing by themselves`,
      evidence: warnings.slice(0, 20),
      basis: 'protocol',
    });
  return {
    ...base,
    profile,
    ...(diagnostics?.stderr ? { stderr: diagnostics.stderr } : {}),
    card,
    verdict: g.verdict,
    checks: g.checks,
    claims,
    outcome: outcome.kind === 'crashed' ? { kind: 'crashed', reason: outcome.reason } : { kind: outcome.kind },
    transcript: transcript.events,
    ledger: markProbes(ledgerSnapshot, input()),
    ...(signatures ? { signatures } : {}),
    durationMs: Math.round(performance.now() - timing.started),
    ...(timing.lag ? { lag: timing.lag } : {}),
  };
}

/**
 * The rules read the signature's fate from the scenario (peer.signing); the harness's own check of the served card must agree,
 * or the verdict would rest on a description that is not true (a tamper that changed nothing the signature covers, say).
 */
function signingProblem(s: Scenario, signatures: SignatureStatus[] | undefined): Check | undefined {
  const sg = s.peer.signing;
  if (!sg) return undefined;
  const expected =
    sg.breaker || sg.tamper || sg.key === 'unlisted'
      ? 'does not verify'
      : sg.key === 'expired' || sg.key === 'not-yet-valid'
        ? 'verifies, but the key is outside its window'
        : 'verifies';
  const found = signatures?.at(-1);
  if (found && found.harness === expected) return undefined;
  return {
    rule: 'HARNESS',
    verdict: 'ERROR',
    reason: `the scenario's signing (${JSON.stringify(sg)}) should give a signature that ${expected}; the harness finds ${found ? `one that ${found.harness}${found.why ? ` (${found.why})` : ''}` : 'none'}`,
    evidence: [],
  };
}

/** The adapter's warnings, the result's fields the protocol does not define, and degradation records outside the closed list (docs/protocol.md). */
function protocolWarnings(diagnostics: ClientDiagnostics | undefined, unknownFields: string[], degradations: string[]): EvidenceRef[] {
  const strayRecords = degradations.filter((d) => !isKnownDegradation(d));
  return [
    ...(diagnostics?.warnings ?? []).map((w) => ({ fact: w, source: 'wire' as const })),
    ...(unknownFields.length
      ? [
          claimEvidence(
            `the result's field(s) ${unknownFields.map((k) => JSON.stringify(k)).join(', ')} are not ones the protocol defines (${REPORT_FIELDS.join(', ')}): ignored, not kept`,
          ),
        ]
      : []),
    ...strayRecords
      .slice(0, 5)
      .map((d) =>
        claimEvidence(
          `degradation record ${JSON.stringify(d.slice(0, 100))} is not one the harness reads (${DEGRADATION_RECORDS.join(', ')}, skill <from>-><to>): kept as a claim, read as absent`,
        ),
      ),
  ];
}
