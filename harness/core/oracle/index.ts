/**
 * The oracle: a pure function from (ground truth, profile, intent, wire evidence, claims) to checks
 * and a verdict (DESIGN.md §2). It never imports a client, and no client imports it.
 */
import { CROSS_CUTTING, type RuleId } from '../rules.js';
import { scenarioVerdict, toCheck, verdict, type Check, type Verdict, type VerdictKind } from '../verdict.js';
import type { GradeInput } from './evidence.js';
import { gradeEscalate, gradeLiveInput, gradePushMtls, gradeResubscribeOnly, gradeTlsVerify } from './seed000.js';
import { gradeA2aVersion, gradeDeadline, gradeHonestReport, gradeNoBlindRetry, gradeNoOrphans, gradeNoTaskAfterReject } from './wire.js';

export type { GradeInput, RunOutcome } from './evidence.js';

const GRADERS: Record<RuleId, (x: GradeInput) => Verdict> = {
  'NEG-LIVE-INPUT': gradeLiveInput,
  'NEG-PUSH-MTLS': gradePushMtls,
  'NEG-RESUB-ONLY-OUTPUT': gradeResubscribeOnly,
  'NEG-ESCALATE': gradeEscalate,
  'SPEC-TLS-VERIFY': gradeTlsVerify,
  'WIRE-NO-TASK-AFTER-REJECT': gradeNoTaskAfterReject,
  'WIRE-NO-ORPHANS': gradeNoOrphans,
  'WIRE-NO-BLIND-RETRY': gradeNoBlindRetry,
  'WIRE-DEADLINE': gradeDeadline,
  'WIRE-HONEST-REPORT': gradeHonestReport,
  'SPEC-A2A-VERSION': gradeA2aVersion,
};

export interface Grade {
  verdict: VerdictKind;
  checks: Check[];
}

/** Grades one scenario run: its own rule, then every cross-cutting check. */
export function grade(x: GradeInput): Grade {
  const rule = x.scenario.rule as RuleId;
  // A client may decline a task class at run time: coverage, not a grade, as long as it minted nothing.
  if (x.claims?.decision === 'unsupported' && x.tasks.length === 0 && !x.events.some((e) => e.kind === 'harness' && e.level === 'error'))
    return { verdict: 'UNSUPPORTED', checks: [toCheck(rule, verdict('UNSUPPORTED', `the client declined task class ${x.intent.taskClass} as unsupported, and minted no task`))] };
  const own = GRADERS[rule];
  const checks: Check[] = [];
  const harnessErrors = x.events.filter((e) => e.kind === 'harness' && e.level === 'error');
  if (harnessErrors.length > 0)
    checks.push(toCheck('HARNESS', verdict('ERROR', 'the harness itself failed during this run; the client is not blamed', harnessErrors.map((e) => ({ seq: e.seq, fact: e.kind === 'harness' ? e.message : '' })))));
  if (!own) {
    checks.push(toCheck(rule, verdict('ERROR', `no grader for rule ${rule}`)));
  } else {
    const v = own(x);
    checks.push(toCheck(rule, v));
    // A client that does not know the resolving extension is graded by the rule it would otherwise hit.
    if (rule === 'NEG-ESCALATE' && v.kind === 'INFORMATIONAL') checks.push(toCheck('NEG-LIVE-INPUT', gradeLiveInput(x)));
  }
  for (const id of CROSS_CUTTING) if (id !== rule) checks.push(toCheck(id, GRADERS[id](x)));
  return { verdict: scenarioVerdict(checks, rule), checks };
}
