/**
 * SPEC-INTERFACE-SELECTION (transport): The client uses the first interface of the card in a dialect it speaks, and rejects a card that offers none before any task.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { HttpEvent } from '../../../transcript.js';
import { wireEvidence } from '../../../verdict.js';
import { dialectOfVersion, cardPointer } from '../../../vocabulary/card-view.js';
import { rpcCalls, situationOf } from '../../evidence.js';
import { creditRejection, mustComplete } from '../../graders.js';
import { binds, informational, notBinding, signal, upFrontMiss, type Binding, type RuleOf, type Situation } from '../../rule.js';

/** The JSON-RPC interfaces of a card, in its order, with the dialect each speaks. */
const jsonRpcInterfaces = (s: Situation) =>
  s.card.interfaces.filter((i) => i.protocolBinding === 'JSONRPC').map((i) => ({ ...i, dialect: dialectOfVersion(i.protocolVersion) }));

const urlOf = (e: HttpEvent) => `${e.origin}${e.path.split('?')[0]}`;

export const SPEC_INTERFACE_SELECTION: RuleOf<'SPEC-INTERFACE-SELECTION'> = {
  id: 'SPEC-INTERFACE-SELECTION',
  title: 'The client uses the first interface of the card in a dialect it speaks, and rejects a card that offers none before any task',
  family: 'transport',
  scope: 'own',
  sources: [
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Parse supportedInterfaces if present, and select the first supported transport', level: 'MUST' },
    { doc: 'A2A v1.0.1', section: '8.3.2', quote: 'Prefer earlier entries in the ordered list when multiple options are supported', level: 'MUST' },
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
  ],
  notBinding: ["a card with no JSON-RPC interface at all (not this rule's question)"],
  applies(s) {
    const ifaces = jsonRpcInterfaces(s);
    if (ifaces.length === 0) return notBinding('the card offers no JSON-RPC interface');
    const spoken = s.profile.dialects ?? ['a2a-v1'];
    const first = ifaces.find((i) => i.dialect && spoken.includes(i.dialect));
    const offered = ifaces.map((i) => `${i.protocolVersion}${i.dialect ? '' : ' (unknown)'}`).join(', ');
    const pointer = cardPointer(s.card, 'protocolVersions');
    const by = spoken.includes('a2a-v1') ? 'v1.0.1 §8.3.2' : 'v0.3.0 §5.6.3 (the client speaks only v0.3)';
    if (!first)
      return binds(
        `the card offers JSON-RPC at ${offered}; the client speaks ${spoken.join(', ')}: no interface it can use (${by})`,
        ['reject'],
        [signal(s, pointer, 'MUST', `protocol versions ${offered}`)],
      );
    const index = ifaces.indexOf(first);
    // v0.3.0 §5.6.3 reads a card's url, preferredTransport and additionalInterfaces: a card in v1.0's format has none of them,
    // so a client that speaks only v0.3 may decline it as unreadable; if it proceeds, only on the 0.3 interface.
    if (!spoken.includes('a2a-v1') && s.card.dialect !== 'a2a-v0.3')
      return binds(
        `the card is in v1.0's format (supportedInterfaces, no url or preferredTransport), to a client that speaks only v0.3, graded by v0.3.0 §5.6.3 (v1.0.1 §8.3.2 binds v1.0 clients): declining a card it cannot read is not over-rejection; proceeding is right only on #${index} of the card's JSON-RPC interfaces, at ${first.protocolVersion}`,
        ['proceed', 'reject'],
        [signal(s, pointer, 'MUST', `protocol versions ${offered}`)],
      );
    return binds(`the first interface in a dialect the client speaks is #${index} of the card's JSON-RPC interfaces, at ${first.protocolVersion} (${by})`, [
      'proceed',
    ]);
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    const s = situationOf(x);
    const calls = rpcCalls(x);
    const spoken = s.profile.dialects ?? ['a2a-v1'];
    if (b.acceptable.includes('reject') && b.acceptable.includes('proceed')) {
      if (calls.length === 0)
        return creditRejection(x, "declined before any call a card in v1.0's format, which v0.3.0 §5.6.3 gives a client that speaks only v0.3 no way to read");
      const at = jsonRpcInterfaces(s).find((i) => i.dialect && spoken.includes(i.dialect))!;
      const wrong = calls.find((e) => urlOf(e) !== at.url);
      if (wrong)
        return upFrontMiss(
          this,
          b as Binding,
          `called ${urlOf(wrong)} at #${wrong.seq}, which the card does not declare at ${at.protocolVersion} (v0.3.0 §5.6.3: the URL of the selected transport)`,
          [wireEvidence(wrong.seq, `${wrong.rpc!.wireMethod ?? wrong.rpc!.method} → ${wrong.rpcError ? wrong.rpcError.code : wrong.status}`)],
        );
      return mustComplete(x, b.reason);
    }
    if (b.acceptable.includes('reject')) {
      if (calls.length > 0)
        return upFrontMiss(
          this,
          b as Binding,
          `called an interface in a dialect the client does not speak (${calls.length} call(s))`,
          calls
            .slice(0, 3)
            .map((e) => wireEvidence(e.seq, `${e.rpc!.wireMethod ?? e.rpc!.method} to ${e.path.split('?')[0]} → ${e.rpcError ? e.rpcError.code : e.status}`)),
        );
      return creditRejection(x, 'declined before any call: no interface in a dialect the client speaks');
    }
    const first = jsonRpcInterfaces(s).find((i) => i.dialect && (s.profile.dialects ?? ['a2a-v1']).includes(i.dialect))!;
    const wrong = calls.find((e) => urlOf(e) !== first.url);
    if (wrong)
      return upFrontMiss(
        this,
        b as Binding,
        `called ${urlOf(wrong)} at #${wrong.seq}, not the first interface the client speaks (${first.url}, ${first.protocolVersion})`,
        [wireEvidence(wrong.seq, `${wrong.rpc!.wireMethod ?? wrong.rpc!.method} → ${wrong.rpcError ? wrong.rpcError.code : wrong.status}`)],
      );
    const done = mustComplete(x, b.reason);
    return done.kind === 'PASS' && calls[0]
      ? {
          ...done,
          evidence: [
            wireEvidence(
              calls[0].seq,
              `${calls[0].rpc!.wireMethod ?? calls[0].rpc!.method} to ${first.url} (${first.protocolVersion}), A2A-Version ${calls[0].headers.a2aVersion ?? calls[0].versionQuery ?? 'none (0.3)'}`,
            ),
            ...done.evidence,
          ],
        }
      : done;
  },
};
