/**
 * SPEC-INTERFACE-SELECTION (transport): The client uses the first interface of the card in a binding and dialect it speaks, with its tenant in every request, and rejects a card that offers none before any task.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { HttpEvent } from '../../../transcript.js';
import { claimEvidence, verdict, wireEvidence } from '../../../verdict.js';
import { dialectOfVersion, cardPointer } from '../../../protocol/card-view.js';
import { failed as failedCall, messageReplies, rpcCalls, situationOf } from '../../evidence.js';
import { creditRejection, mustComplete } from '../../graders.js';
import { binds, harm, informational, met, notBinding, signal, upFrontMiss, type Binding, type RuleOf, type Situation } from '../../rule.js';
import type { Verdict } from '../../../verdict.js';

/** A card's interfaces, in its order, with the dialect each speaks. */
const interfacesOf = (s: Situation) => s.card.interfaces.map((i) => ({ ...i, dialect: dialectOfVersion(i.protocolVersion) }));

type Iface = ReturnType<typeof interfacesOf>[number];

/** The bindings the client speaks in this run (none declared: JSON-RPC). */
const bindingsOf = (s: Situation): readonly string[] => s.profile.bindings ?? ['JSONRPC'];

/** The first interface, in the card's order, in a binding and a dialect the client speaks (§8.3.2 rules 1 and 2). */
const firstUsable = (s: Situation): Iface | undefined => {
  const spoken = s.profile.dialects ?? ['a2a-v1'];
  return interfacesOf(s).find((i) => i.dialect && spoken.includes(i.dialect) && bindingsOf(s).includes(i.protocolBinding));
};

/**
 * The selected interface where the card claims a version its endpoint does not speak (runtime.speaks):
 * the client could not know before its first call, and that call's refusal (-32601, -32009, an HTTP
 * 404) is the first it hears of it.
 */
const claimedNotSpoken = (s: Situation): Iface | undefined => {
  const first = firstUsable(s);
  const speaks = s.truth.runtime.speaks;
  // runtime.speaks changes only the card's main JSON-RPC interface ({{rpcUrl}}, the path /rpc): another one tells the truth.
  const main = first?.protocolBinding === 'JSONRPC' && /\/rpc$/.test(first.url.split('?')[0]!);
  return first && speaks && main && first.dialect !== speaks ? first : undefined;
};

const urlOf = (e: HttpEvent) => `${e.origin}${e.path.split('?')[0]}`;

/**
 * Whether a call went to an interface: of its binding, and at its URL (JSON-RPC's is the URL the call
 * was sent to; another binding's paths are below or beside it, so the interface whose endpoint took
 * the call, as the peer recorded it, says).
 */
function cameTo(e: HttpEvent, i: Pick<Iface, 'url' | 'protocolBinding'>): boolean {
  const binding = e.binding ?? 'JSONRPC';
  if (binding !== i.protocolBinding) return false;
  return binding === 'JSONRPC' ? urlOf(e) === i.url : e.interfaceUrl === i.url;
}

/** Where a call went, in words. */
const whereTo = (e: HttpEvent) => `${e.binding ?? 'JSONRPC'} ${e.interfaceUrl ?? urlOf(e)}`;

/** The tenant a call carried (in its params, where the binding reads it from: JSON-RPC and gRPC params, the HTTP+JSON path), or undefined; null where its params were not kept. */
function tenantOf(e: HttpEvent): string | undefined | null {
  const p = e.rpc?.params as Record<string, unknown> | undefined;
  if (!p || p['@truncated']) return null;
  return typeof p.tenant === 'string' && p.tenant !== '' ? p.tenant : undefined;
}

/** The first call whose tenant is not the interface's (§8.3.2 rule 4: exactly its value, or none where it sets none). */
const wrongTenant = (calls: HttpEvent[], i: Iface) => calls.find((e) => tenantOf(e) !== null && tenantOf(e) !== (i.tenant || undefined));

const answerOf = (e: HttpEvent) => `${e.rpc!.wireMethod ?? e.rpc!.method} → ${e.rpcError ? e.rpcError.code : e.status}`;

export const SPEC_INTERFACE_SELECTION: RuleOf<'SPEC-INTERFACE-SELECTION'> = {
  id: 'SPEC-INTERFACE-SELECTION',
  title:
    'The client uses the first interface of the card in a binding and dialect it speaks, with its tenant in every request, and rejects a card that offers none before any task',
  family: 'transport',
  scope: 'own',
  sources: [
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Parse supportedInterfaces if present, and select the first supported transport', level: 'MUST' },
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Prefer earlier entries in the ordered list when multiple options are supported', level: 'MUST' },
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Use the correct URL for the selected transport', level: 'MUST' },
    {
      doc: 'A2A v1.0.1',
      section: '8.3.2',
      quote:
        'Set the `tenant` field in every request message to exactly the value declared in the selected `AgentInterface` entry (omit the field if `tenant` is not set in that entry)',
      level: 'MUST',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.6',
      quote:
        'Patch version numbers SHOULD NOT be used in requests, responses and Agent Cards, and MUST not be considered when clients and servers negotiate protocol versions.',
      level: 'MUST',
    },
    {
      doc: 'A2A v0.3.0',
      section: '5.6.3',
      quote: 'Parse transport declarations: Extract available transports from both the main url/preferredTransport combination and all additionalInterfaces.',
      level: 'MUST',
    },
    {
      doc: 'A2A v0.3.0',
      section: '5.6.3',
      quote: 'URL-transport matching: Clients MUST use the correct URL for the selected transport protocol as declared in the AgentCard.',
      level: 'MUST',
    },
  ],
  limits: [
    {
      doc: 'A2A v1.0.1',
      section: '3.6.1',
      quote:
        'Clients MUST send the `A2A-Version` header with each request to maintain compatibility after an agent upgrades to a new version of the protocol (except for 0.3 Clients - 0.3 will be assumed for empty header).',
    },
    { doc: 'A2A v1.0.1', section: '3.6.2', quote: 'Agents MUST interpret empty value as 0.3 version.' },
    { doc: 'A2A v0.3.0', section: '5.6.3', quote: 'Prefer declared preference: If the client supports the preferredTransport, it SHOULD use the main url.' },
  ],
  grades: [
    {
      when: "a client that speaks v1.0 is graded by v1.0.1 §8.3.2; one that speaks only v0.3 by v0.3.0 §5.6.3 (url, preferredTransport, additionalInterfaces), which gives it no way to read a card in v1.0's format",
      verdict: 'the source that grades what follows',
    },
    {
      when: 'no interface in a dialect the client speaks (a v1.0-only card to a v0.3-only client, the reverse, a peer upgraded in place): any A2A call',
      verdict: 'FAIL (MUST: the wire shows the call the interface cannot take: -32009 or -32601)',
    },
    { when: 'the same: no call, after the card was read', verdict: 'PASS' },
    {
      when: "a card in v1.0's format that lists a 0.3 interface, to a client that speaks only v0.3: declined after reading it (a card it cannot read), or the 0.3 interface used and the task completed",
      verdict: 'PASS',
    },
    { when: 'the same: a call to a URL the card does not declare at 0.3', verdict: 'FAIL (MUST, v0.3.0 §5.6.3: the URL of the selected transport)' },
    {
      when: "an interface it speaks exists (the dialects of the run's profile): an A2A call goes elsewhere than the first such interface in the card's order",
      verdict: 'FAIL (MUST, §8.3.2)',
    },
    {
      when: 'the same, on the right interface: no task completed',
      verdict: 'FAIL (over-rejection; a card whose version carries a patch number, `1.0.1`, is 1.0)',
    },
    {
      when: 'every call on the selected interface, which refused one for now (429 or 503, gRPC UNAVAILABLE), and the client gave up without a task and said so (a decision other than proceeded)',
      verdict: 'PASS (the interface question is answered; how long to wait is not §8.3.2’s)',
    },
    {
      when: "interfaces in several bindings (the profile's `bindings`; none declared: JSON-RPC): an A2A call on another interface than the first one in the card's order in a binding and dialect the client speaks (the client's own favourite binding)",
      verdict: 'FAIL (MUST, §8.3.2 rules 1–3: one transport is selected, and its URL used)',
    },
    {
      when: 'the same interface selected first, then a switch to another after an error there',
      verdict:
        'NON_STRICT (convention: §8.3.2 selects one transport and says nothing of falling back; a second task or a blind retry the switch causes is the WIRE checks’ harm)',
    },
    {
      when: 'the card offers interfaces only in bindings the client does not speak (a custom binding): any A2A call',
      verdict: 'FAIL (MUST, §8.3.2)',
    },
    { when: 'the same: declined after reading the card, no call', verdict: 'PASS (not over-rejection: the card offers nothing the client can use)' },
    {
      when: 'a card that claims a version its endpoint does not speak (the other dialect’s method names get -32601): the client reported the refusal with no task, or re-sent in the dialect the endpoint speaks and completed the task',
      verdict: 'PASS (the first call was where §8.3.2 says; the card, not the client, was wrong)',
    },
    { when: 'the same: a report of `proceeded` or `downgraded` and no task minted', verdict: 'FAIL (harm: a success from refusals)' },
    {
      when: 'the selected interface sets `tenant`: a request without it, or with another value; one that sets none: a request with one',
      verdict: 'FAIL (MUST, §8.3.2 rule 4)',
    },
  ],
  notBinding: ["a card with no interface at all (not this rule's question: the card's validity is)"],
  // The card that claims a version its endpoint does not speak (runtime.speaks).
  motivatedBy: ['BerriAI/litellm#30795', 'a2aproject/a2a-samples#599'],
  applies(s) {
    const ifaces = interfacesOf(s);
    if (ifaces.length === 0) return notBinding('the card offers no interface');
    const spoken = s.profile.dialects ?? ['a2a-v1'];
    const bindings = bindingsOf(s);
    const first = firstUsable(s);
    const onlyJsonRpc = ifaces.every((i) => i.protocolBinding === 'JSONRPC');
    const offered = ifaces.map((i) => `${onlyJsonRpc ? '' : `${i.protocolBinding} `}${i.protocolVersion}${i.dialect ? '' : ' (unknown)'}`).join(', ');
    const pointer = cardPointer(s.card, 'protocolVersions');
    const by = spoken.includes('a2a-v1') ? 'v1.0.1 §8.3.2' : 'v0.3.0 §5.6.3 (the client speaks only v0.3)';
    if (!first) {
      const spokenBinding = ifaces.some((i) => bindings.includes(i.protocolBinding));
      return binds(
        onlyJsonRpc
          ? `the card offers JSON-RPC at ${offered}; the client speaks ${spoken.join(', ')}: no interface it can use (${by})`
          : `the card offers ${offered}; the client speaks ${bindings.join(', ')} in ${spoken.join(', ')}: no interface it can use (${by})${spokenBinding ? '' : '; declining is not over-rejection'}`,
        ['reject'],
        [signal(s, pointer, 'MUST', `protocol versions ${offered}`)],
      );
    }
    const index = ifaces.findIndex((i) => i.url === first.url && i.protocolBinding === first.protocolBinding && i.protocolVersion === first.protocolVersion);
    const which = onlyJsonRpc ? `#${index} of the card's JSON-RPC interfaces` : `#${index} of the card's interfaces (${first.protocolBinding})`;
    const tenant = first.tenant ? `, with tenant ${JSON.stringify(first.tenant)} in every request` : '';
    const claimed = claimedNotSpoken(s);
    if (claimed)
      return binds(
        `the card declares ${which} at ${claimed.protocolVersion}, and its endpoint speaks ${s.truth.runtime.speaks} only: the client selects it (${by}) and hears otherwise only from its first call's refusal; it reports the refusal, or re-sends in the dialect the endpoint speaks and completes the task`,
        ['reject', 'proceed'],
      );
    // v0.3.0 §5.6.3 reads a card's url, preferredTransport and additionalInterfaces: a card in v1.0's format has none of them,
    // so a client that speaks only v0.3 may decline it as unreadable; if it proceeds, only on the 0.3 interface.
    if (!spoken.includes('a2a-v1') && s.card.dialect !== 'a2a-v0.3')
      return binds(
        `the card is in v1.0's format (supportedInterfaces, no url or preferredTransport), to a client that speaks only v0.3, graded by v0.3.0 §5.6.3 (v1.0.1 §8.3.2 binds v1.0 clients): declining a card it cannot read is not over-rejection; proceeding is right only on ${which}, at ${first.protocolVersion}`,
        ['proceed', 'reject'],
        [signal(s, pointer, 'MUST', `protocol versions ${offered}`)],
      );
    return binds(
      `the first interface in ${onlyJsonRpc ? 'a dialect' : 'a binding and dialect'} the client speaks is ${which}, at ${first.protocolVersion}${tenant} (${by})`,
      ['proceed'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const s = situationOf(x);
    const calls = rpcCalls(x);
    const claimed = claimedNotSpoken(s);
    if (claimed) return gradeClaimNotSpoken(x, claimed, calls, b.reason);
    if (b.acceptable.includes('reject') && b.acceptable.includes('proceed')) {
      if (calls.length === 0)
        return creditRejection(x, "declined before any call a card in v1.0's format, which v0.3.0 §5.6.3 gives a client that speaks only v0.3 no way to read");
      const at = firstUsable(s)!;
      const wrong = calls.find((e) => !cameTo(e, at));
      if (wrong)
        return upFrontMiss(
          this,
          b as Binding,
          `called ${urlOf(wrong)} at #${wrong.seq}, which the card does not declare at ${at.protocolVersion} (v0.3.0 §5.6.3: the URL of the selected transport)`,
          [wireEvidence(wrong.seq, answerOf(wrong))],
        );
      return mustComplete(x, b.reason);
    }
    if (b.acceptable.includes('reject')) {
      if (calls.length > 0)
        return upFrontMiss(
          this,
          b as Binding,
          `called an interface in a binding or dialect the client does not speak (${calls.length} call(s))`,
          calls
            .slice(0, 3)
            .map((e) => wireEvidence(e.seq, `${e.rpc!.wireMethod ?? e.rpc!.method} to ${e.path.split('?')[0]} → ${e.rpcError ? e.rpcError.code : e.status}`)),
        );
      return creditRejection(x, 'declined before any call: no interface in a binding and dialect the client speaks');
    }
    const first = firstUsable(s)!;
    const wrong = calls.find((e) => !cameTo(e, first));
    if (wrong) {
      const before = calls.filter((e) => e.seq < wrong.seq && cameTo(e, first));
      const switched = before.find((e) => failedCall(e));
      // The first call went where §8.3.2 says; a fallback after it failed is what the text does not address: no more than a convention.
      if (switched)
        return verdict(
          'NON_STRICT',
          `switched to ${whereTo(wrong)} at #${wrong.seq} after #${switched.seq} failed on the selected interface (${first.protocolBinding} ${first.url}): §8.3.2 selects one transport and names no fallback`,
          [wireEvidence(switched.seq, answerOf(switched)), wireEvidence(wrong.seq, answerOf(wrong))],
          { basis: 'duty', level: 'convention' },
        );
      return upFrontMiss(
        this,
        b as Binding,
        `called ${whereTo(wrong)} at #${wrong.seq}, not the first interface the client speaks (${first.protocolBinding} ${first.url}, ${first.protocolVersion})`,
        [wireEvidence(wrong.seq, answerOf(wrong))],
      );
    }
    const stray = wrongTenant(calls, first);
    if (stray)
      return upFrontMiss(
        this,
        b as Binding,
        `${stray.rpc!.method} at #${stray.seq} carried tenant ${JSON.stringify(tenantOf(stray) ?? null)}; the selected interface declares ${first.tenant ? JSON.stringify(first.tenant) : 'none'} (§8.3.2 rule 4: exactly that value in every request)`,
        [wireEvidence(stray.seq, answerOf(stray))],
      );
    // Every call on the selected interface, and no task: where that interface refused the client for now (a 429 or
    // 503, gRPC UNAVAILABLE) and the client gave up and said so, this rule's question (which interface) is answered;
    // how long to wait is not §8.3.2's, and a report that claims more than the ledger is WIRE-HONEST-REPORT's.
    const busy = calls.find((e) => cameTo(e, first) && (e.status === 429 || e.status === 503));
    if (busy && x.tasks.length === 0 && x.claims && x.claims.decision !== 'proceeded' && x.claims.decision !== 'downgraded')
      return met(
        `stayed on the selected interface (${first.protocolBinding} ${first.url}); it answered #${busy.seq} ${busy.status}${busy.response?.retryAfter ? ` with Retry-After: ${busy.response.retryAfter}` : ''}, and the client gave up and said so (${x.claims.decision}): §8.3.2 selects the interface, it does not say how long to wait for it`,
        [wireEvidence(busy.seq, answerOf(busy)), claimEvidence(`decision: ${x.claims.decision}`)],
      );
    const done = mustComplete(x, b.reason);
    return done.kind === 'PASS' && calls[0]
      ? {
          ...done,
          evidence: [
            wireEvidence(
              calls[0].seq,
              `${calls[0].rpc!.wireMethod ?? calls[0].rpc!.method} to ${first.url} (${first.protocolBinding === 'JSONRPC' ? '' : `${first.protocolBinding}, `}${first.protocolVersion}), A2A-Version ${calls[0].headers.a2aVersion ?? calls[0].versionQuery ?? 'none (0.3)'}`,
            ),
            ...done.evidence,
          ],
        }
      : done;
  },
};

/**
 * A card that claims a version its endpoint does not speak: the first call to the selected interface
 * is refused (-32601 for the other dialect's method names, -32009, a 404), and no task comes of it.
 * The client reports that refusal (a decision other than proceeded, no task): PASS; or re-sends in the
 * dialect the endpoint speaks and completes the task: PASS (a re-send after a refusal that minted
 * nothing is no second task). A success reported from refusals alone is harm; no report is
 * WIRE-DEADLINE's; a blind re-send of the same call WIRE-NO-BLIND-RETRY's.
 */
function gradeClaimNotSpoken(x: Parameters<typeof mustComplete>[0], first: Iface, calls: HttpEvent[], why: string): Verdict {
  const said = x.outcome.kind === 'reported' ? x.claims?.decision : undefined;
  // No call, and a report of success: nothing was tried, so nothing is credited (WIRE-HONEST-REPORT grades the claim).
  if (calls.length === 0 && (said === 'proceeded' || said === 'downgraded')) return mustComplete(x, why);
  if (calls.length === 0)
    return creditRejection(
      x,
      `declined before any call, though the card declares ${first.protocolVersion} at ${first.url} (the claim was not put to the test; declining is not over-rejection here, since the intent cannot be completed there in the dialect declared)`,
    );
  const refused = calls.find((e) => cameTo(e, first) && failedCall(e));
  const trail = (refused ? [refused] : calls.slice(0, 3)).map((e) => wireEvidence(e.seq, answerOf(e)));
  // Adapted: a task (or a direct Message) came of a re-send in the dialect the endpoint speaks.
  if (x.tasks.length > 0 || messageReplies(x).length > 0) return mustComplete(x, why);
  const decision = x.outcome.kind === 'reported' ? x.claims?.decision : undefined;
  if (!decision) return informational(`no report (${x.outcome.kind}) after the refused call: WIRE-DEADLINE grades it`, trail);
  if (decision === 'proceeded' || decision === 'downgraded')
    return harm(
      `reported ${decision}, but ${refused ? `#${refused.seq} was refused and ` : ''}no task exists: the card's version claim was not checked against the answers`,
      [...trail, claimEvidence(`decision: ${decision}`)],
    );
  if (!refused) return mustComplete(x, why);
  return met(
    `called the interface the card declares at ${first.protocolVersion} (${first.url}); it refused #${refused.seq} (${refused.rpcError ? refused.rpcError.code : refused.status}), and the client reported it (${decision}) with no task minted`,
    [...trail, claimEvidence(`decision: ${decision}${x.claims?.notes ? ` — ${x.claims.notes}`.slice(0, 200) : ''}`)],
  );
}
