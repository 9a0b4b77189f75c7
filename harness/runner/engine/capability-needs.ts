/**
 * Which declared-absent capabilities a scenario needs (docs/protocol.md, "Declared capabilities"),
 * read from the scenario's own data: its peer's runtime and signing, and the profile and intent it
 * hands the client. A scenario whose premise is the capability needs it; one where declining is the
 * duty does not (a required signature that does not hold: a client that cannot verify must decline
 * there too, and proceeding is still graded as harm).
 */
import { vendorKeysTrusted } from '../../core/oracle/evidence.js';
import { breachOf } from '../../core/oracle/rules/trust/shared.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { absentReasonPrefix, type Capability } from '../../core/protocol/capabilities.js';
import type { Hello } from '../../core/protocol/types.js';

/** The capabilities a scenario's premise needs, each with what in the scenario needs it. */
export function capabilityNeeds(s: Pick<Scenario, 'peer' | 'profileConstraints' | 'intent'>): Array<{ capability: Capability; why: string }> {
  const out: Array<{ capability: Capability; why: string }> = [];
  if (s.peer.runtime?.auth)
    out.push({ capability: 'oauth-client-credentials', why: 'its agent takes only OAuth 2.0 tokens from the token endpoint its card names' });
  if (s.profileConstraints.requireSignedCards === true && s.peer.signing && !breachOf(s.peer.signing, vendorKeysTrusted(s.profileConstraints)))
    out.push({
      capability: 'signed-card-verification',
      why: 'the application requires signed cards, and this card’s signature holds: only a client that verifies it can go on',
    });
  const callback = s.profileConstraints.callback;
  if (callback === 'https' || callback === 'mtls') out.push({ capability: 'push-receiver', why: 'the application hands the client a push receiver' });
  if (callback === 'mtls') out.push({ capability: 'mtls-push-receiver', why: 'the application hands the client a partner-mTLS push receiver' });
  if (s.intent.completion === 'stream') out.push({ capability: 'streaming', why: "the application asks for the task's updates as a stream" });
  return out;
}

/** Why a client that declared some capabilities absent does not run this scenario, or undefined. */
export function capabilityProblem(hello: Pick<Hello, 'notImplemented'>, s: Pick<Scenario, 'peer' | 'profileConstraints' | 'intent'>): string | undefined {
  // None declared: every capability is taken as implemented.
  const absent = hello.notImplemented ?? [];
  if (!absent.length) return undefined;
  for (const need of capabilityNeeds(s)) {
    const declared = absent.find((a) => a.capability === need.capability);
    if (declared) return `${absentReasonPrefix(need.capability)} ("${declared.reason}"): ${need.why}`;
  }
  return undefined;
}
