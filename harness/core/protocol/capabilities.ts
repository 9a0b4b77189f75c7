/**
 * What a client may declare it does not implement (hello.notImplemented; docs/protocol.md, "Declared
 * capabilities"): a closed list, so a declaration scopes a claim and never hides a failure of choice.
 * A scenario whose premise is the capability (the application hands the client a push receiver, a
 * signed card that holds is required, the agent takes only OAuth tokens) is not run for a client that
 * declares it absent, and says so with the client's reason; one where declining is itself the duty (a
 * required signature that does not hold) runs and is graded as before.
 */
export const CAPABILITIES = ['oauth-client-credentials', 'signed-card-verification', 'push-receiver', 'mtls-push-receiver', 'streaming'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** One capability a client declares it does not implement, and why (its own words, one line). */
export interface AbsentCapability {
  capability: Capability;
  reason: string;
}

/** How a scenario left out for a declared-absent capability begins its not-run reason (so tiers count them). */
export const absentReasonPrefix = (c: Capability): string => `needs ${c}, which the client declares it does not implement`;
