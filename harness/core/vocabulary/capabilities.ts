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

/** What each capability is, in a vendor's words (the docs, `list`, the report and the matrix say it so). */
export const CAPABILITY_MEANING: Record<Capability, string> = {
  'oauth-client-credentials': 'getting an OAuth 2.0 token with client credentials from a token endpoint the card names, and presenting it',
  'signed-card-verification': "verifying a card's JWS signature against trusted keys (A2A v1.0.1 §8.4.3)",
  'push-receiver': 'hosting an HTTPS receiver for push notifications (A2A v1.0.1 §3.1.7, §13.2)',
  'mtls-push-receiver': 'a push receiver that also asks for and checks the sender’s client certificate (partner mTLS)',
  streaming: "taking a task's updates as a stream (SendStreamingMessage, SubscribeToTask)",
};

/** One capability a client declares it does not implement, and why (its own words, one line). */
export interface AbsentCapability {
  capability: Capability;
  reason: string;
}

/** How a scenario left out for a declared-absent capability begins its not-run reason (so tiers count them). */
export const absentReasonPrefix = (c: Capability): string => `needs ${c}, which the client declares it does not implement`;
