/**
 * SPEC-A2A-VERSION (transport): Every A2A request names, in A2A-Version, a version the interface declares.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import { upFrontMissFails, weakest, type Level } from '../../../sources.js';
import type { HttpEvent } from '../../../transcript.js';
import { verdict, wireEvidence, type EvidenceRef } from '../../../verdict.js';
import { readCard } from '../../../protocol/card-view.js';
import { rpcCalls } from '../../evidence.js';
import { binds, informational, met, type RuleOf } from '../../rule.js';

/** `Major.Minor` of a version string, and whether it carried more (a patch number). */
function versionOf(v: string): { majorMinor?: string; patch: boolean } {
  const m = /^(\d+)\.(\d+)(\.\d+)?$/.exec(v.trim());
  return m ? { majorMinor: `${m[1]}.${m[2]}`, patch: !!m[3] } : { patch: false };
}

export const SPEC_A2A_VERSION: RuleOf<'SPEC-A2A-VERSION'> = {
  id: 'SPEC-A2A-VERSION',
  title: 'Every A2A request names, in A2A-Version, a version the interface declares',
  family: 'transport',
  scope: 'always',
  sources: [
    {
      doc: 'A2A v1.0.1',
      section: '3.6.1',
      quote:
        'Clients MUST send the `A2A-Version` header with each request to maintain compatibility after an agent upgrades to a new version of the protocol (except for 0.3 Clients - 0.3 will be assumed for empty header).',
      level: 'MUST',
    },
    {
      doc: 'A2A v1.0.1',
      section: '3.6',
      quote:
        'Patch version numbers SHOULD NOT be used in requests, responses and Agent Cards, and MUST not be considered when clients and servers negotiate protocol versions.',
      level: 'SHOULD',
    },
  ],
  limits: [
    { doc: 'A2A v1.0.1', section: '3.6.1', quote: 'Clients MAY provide the `A2A-Version` as a request parameter instead of a header.' },
    { doc: 'A2A v1.0.1', section: '3.6.2', quote: 'Agents MUST interpret empty value as 0.3 version.' },
    { doc: 'A2A v1.0.1', section: '3.6.2', quote: 'If the version is not supported by the interface, agents MUST return a VersionNotSupportedError.' },
  ],
  grades: [
    {
      when: 'a JSON-RPC request without A2A-Version (header or query parameter) to an interface that is not 0.3, or naming a Major.Minor the interface it went to does not declare',
      verdict: 'FAIL (MUST; a v1.0 peer answers -32009, so the break is on the wire)',
    },
    { when: 'a request to a 0.3 interface without A2A-Version', verdict: 'PASS (§3.6.1: "0.3 will be assumed for empty header")' },
    { when: 'the right Major.Minor with a patch number (`1.0.1`)', verdict: 'NON_STRICT (SHOULD NOT, §3.6; the peer accepts it)' },
    { when: 'the card GET', verdict: 'not graded: discovery is not an A2A operation (recorded in the transcript all the same)' },
  ],
  notBinding: ['no JSON-RPC request reached a peer: INFORMATIONAL'],
  applies() {
    return binds('every A2A request carries A2A-Version', ['proceed', 'downgrade', 'reject', 'escalate']);
  },
  grade(_b, x) {
    const calls = rpcCalls(x);
    if (calls.length === 0) return informational('no A2A request reached a peer');
    // Each call is held to the interface it went to (by URL); a v0.3 card's interfaces are 0.3 (CardView reads both dialects).
    const interfaces = readCard(x.card).interfaces.map((i) => ({ url: i.url, v: versionOf(i.protocolVersion).majorMinor }));
    const all = new Set(interfaces.map((i) => i.v).filter((v): v is string => !!v));
    const declaredFor = (e: HttpEvent) => {
      const at = `${e.origin}${e.path.split('?')[0]}`;
      const here = interfaces.filter((i) => i.url === at && i.v).map((i) => i.v!);
      return here.length ? new Set(here) : all;
    };
    const misses: Array<{ level: Level; ev: EvidenceRef }> = [];
    let empty = 0;
    for (const e of calls) {
      const sent = e.headers.a2aVersion ?? e.versionQuery;
      const how = e.headers.a2aVersion !== undefined ? 'header' : e.versionQuery !== undefined ? 'query parameter' : '';
      // §3.6.1: "except for 0.3 Clients - 0.3 will be assumed for empty header" (a wrong method name is not a version question).
      if ((sent === undefined || sent.trim() === '') && declaredFor(e).has('0.3')) {
        empty++;
        continue;
      }
      if (sent === undefined || sent.trim() === '') {
        misses.push({
          level: 'MUST',
          ev: wireEvidence(e.seq, `${e.rpc?.method} without A2A-Version (read as 0.3, §3.6.2)${e.rpcError ? ` → ${e.rpcError.code}` : ''}`),
        });
        continue;
      }
      const v = versionOf(sent);
      if (!v.majorMinor || !declaredFor(e).has(v.majorMinor))
        misses.push({
          level: 'MUST',
          ev: wireEvidence(
            e.seq,
            `${e.rpc?.method} with A2A-Version ${JSON.stringify(sent)} (${how}); the interface declares ${[...declaredFor(e)].join(', ') || 'none'}${e.rpcError ? ` → ${e.rpcError.code}` : ''}`,
          ),
        });
      else if (v.patch)
        misses.push({ level: 'SHOULD', ev: wireEvidence(e.seq, `${e.rpc?.method} with A2A-Version ${JSON.stringify(sent)}: a patch number (§3.6)`) });
    }
    if (misses.length === 0) {
      const named = calls.length - empty;
      const what = [named ? `${named} named a version the interface declares` : '', empty ? `${empty} to a 0.3 interface sent none (read as 0.3, §3.6.2)` : '']
        .filter(Boolean)
        .join('; ');
      return met(`of ${calls.length} A2A request(s), ${what}`, [
        wireEvidence(
          calls[0]!.seq,
          `${calls[0]!.rpc?.wireMethod ?? calls[0]!.rpc?.method} A2A-Version ${calls[0]!.headers.a2aVersion ?? calls[0]!.versionQuery ?? 'none'}`,
        ),
      ]);
    }
    const level = weakest(misses.some((m) => m.level === 'MUST') ? ['MUST'] : misses.map((m) => m.level)) ?? 'MUST';
    const worst = misses.filter((m) => m.level === level);
    return verdict(
      upFrontMissFails(level) ? 'FAIL' : 'NON_STRICT',
      `${worst.length} of ${calls.length} A2A request(s) ${level === 'MUST' ? 'without an A2A-Version the interface declares (§3.6.1 MUST)' : 'named a patch version (§3.6 SHOULD NOT)'}`,
      worst.slice(0, 5).map((m) => m.ev),
      { basis: 'duty', level },
    );
  },
};
