/**
 * The rule registry: the one place that lists the rules. Each rule is a file of its own under
 * rules/<family>/; its line here (an import and its place in REGISTRY) registers it. Everything
 * else follows from this list: RuleId and RULE_IDS (in this order: the order of `list --rules`, of
 * docs/rules.md and of the scenario schema's rule enum, both written by `npm run docs`), the
 * cross-cutting rules, and the ruleset version the results carry.
 */
import type { RuleOf } from './rule.js';
import { HS_ASPIRATIONAL_CAPABILITY } from './rules/handshake/hs-aspirational-capability.js';
import { HS_CHALLENGE_SCHEME } from './rules/handshake/hs-challenge-scheme.js';
import { HS_SKILL_OVERRIDE } from './rules/handshake/hs-skill-override.js';
import { HS_SPLIT_ORIGIN } from './rules/handshake/hs-split-origin.js';
import { NEG_ESCALATE } from './rules/negotiation/neg-escalate.js';
import { NEG_LIVE_INPUT } from './rules/negotiation/neg-live-input.js';
import { NEG_PUSH_MTLS } from './rules/negotiation/neg-push-mtls.js';
import { NEG_RESUB_ONLY_OUTPUT } from './rules/negotiation/neg-resub-only-output.js';
import { SPEC_A2A_VERSION } from './rules/transport/spec-a2a-version.js';
import { SPEC_INTERFACE_SELECTION } from './rules/transport/spec-interface-selection.js';
import { SPEC_TLS_VERIFY } from './rules/transport/spec-tls-verify.js';
import { TRUST_ALG } from './rules/trust/trust-alg.js';
import { TRUST_BAD_SIGNATURE } from './rules/trust/trust-bad-signature.js';
import { TRUST_NO_RETRY_ON_DECODE } from './rules/trust/trust-no-retry-on-decode.js';
import { TRUST_PARAM_MATCH } from './rules/trust/trust-param-match.js';
import { TRUST_SIGNED_UNINTERPRETABLE } from './rules/trust/trust-signed-uninterpretable.js';
import { TRUST_UNKNOWN_KID } from './rules/trust/trust-unknown-kid.js';
import { TRUST_UNTRUSTED_JKU } from './rules/trust/trust-untrusted-jku.js';
import { WIRE_DEADLINE } from './rules/wire/wire-deadline.js';
import { WIRE_HONEST_REPORT } from './rules/wire/wire-honest-report.js';
import { WIRE_NO_BLIND_RETRY } from './rules/wire/wire-no-blind-retry.js';
import { WIRE_NO_DESTROYED_WORK } from './rules/wire/wire-no-destroyed-work.js';
import { WIRE_NO_ORPHANS } from './rules/wire/wire-no-orphans.js';
import { WIRE_NO_TASK_AFTER_REJECT } from './rules/wire/wire-no-task-after-reject.js';
import { STREAM_RECOVERY } from './rules/wire/stream-recovery.js';
import { PUSH_AUTHENTICITY } from './rules/wire/push-authenticity.js';
import { PUSH_TASK_MATCH } from './rules/wire/push-task-match.js';
import { PUSH_RECEIPT } from './rules/wire/push-receipt.js';
import { STREAM_FRAMING } from './rules/wire/stream-framing.js';
import { STREAM_REFUSAL } from './rules/wire/stream-refusal.js';
import { TOLERANT_DECODING } from './rules/wire/tolerant-decoding.js';
import { STREAM_CLOSE } from './rules/wire/stream-close.js';
import { CREDENTIAL_SCOPE } from './rules/transport/credential-scope.js';
import { STREAM_BOUNDS } from './rules/wire/stream-bounds.js';

/**
 * The rule families in force, each with its version: the negotiation rules (docs/duties.md §1–4) as
 * objects with sources and levels (2), reading the client's decoders since 3 (an output the client
 * cannot decode is neither completable nor needed), the trust rules (§6–7; 1), the handshake rules
 * (§8–11; 1), and the rules from the spec's own text (`a2a-1.0.1`: 1 adds the choice among
 * bindings and the tenant to SPEC-INTERFACE-SELECTION, and STREAM-RECOVERY; 2 the client as webhook
 * receiver: PUSH-AUTHENTICITY, PUSH-TASK-MATCH, PUSH-RECEIPT; 3 acts read against what the client
 * knew, WIRE-NO-DESTROYED-WORK; 4 PUSH-RECEIPT grades a delivery written and never answered; 5
 * STREAM-FRAMING, an event stream read as the SSE standard frames it, and STREAM-REFUSAL, a refused stream
 * never an empty success; 6 a push is news to the client from when its connection was up, not from
 * when its post began; 7 TOLERANT-DECODING, unknown members read past; 8 STREAM-CLOSE, a stream left open after its terminal event; 9 STREAM-REFUSAL grades a refused
 * subscription to a task the client has: no report of success before it saw the task end; 10 CREDENTIAL-SCOPE, credentials only where the
 * card accepts them; 11 TOLERANT-DECODING reads values no version defines too, and answers the client
 * did not read; 12 STREAM-FRAMING binds an event split across TCP writes; 13 STREAM-BOUNDS, a
 * line or event that never ends; 14 SPEC-INTERFACE-SELECTION grades a card that claims a version its
 * endpoint does not speak, and a subscription refused as the task's end (§9.4.6) counts as seeing it end;
 * 15 the level `seed` is named `field`, and the families are named for what they grade, not for the
 * field reports they came from: `seed-000@3+seed-001@1+seed-003@1` before it, the same rules).
 */
export const RULESET_VERSION = 'negotiation@3+trust@1+handshake@1+a2a-1.0.1@15';

/** Every rule, in the order of their stable ids. */
const REGISTRY = [
  NEG_LIVE_INPUT,
  NEG_PUSH_MTLS,
  NEG_RESUB_ONLY_OUTPUT,
  NEG_ESCALATE,
  WIRE_NO_TASK_AFTER_REJECT,
  WIRE_NO_ORPHANS,
  WIRE_NO_BLIND_RETRY,
  WIRE_DEADLINE,
  WIRE_HONEST_REPORT,
  SPEC_TLS_VERIFY,
  SPEC_A2A_VERSION,
  SPEC_INTERFACE_SELECTION,
  TRUST_SIGNED_UNINTERPRETABLE,
  TRUST_NO_RETRY_ON_DECODE,
  TRUST_BAD_SIGNATURE,
  TRUST_UNKNOWN_KID,
  TRUST_UNTRUSTED_JKU,
  TRUST_ALG,
  TRUST_PARAM_MATCH,
  HS_SKILL_OVERRIDE,
  HS_CHALLENGE_SCHEME,
  HS_ASPIRATIONAL_CAPABILITY,
  HS_SPLIT_ORIGIN,
  STREAM_RECOVERY,
  PUSH_AUTHENTICITY,
  PUSH_TASK_MATCH,
  PUSH_RECEIPT,
  WIRE_NO_DESTROYED_WORK,
  STREAM_FRAMING,
  STREAM_REFUSAL,
  TOLERANT_DECODING,
  STREAM_CLOSE,
  CREDENTIAL_SCOPE,
  STREAM_BOUNDS,
] as const;

/** A rule's stable id: the ids the registered rules declare. */
export type RuleId = (typeof REGISTRY)[number]['id'];

/** A registered rule, whichever it is. */
export type Rule = RuleOf<RuleId>;

/** Every rule, in RULE_IDS order. */
export const RULES: readonly Rule[] = REGISTRY;

export const RULE_IDS: readonly RuleId[] = REGISTRY.map((r) => r.id);

export function isRuleId(id: string): id is RuleId {
  return (RULE_IDS as readonly string[]).includes(id);
}

export function ruleById(id: string): Rule | undefined {
  return RULES.find((r) => r.id === id);
}

/** Rules graded on every scenario besides its own (docs/rules.md, "Cross-cutting wire checks"). */
export const CROSS_CUTTING: readonly RuleId[] = RULES.filter((r) => r.scope === 'always').map((r) => r.id);
