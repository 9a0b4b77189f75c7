/**
 * Handshake rules (seed 003): discovery is not negotiation. A card can be clean and still not
 * describe what the runtime binds: a skill narrows the card's input modes, a 401 names a scheme the
 * card never listed, a capability flag has no method behind it, a card from a CDN origin is stale.
 * A correct client reads the skill's modes (the proto says they override), never repeats a
 * structural failure unchanged, probes cheaply where the card cannot be trusted, and falls back to
 * the surface that works instead of aborting or stalling.
 *
 * Probes (docs/rules.md, "Probes"): a task the client minted and canceled itself before it started
 * another (or declined), or an idempotent read (GetExtendedAgentCard, ListTasks, GetTask; §3.3.1).
 * Every rule here has a residual variant: the probe passes, a larger payload fails on a ceiling no
 * card field shows. The seed says no signal covers it; the rule reads INFORMATIONAL and says so.
 *
 * What the family's rules share (sources, helpers); each rule is a file of its own beside this one.
 */
import type { Limit, Source } from '../../../sources.js';
import type { Verdict } from '../../../verdict.js';
import { intentBytes, taskEvidence, wireTrail, type GradeInput } from '../../evidence.js';
import { mustComplete } from '../../graders.js';
import { notBinding, timeout, type Situation } from '../../rule.js';

export const SEED_NO_RETRY: Source = {
  doc: 'seed 003',
  section: 'Decision Boundary',
  quote: 'Do not attempt to reconcile the card by retrying the same failed call. The gap is structural, not transient.',
  level: 'seed',
  role: 'harm',
};

export const SEED_PROBE: Source = {
  doc: 'seed 003',
  section: 'Decision Boundary',
  quote:
    "Instead, perform a capability probe — submit a minimal, idempotent task (or invoke the specific method the flag implies) and gate the real delegation on the probe's result.",
  level: 'seed',
};

export const SEED_NOT_ABORT: Source = {
  doc: 'seed 003',
  section: 'Decision Boundary',
  quote: 'The decision is not "abort" — it is "downgrade to the intersection of card and runtime, verified by probe."',
  level: 'seed',
};

export const SEED_RESIDUAL: Limit = {
  doc: 'seed 003',
  section: 'Operational Effect',
  quote:
    'The residual risk — a delegate that passes the probe but fails on a larger payload — is not covered by these signals and must be handled by payload-level validation.',
};

/**
 * The seed's residual risk, where the scenario scripts it: the intent's payload is over a ceiling
 * of the runtime that no card field shows. No signal covers it, so a rule of this family does not
 * grade it; the cross-cutting checks still do.
 */
export function residual(s: Situation) {
  const max = s.truth.runtime.maxRequestBytes;
  const bytes = intentBytes(s.intent);
  // The ceiling is on the whole request body: the payload (base64 for raw frames) plus a JSON-RPC
  // envelope, allowed 1 KiB. Near the ceiling the rule stands down rather than grade a lost cause.
  const body = (s.intent.input.frames ? Math.ceil((bytes * 4) / 3) : bytes) + 1024;
  if (max === undefined || body <= max) return undefined;
  return notBinding(
    `Residual risk (seed 003, Operational Effect): a probe passes, but this intent's payload (${bytes} bytes) is over a ceiling no card field shows (HTTP 413 above ${max} bytes of request); no signal covers it, so this rule does not grade it. The cross-cutting checks still do: the 413 never repeated unchanged, no task left open`,
  );
}

/**
 * The intent completed, as the ledger shows it; a client still running at the deadline gets TIMEOUT
 * even where the peer completed the task behind its back (it never saw it: a stall).
 */
export function complete(x: GradeInput, why: string): Verdict {
  if (x.outcome.kind === 'timeout') return timeout(`no decision by the deadline although ${why}`, [...taskEvidence(x), ...wireTrail(x)]);
  return mustComplete(x, why);
}
