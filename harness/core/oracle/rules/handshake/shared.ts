/**
 * Handshake rules (docs/duties.md §8–11): discovery is not negotiation. A card can be clean and still not
 * describe what the runtime binds: a skill narrows the card's input modes, a 401 names a scheme the
 * card never listed, a capability flag has no method behind it, a card from a CDN origin is stale.
 * A correct client reads the skill's modes (the proto says they override), never repeats a
 * structural failure unchanged, probes cheaply where the card cannot be trusted, and falls back to
 * the surface that works instead of aborting or stalling.
 *
 * Probes (docs/rules.md, "Probes"): a task the client minted and canceled itself before it started
 * another (or declined), or an idempotent read (GetExtendedAgentCard, ListTasks, GetTask; §3.3.1).
 * Every rule here has a residual variant: the probe passes, a larger payload fails on a ceiling no
 * card field shows. docs/duties.md §8 says only a check of the payload catches it; the rule reads INFORMATIONAL and says so.
 *
 * What the family's rules share (sources, helpers); each rule is a file of its own beside this one.
 */
import type { Limit, Source } from '../../../sources.js';
import type { Verdict } from '../../../verdict.js';
import { intentBytes, taskEvidence, wireTrail, type GradeInput } from '../../evidence.js';
import { mustComplete } from '../../graders.js';
import { notBinding, timeout, type Situation } from '../../rule.js';

export const SEED_NO_RETRY: Source = {
  doc: 'docs/duties.md',
  section: '6 The same failed call, sent again',
  quote: 'A failure that comes from what the card says does not go away when the same call is sent again; retrying it is never the fix.',
  level: 'field',
  role: 'harm',
};

export const SEED_PROBE: Source = {
  doc: 'docs/duties.md',
  section: '10 A capability the agent does not keep',
  quote:
    'Before relying on such a claim, the client probes it: it calls the very method the flag implies, or sends a minimal, harmless task, and lets the result decide.',
  level: 'field',
};

export const SEED_NOT_ABORT: Source = {
  doc: 'docs/duties.md',
  section: '10 A capability the agent does not keep',
  quote: 'The answer to a claim the agent does not keep is not to give up but to use what the card and the agent both offer, as the probe showed.',
  level: 'field',
};

export const SEED_RESIDUAL: Limit = {
  doc: 'docs/duties.md',
  section: '8 A skill that narrows the card',
  quote: 'A probe that passes does not cover every payload: a larger one may still fail, which only a check of the payload itself catches.',
};

/**
 * The residual risk of docs/duties.md §8, where the scenario scripts it: the intent's payload is over a ceiling
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
    `Residual risk (docs/duties.md §8): a probe passes, but this intent's payload (${bytes} bytes) is over a ceiling no card field shows (HTTP 413 above ${max} bytes of request); no signal covers it, so this rule does not grade it. The cross-cutting checks still do: the 413 never repeated unchanged, no task left open`,
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
