/**
 * A client's tier (docs/tiers.md), computed from its verdicts alone: the checks of its scenario run
 * (each with the level of its rule's duty, docs/rules.md) and, for Tier 1, its property run. Never from
 * what the client says of itself. Every condition that keeps a client from the next tier is listed
 * with the checks behind it, so a vendor knows what to fix.
 */
import type { Check } from '../../core/verdict.js';
import type { RunResults } from '../../core/results.js';
import { strongest, type Level, type Source } from '../../core/sources.js';
import type { TierBlocker, TierResult } from '../../core/matrix.js';

export type { TierBlocker, TierResult };
import { FAMILY_IDS } from '../../core/family-ids.js';
import { absentReasonPrefix } from '../../core/protocol/capabilities.js';
import { ruleById } from '../../core/oracle/rules.js';
import { type RequirementSet, scoredBy } from './requirements.js';

/** The property runs per family a Tier 1 client must pass (the `properties` default). */
export const TIER1_RUNS = 100;
/** The share of MUST and security rules a Tier 2 client passes. */
export const TIER2_SHARE = 0.8;
/** The share of the run's MUST and security rules a client must be graded on to be ranked at all. */
export const COVERAGE_SHARE = 0.5;

/** The verdicts that grade a client (INFORMATIONAL, UNSUPPORTED and ERROR do not). */
const GRADED = new Set(['PASS', 'NON_STRICT', 'FAIL', 'TIMEOUT']);
const FAILING = new Set(['FAIL', 'TIMEOUT']);

/**
 * The level of a check: the level that decided it where the oracle wrote one (a miss up front, a
 * missing record), else its rule's duty level (the strongest of its duty sources); `vendor` for a
 * vendor assertion, which cites none.
 */
export function checkLevel(c: Pick<Check, 'level' | 'sources'>): Level {
  return c.level ?? sourcesLevel(c);
}

/** A check's rule's level from its sources: the strongest duty source, or for a rule that only names harm (WIRE-NO-ORPHANS), the strongest of those. */
function sourcesLevel(c: { sources?: readonly Source[] }): Level {
  const sources = c.sources ?? [];
  return strongest(sources.filter((s) => (s.role ?? 'duty') === 'duty').map((s) => s.level)) ?? strongest(sources.map((s) => s.level)) ?? 'vendor';
}

/**
 * The level of a rule: from the sources its checks carry (the same in every check of a run), or,
 * where none does (a declined scenario's check cites nothing), from the rule registry; `vendor` for
 * a rule neither knows.
 */
function ruleLevel(id: string, checks: readonly Check[]): Level {
  const cited = checks.filter((c) => c.sources?.length);
  if (cited.length) return strongest(cited.map(sourcesLevel)) ?? 'vendor';
  const rule = ruleById(id);
  return rule ? sourcesLevel(rule) : 'vendor';
}

/** A scenario that grades the client: not declined (UNSUPPORTED, or a rejection the run could not credit, dialect.ts). */
const credited = (r: RunResults['results'][number]) => r.verdict !== 'UNSUPPORTED' && r.outcome.kind !== 'unsupported';

const MAX_ITEMS = 8;
/** The most not-scored scenarios a tier lists by id (the count is whole). */
const MAX_NOT_SCORED = 100;
const listed = <T>(all: T[]): { items: T[]; more: number } => ({ items: all.slice(0, MAX_ITEMS), more: Math.max(0, all.length - MAX_ITEMS) });

/** Every check of a run that grades the client (credited scenarios, graded verdicts, rules that bound), with its scenario and level. */
export function gradedChecks(run: RunResults): Array<{ scenario: string; check: Check; level: Level; glue?: string[] }> {
  return run.results
    .filter(credited)
    .flatMap((r) =>
      r.checks
        .filter((c) => GRADED.has(c.verdict) && c.basis !== 'not-binding')
        .map((c) => ({ scenario: r.id, check: c, level: checkLevel(c), ...(r.glue?.length ? { glue: r.glue } : {}) })),
    );
}

const strong = (l: Level) => l === 'MUST' || l === 'security';

/**
 * The tier of one client: `run`, its scenario run (merged across shards), and `properties`, its
 * property run where there is one. The conditions, exactly as docs/tiers.md states them.
 */
export function tierOf(given: RunResults, properties?: RunResults, scope?: { set: RequirementSet; current: RequirementSet }): TierResult {
  // Against a frozen requirement set: what was added after it runs and is shown, but is not scored.
  const scoped = scope ? scoredBy(given, scope.set, scope.current) : undefined;
  const run = scoped?.run ?? given;
  const familyIds = scope ? scope.set.families : FAMILY_IDS;
  const errors = run.results.filter((r) => r.verdict === 'ERROR');
  const checks = gradedChecks(run);
  const byRule = new Map<string, Check[]>();
  const allByRule = new Map<string, Check[]>();
  const push = (m: Map<string, Check[]>, id: string, c?: Check) => {
    const list = m.get(id) ?? m.set(id, []).get(id)!;
    if (c) list.push(c);
  };
  // Exercised: every rule a scenario names or a check grades by, declined scenarios included.
  for (const r of run.results) {
    push(allByRule, r.rule);
    for (const c of r.checks) push(allByRule, c.rule, c);
  }
  for (const x of checks) push(byRule, x.check.rule, x.check);
  const levelOf = (id: string) => ruleLevel(id, allByRule.get(id) ?? []);
  const exercised = [...allByRule.keys()].filter((id) => strong(levelOf(id)));
  const mustRules = [...byRule].filter(([id]) => strong(levelOf(id)));
  const failedRules = mustRules.filter(([, cs]) => cs.some((c) => FAILING.has(c.verdict)));
  const harmful = checks.filter((x) => x.check.basis === 'harm' && x.check.verdict === 'FAIL');
  const mustFailures = checks.filter((x) => strong(levelOf(x.check.rule)) && FAILING.has(x.check.verdict));
  const fams = properties?.properties ?? [];
  // A family passes when it was swept at the tier's runs, did not fail, and graded the client at least once.
  const graded = (f: (typeof fams)[number]) => (f.verdicts.PASS ?? 0) + (f.verdicts.NON_STRICT ?? 0);
  const passes = (f: (typeof fams)[number]) => !f.failed && f.runs >= TIER1_RUNS && graded(f) > 0;
  const passedFams = fams.filter((f) => familyIds.includes(f.family) && passes(f));
  // A run of a selection (--rule, --scenario, --grep, --dialect) is ranked, and says so wherever its tier is shown.
  const filtered = run.notRun.find((n) => n.reason.startsWith('filtered out by'));
  // A client that declares capabilities absent is ranked for the rest, and says so wherever its tier is shown.
  const declared = (run.client.notImplemented ?? []).map((a) => ({
    capability: a.capability,
    reason: a.reason,
    notRun: run.notRun.filter((n) => n.reason.startsWith(absentReasonPrefix(a.capability))).length,
  }));
  const summary = {
    ...(filtered ? { selection: filtered.reason.replace(/^filtered out by /, 'selected by ') } : {}),
    ...(declared.length ? { declared } : {}),
    mustRules: { graded: mustRules.length, passed: mustRules.length - failedRules.length, exercised: exercised.length },
    harm: harmful.length,
    properties: { given: !!properties, passed: passedFams.length, families: familyIds.length },
    ...(scoped
      ? {
          requirements: scoped.notScored.requirements,
          notScored: {
            scenarios: scoped.notScored.scenarios.length,
            checks: scoped.notScored.rules.reduce((n, r) => n + r.checks, 0),
            // Which, and why: a vendor sees what ran outside the set it publishes against.
            ...(scoped.notScored.scenarios.length ? { which: scoped.notScored.scenarios.slice(0, MAX_NOT_SCORED) } : {}),
            ...(scoped.notScored.rules.length ? { rules: scoped.notScored.rules } : {}),
          },
        }
      : {}),
  };
  const unranked = (withheld: string, blockers: TierBlocker[] = []): TierResult => ({ tier: null, label: 'unranked', withheld, ...summary, blockers });
  if (errors.length)
    return unranked(`the harness failed (ERROR) in ${errors.length} scenario(s): no tier is computed from a run the harness could not finish; run it again`, [
      {
        condition: 'no harness ERROR',
        ...listed(
          errors.map((r) => ({
            scenario: r.id,
            rule: r.rule,
            verdict: 'ERROR',
            why: r.checks.find((c) => c.verdict === 'ERROR')?.reason ?? 'the harness failed',
          })),
        ),
      },
    ]);
  const incomplete = run.incomplete ?? properties?.incomplete;
  if (incomplete)
    return unranked(
      `the merge lacks some of the run's shards (${(incomplete.shards ?? []).join(', ') || incomplete.why}): a tier is computed from a whole run`,
    );
  if (exercised.length === 0) return unranked('its scenarios exercise no MUST or security rule: there is nothing to rank it by');
  if (mustRules.length < COVERAGE_SHARE * exercised.length)
    return unranked(
      `graded on ${mustRules.length} of the ${exercised.length} MUST and security rule(s) its scenarios exercise (at least ${COVERAGE_SHARE * 100}% are needed: in the rest it declined the task, or the rule did not bind)`,
    );
  // A check whose scenario the client's hello ties to a choice of its glue says so (Hello.glue): the table then
  // blames the shim, not the library under it.
  const item = (x: { scenario: string; check: Check; level: Level; glue?: string[] }) => ({
    scenario: x.scenario,
    rule: x.check.rule,
    verdict: x.check.verdict,
    level: x.check.basis === 'harm' ? 'harm' : x.level,
    why: x.check.reason.split('\n')[0]!.slice(0, 300),
    ...(x.glue ? { glue: x.glue } : {}),
  });
  const harmBlocker: TierBlocker = { condition: 'no harm on the wire, at any level', ...listed(harmful.map(item)) };
  const share = mustRules.length ? summary.mustRules.passed / mustRules.length : 0;
  // Tier 2: no harm, and at least 80% of the MUST and security rules it was graded on pass.
  const tier2: TierBlocker[] = [];
  if (harmful.length) tier2.push(harmBlocker);
  if (share < TIER2_SHARE)
    tier2.push({
      condition: `at least ${TIER2_SHARE * 100}% of the MUST and security rules pass (${summary.mustRules.passed} of ${mustRules.length}, ${Math.floor(share * 100)}%)`,
      ...listed(
        failedRules.map(([rule]) => {
          const failing = checks.filter((x) => x.check.rule === rule && FAILING.has(x.check.verdict));
          const glued = failing.filter((x) => x.glue);
          return {
            rule,
            verdict: failing[0]!.check.verdict,
            level: levelOf(rule),
            why: `${failing.length} failing check(s)${glued.length ? `, ${glued.length} of them in scenarios the client's glue answers for` : ''}`,
            ...(glued.length ? { glue: [...new Set(glued.flatMap((x) => x.glue!))] } : {}),
          };
        }),
      ),
    });
  if (tier2.length) return { tier: null, label: 'unranked', ...summary, blockers: tier2 };
  // Tier 1: no FAIL or TIMEOUT at MUST or security level, and every property family passed at the default runs.
  const tier1: TierBlocker[] = [];
  if (mustFailures.length) tier1.push({ condition: 'no FAIL or TIMEOUT in a MUST or security rule', ...listed(mustFailures.map(item)) });
  if (!properties)
    tier1.push({
      condition: `every property family passes at --runs ${TIER1_RUNS} or more`,
      items: [{ why: 'no property run in these results (a2a-conformance properties, or matrix without --no-properties)' }],
      more: 0,
    });
  else {
    const short = [
      ...familyIds.filter((id) => !fams.some((f) => f.family === id)).map((family) => ({ family, why: 'not in the property run' })),
      ...fams
        .filter((f) => (!scope || familyIds.includes(f.family)) && !passes(f))
        .map((f) => ({
          family: f.family,
          why: f.failed
            ? `failed after ${f.ran} case(s)`
            : f.runs < TIER1_RUNS
              ? `swept with --runs ${f.runs}, fewer than ${TIER1_RUNS}`
              : 'no case of it graded this client (none could be told, it declined them, or no rule bound)',
        })),
    ];
    if (short.length) tier1.push({ condition: `every property family passes at --runs ${TIER1_RUNS} or more`, ...listed(short) });
  }
  if (tier1.length) return { tier: 2, label: 'tier 2', ...summary, blockers: tier1 };
  return { tier: 1, label: 'tier 1', ...summary, blockers: [] };
}
