/**
 * CREDENTIAL-SCOPE (issue 40, credentials that leave their origin): the run provisions OAuth 2.0
 * client credentials; the listeners record every Authorization by scheme and digest, and the rule
 * reads from them where the secret and the token went, against the card's token endpoint and
 * interfaces. The naive mutant's catch over every mutant is test/mutants.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import type { HttpEvent, WireEvent } from '../harness/core/transcript.js';
import { recorder } from './helpers/regrade.js';

const { record, regrade, checkOf } = recorder();
const https = (events: WireEvent[]) => events.filter((e): e is HttpEvent => e.kind === 'http');

describe('CREDENTIAL-SCOPE', () => {
  it('the reference: the secret to the token endpoint alone (an identity provider’s origin where the card says so), the token to the RPC alone, the card fetched bare', {
    timeout: 120_000,
  }, async () => {
    for (const id of ['credential-scope/card-on-cdn', 'credential-scope/token-on-identity-provider', 'credential-scope/one-origin']) {
      const r = await record('reference', id);
      const calls = https(r.transcript);
      const where = calls.filter((e) => e.headers.authorization).map((e) => `${e.headers.authScheme}@${e.listener}`);
      const idp = id.endsWith('identity-provider');
      expect(new Set(where), id).toEqual(new Set([`Basic@${idp ? 'vendor-b' : 'tls'}`, 'Bearer@tls']));
      expect(calls.find((e) => e.path.endsWith('agent-card.json'))!.headers.authorization, id).toBeUndefined();
      expect(checkOf(r, 'CREDENTIAL-SCOPE').verdict, id).toBe('PASS');
      expect(r.verdict, id).toBe('PASS');
    }
  });

  it('a token on the card fetch to a CDN: FAIL (harm), from the fetch on record; the same token on the agent’s own origin binds nothing', {
    timeout: 120_000,
  }, async () => {
    const cdn = await record('naive:sends-token-everywhere', 'credential-scope/card-on-cdn');
    const c = checkOf(cdn, 'CREDENTIAL-SCOPE');
    expect([c.verdict, c.basis]).toEqual(['FAIL', 'harm']);
    const fetch = https(cdn.transcript).find((e) => e.listener === 'cdn')!;
    expect(fetch.headers.authScheme).toBe('Bearer');
    expect(c.evidence.map((e) => e.seq)).toContain(fetch.seq);
    const one = await record('naive:sends-token-everywhere', 'credential-scope/one-origin');
    expect(https(one.transcript).find((e) => e.path.endsWith('agent-card.json'))!.headers.authScheme).toBe('Bearer');
    expect(checkOf(one, 'CREDENTIAL-SCOPE').verdict).toBe('PASS');
  });

  it('the client secret anywhere but the token endpoint is harm; a run with no credential on any request is INFORMATIONAL', { timeout: 120_000 }, async () => {
    const r = await record('reference', 'credential-scope/one-origin');
    const rpc = https(r.transcript).find((e) => e.rpc?.method === 'SendMessage')!;
    const secretToRpc = r.transcript.map((e) => (e === rpc ? { ...rpc, headers: { ...rpc.headers, authScheme: 'Basic', authDigest: '000000000000' } } : e));
    const leaked = checkOf(regrade(r, secretToRpc), 'CREDENTIAL-SCOPE');
    expect([leaked.verdict, leaked.basis]).toEqual(['FAIL', 'harm']);
    expect(leaked.reason).toMatch(/HTTP Basic credentials \(the client secret\) sent to .*\/rpc, which is not the token endpoint/);
    const bare = r.transcript.map((e) => (e.kind === 'http' ? { ...e, headers: { ...e.headers, authorization: undefined } } : e));
    expect(checkOf(regrade(r, bare), 'CREDENTIAL-SCOPE').verdict).toBe('INFORMATIONAL');
  });

  it('a peer without auth binds nothing', { timeout: 120_000 }, async () => {
    const r = await record('reference', 'stream-refusal/plain-json-error');
    expect(checkOf(r, 'CREDENTIAL-SCOPE')).toMatchObject({ verdict: 'INFORMATIONAL', reason: expect.stringMatching(/provisions no credentials/) });
  });
});
