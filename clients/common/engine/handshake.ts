/**
 * The handshake: fetch the card over TLS, pass it through the trust gate, negotiate a plan from it,
 * take the credentials its security scheme asks for, and, where the card comes from another origin
 * than its RPC, probe that origin first (on the agent's own card where it serves one).
 */
import type { ClientReport } from '../../../harness/core/protocol/types.js';
import { oauthPlanFor, TokenSource } from '../auth.js';
import { type ClientCard, readClientCard } from '../card.js';
import { negotiate } from '../negotiate.js';
import { newMessageId } from '../transport.js';
import { checkTrust } from '../trust.js';
import { describe, type Handshake, type RunBase, rejected, taskOf } from './session.js';

export async function handshake(run: RunBase): Promise<Handshake | ClientReport> {
  const { req, t, taskIds, mistakes } = run;
  // The naive habit: a token from the provisioned credentials before anything else, on every request from then on.
  const provisioned = mistakes.sendsTokenEverywhere ? req.credentials?.find((c) => c.kind === 'oauth2-client-credentials') : undefined;
  if (provisioned)
    t.auth = new TokenSource({ scheme: 'provisioned', tokenUrl: provisioned.tokenUrl, scopes: [], credentials: provisioned, required: true }, t.fetchImpl);
  const fetched = await t.getJson(req.cardUrl);
  if (!fetched.ok)
    return rejected(taskIds, fetched.kind === 'network' || fetched.kind === 'cut' ? 'handshake' : 'untrusted-card', `card fetch failed: ${describe(fetched)}`);
  // The trust gate comes first: nothing is planned from a card the client cannot trust (A2A v1.0.1 §8.4.3).
  const cardJson = (fetched.json && typeof fetched.json === 'object' && !Array.isArray(fetched.json) ? fetched.json : {}) as Record<string, unknown>;
  const trust = await checkTrust(
    cardJson,
    req.profile,
    async (url) => {
      const got = await t.getJwks(url);
      return got.ok ? got : { ok: false };
    },
    mistakes,
  );
  // The naive resolver cached the card before verifying it: its retry after the failure takes the card from the cache as resolved.
  if (!trust.ok && !mistakes.cachesRejectedCard) return rejected(taskIds, 'untrusted-card', trust.notes);
  const card = readClientCard(fetched.json);
  const plan = negotiate(card, req.profile, req.intent, mistakes);
  if (plan.action === 'reject') return rejected(taskIds, plan.errorClass, plan.notes);
  t.use(plan);
  // Credentials for the scheme the card lists, with what the run provisioned (A2A §7.3): a token on every A2A request.
  const oauthPlan = oauthPlanFor(cardJson, req.credentials);
  if (oauthPlan && !provisioned) t.auth = new TokenSource(oauthPlan, t.fetchImpl);

  // A card from another origin than its RPC is no signal of freshness (docs/duties.md §11): probe the RPC origin
  // with an idempotent read before the first task: the agent's own card where it serves one (and
  // plan on it, spec §3.1.11), else ListTasks.
  if (mistakes.skipsProbe || new URL(req.cardUrl).origin === new URL(plan.rpcUrl).origin) return { plan, probeNote: '' };
  return probeOrigin(run, card, plan);
}

async function probeOrigin(run: RunBase, card: ClientCard, plan: Handshake['plan']): Promise<Handshake | ClientReport> {
  const { req, t, taskIds, mistakes } = run;
  if (card.extendedCard) {
    const got = await t.rpc(plan.rpcUrl, 'GetExtendedAgentCard', {});
    if (!got.ok || readClientCard(got.result).interfaces.length === 0)
      return { plan, probeNote: `GetExtendedAgentCard probe failed (${got.ok ? 'not a card' : describe(got)}); going on with the card as served` };
    const fresh = negotiate(readClientCard(got.result), req.profile, req.intent, mistakes);
    if (fresh.action === 'reject') return rejected(taskIds, fresh.errorClass, `the agent's own card (GetExtendedAgentCard): ${fresh.notes}`);
    t.use(fresh);
    // The agent's own card replaces the public one (§3.1.11), its security schemes too.
    const freshAuth = oauthPlanFor(got.result, req.credentials);
    if (freshAuth && (!t.auth || freshAuth.tokenUrl !== t.auth.plan.tokenUrl)) t.auth = new TokenSource(freshAuth, t.fetchImpl);
    return { plan: fresh, probeNote: "planned on the agent's own card (GetExtendedAgentCard), the card from the other origin replaced" };
  }
  if (plan.dialect === 'a2a-v0.3') {
    // v0.3 has no read that needs no task (no tasks/list): a minimal probe task, canceled at once.
    const probe = await t.rpc(plan.rpcUrl, 'SendMessage', {
      message: { messageId: newMessageId(), role: 'ROLE_USER', parts: [{ text: '.', mediaType: req.intent.input.mediaType }] },
      configuration: { returnImmediately: true },
    });
    const id = probe.ok ? taskOf(probe.result)?.id : undefined;
    if (id) taskIds.push(id); // a task it caused: reported, as every one is
    if (id) await t.rpc(plan.rpcUrl, 'CancelTask', { id });
    return {
      plan,
      probeNote: id
        ? `probed the RPC origin with a minimal task (${id}), canceled`
        : `the probe task was refused (${probe.ok ? 'no task' : describe(probe)}); going on with the card as served`,
    };
  }
  const got = await t.rpc(plan.rpcUrl, 'ListTasks', { pageSize: 1 });
  return { plan, probeNote: got.ok ? 'probed the RPC origin with ListTasks' : `ListTasks probe failed (${describe(got)}); going on with the card as served` };
}
