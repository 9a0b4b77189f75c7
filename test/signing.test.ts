/**
 * Card signing (A2A v1.0.1 §8.4): the canonical form this harness signs (its reading, in
 * harness/core/card-canonical.ts), signatures a peer makes, the ways they are broken, and how they
 * fare with two verifiers written elsewhere: jose's and @a2a-js/sdk 1.3.0's.
 */
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { flattenedVerify, importJWK, type JWK } from 'jose';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cardSigningPayload, cleanEmptySigningPayload, contestedCanonicalForm } from '../harness/core/card-canonical.js';
import { sameMediaType } from '../harness/core/protocol/media-type.js';
import { fillCard } from '../harness/core/scenario/card.js';
import { BREAKERS, jwksOf, makeSigningKey, signCard, signedCardParts, withSignature, type CardSignature, type SigningKey } from '../peers/runtime/signing.js';
import { canonicalCardPayload } from '../clients/common/canonical.js';
import { checkTrust } from '../clients/common/trust.js';
import { DEFAULT_PROFILE, type ClientProfile } from '../harness/core/protocol/types.js';
import type { HttpEvent } from '../harness/core/transcript.js';
import { startHarness } from './helpers/harness.js';
import { peerFixture, type PeerFixture } from './helpers/peer.js';
import { ALL_SCENARIOS, scenario } from './helpers/scenarios.js';

const filled = (id: string) => fillCard(scenario(id).peer.card, { rpcUrl: 'https://127.0.0.1:1/a2a', negotiationUrl: 'https://127.0.0.1:1/negotiate' });
const CONTROL = 'spec-tls-verify/valid-certificate-control';

/** jose's verdict on one signature of a card, with the payload this harness computes. */
async function joseVerifies(card: Record<string, unknown>, sig: CardSignature, key: SigningKey): Promise<boolean> {
  const jws = { protected: sig.protected, signature: sig.signature, payload: Buffer.from(cardSigningPayload(card)).toString('base64url') };
  return flattenedVerify(jws, await importJWK(key.jwk as JWK, 'ES256'), { algorithms: ['ES256'] }).then(
    () => true,
    () => false,
  );
}

/** @a2a-js/sdk's verifier, its keys looked up by `kid` in a JWKS. */
async function sdkVerifies(card: Record<string, unknown>, keys: SigningKey[]): Promise<boolean> {
  const verify = verifyAgentCardSignature(async (kid: string) => {
    const k = keys.find((x) => x.kid === kid);
    if (!k) throw new Error(`no key ${kid}`);
    return k.jwk as JWK;
  });
  // The SDK logs each failed entry with console.debug: quiet here, the verdict is what counts.
  const quiet = vi.spyOn(console, 'debug').mockImplementation(() => {});
  return verify(card as never)
    .then(
      () => true,
      () => false,
    )
    .finally(() => quiet.mockRestore());
}

/** The built-in scenarios whose cards are v1.0 cards (v0.3 specifies no canonical form to sign). */
const V1_SCENARIOS = ALL_SCENARIOS.filter((s) => (s.peer.dialect ?? 'a2a-v1') === 'a2a-v1');

describe('the canonical form a card signature covers (§8.4.1, the reading in card-canonical.ts)', () => {
  it("gives the spec's worked example byte for byte; @a2a-js/sdk 1.3.0 drops the REQUIRED empty fields there (a2a-js#627)", () => {
    const fragment = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    // §8.4.1, "After applying RFC 8785".
    expect(cardSigningPayload(fragment)).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
    expect(canonicalizeAgentCard(fragment as never)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}');
  });

  it('removes `signatures` and default values of fields without presence; keeps REQUIRED and `optional` ones; keeps unknown fields', () => {
    const card: Record<string, unknown> = {
      ...filled(CONTROL),
      signatures: [{ protected: 'x', signature: 'y' }],
      iconUrl: '',
      provider: { organization: 'Contoso', url: 'https://contoso.example' },
    };
    (card.skills as Array<Record<string, unknown>>)[0]!.examples = [];
    const payload = JSON.parse(cardSigningPayload(card)) as Record<string, unknown>;
    expect(payload.signatures).toBeUndefined();
    expect(payload.iconUrl).toBe(''); // `optional string icon_url`: set, so kept
    expect((payload.skills as Array<Record<string, unknown>>)[0]!.examples).toBeUndefined(); // repeated, not REQUIRED, empty
  });

  it('agrees with @a2a-js/sdk 1.3.0 on every built-in v1.0 card but those with a set and empty message (a security requirement without scopes, `capabilities: {}`), which the SDK drops', () => {
    const differ = V1_SCENARIOS.filter((s) => {
      const card = filled(s.id);
      return cardSigningPayload(card) !== canonicalizeAgentCard(card as never);
    }).map((s) => s.id);
    // `securityRequirements: [{ schemes: { partnerMtls: { list: [] } } }]`: the StringList is a message
    // that was set (a scheme required with no scopes), so `{}` stays here; the SDK's cleanEmpty removes
    // it, then the emptied map, then the requirement itself. `capabilities: {}` likewise.
    const emptyMessage = V1_SCENARIOS.filter((s) => {
      const card = filled(s.id);
      return /"(partnerMtls|[A-Za-z]+)":\{("list":\[\])?\}/.test(JSON.stringify(card.securityRequirements ?? [])) || JSON.stringify(card.capabilities) === '{}';
    }).map((s) => s.id);
    expect(emptyMessage).toEqual(expect.arrayContaining(['trust-canonical/empty-scope-requirement', 'trust-canonical/empty-capabilities']));
    expect(differ).toEqual(emptyMessage);
    // The harness names the divergence on exactly those cards.
    expect(V1_SCENARIOS.filter((s) => contestedCanonicalForm(filled(s.id)).length > 0).map((s) => s.id)).toEqual(emptyMessage);
  });

  it("the harness's account of the clean-empty reading gives the SDK's bytes: on every built-in v1.0 card, the spec's example, and cards with empty values at every depth", () => {
    const fragment = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    const odd = {
      ...filled(CONTROL),
      iconUrl: '',
      documentationUrl: '',
      capabilities: {},
      securitySchemes: { m: { mtlsSecurityScheme: {} }, k: { apiKeySecurityScheme: { description: '', location: 'header', name: 'X-Key' } } },
      securityRequirements: [{ schemes: { m: { list: [] } } }, { schemes: {} }],
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], examples: [], inputModes: [] }],
      vendorField: { nested: '' },
    };
    for (const card of [...V1_SCENARIOS.map((s) => filled(s.id)), fragment, odd])
      expect(cleanEmptySigningPayload(card)).toBe(canonicalizeAgentCard(card as never));
  });

  it("the built-in clients' own canonical form, written apart from this one, agrees with it on the spec's example and on every built-in card", () => {
    const fragment = { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] };
    expect(canonicalCardPayload(fragment)).toBe(cardSigningPayload(fragment));
    const differ = ALL_SCENARIOS.filter((s) => canonicalCardPayload(filled(s.id)) !== cardSigningPayload(filled(s.id))).map((s) => s.id);
    expect(differ).toEqual([]);
    // Security schemes with defaults at every depth (OAuth flows included), none of which the built-in cards carry.
    const schemes = {
      ...filled(CONTROL),
      securitySchemes: {
        oauth: {
          oauth2SecurityScheme: {
            description: '',
            oauth2MetadataUrl: '',
            flows: {
              clientCredentials: { tokenUrl: 'https://auth.example/token', refreshUrl: '', scopes: {} },
              authorizationCode: {
                authorizationUrl: 'https://auth.example/a',
                tokenUrl: 'https://auth.example/t',
                refreshUrl: '',
                scopes: { read: 'r' },
                pkceRequired: false,
              },
            },
          },
        },
        key: { apiKeySecurityScheme: { description: '', location: 'header', name: 'X-Key' } },
        mtls: { mtlsSecurityScheme: {} },
      },
      securityRequirements: [{ schemes: { oauth: { list: [] } } }, { schemes: {} }],
    };
    expect(canonicalCardPayload(schemes)).toBe(cardSigningPayload(schemes));
  });

  it('so a signature the SDK checks does not cover such a requirement: removing it goes unseen there, not here', async () => {
    const key = makeSigningKey('vendorx-2026-11');
    const card = filled('neg-push-mtls/mtls-receiver');
    const { importPKCS8 } = await import('jose');
    const pem = key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const signed = (await generateAgentCardSignature(await importPKCS8(pem, 'ES256'), { alg: 'ES256', typ: 'JOSE', kid: key.kid })(
      card as never,
    )) as unknown as Record<string, unknown>;
    const { securityRequirements: _dropped, ...stripped } = signed;
    expect(await sdkVerifies(stripped, [key])).toBe(true);
    const ours = withSignature(card, signCard(card, key));
    const { securityRequirements: _gone, ...strippedOurs } = ours;
    expect(await joseVerifies(strippedOurs, (ours.signatures as CardSignature[])[0]!, key)).toBe(false);
  });
});

describe('signatures a peer makes (§8.4.2) and the ways they break', () => {
  const key = makeSigningKey('vendorx-2026-11');
  const other = makeSigningKey('vendorx-rotated');

  it('a signed card verifies with jose and with @a2a-js/sdk; its protected header carries alg, typ and kid (and jku when given)', async () => {
    const card = filled(CONTROL);
    const sig = signCard(card, key, { header: { jku: 'https://127.0.0.1:1/.well-known/jwks.json' } });
    const signed = withSignature(card, sig);
    expect(JSON.parse(Buffer.from(sig.protected, 'base64url').toString())).toEqual({
      alg: 'ES256',
      typ: 'JOSE',
      kid: 'vendorx-2026-11',
      jku: 'https://127.0.0.1:1/.well-known/jwks.json',
    });
    expect(await joseVerifies(signed, sig, key)).toBe(true);
    expect(await sdkVerifies(signed, [key])).toBe(true);
    expect(jwksOf([key, other]).keys.map((k) => k.kid)).toEqual(['vendorx-2026-11', 'vendorx-rotated']);
    expect(jwksOf([key]).keys[0]!.d).toBeUndefined(); // public keys only
  });

  it('a card signed by @a2a-js/sdk verifies against the canonical form this harness computes', async () => {
    const card = filled(CONTROL);
    const { importPKCS8 } = await import('jose');
    const pem = key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const signed = (await generateAgentCardSignature(await importPKCS8(pem, 'ES256'), { alg: 'ES256', typ: 'JOSE', kid: key.kid })(
      card as never,
    )) as unknown as Record<string, unknown>;
    const sig = (signed.signatures as CardSignature[])[0]!;
    expect(await joseVerifies(signed, sig, key)).toBe(true);
  });

  it('a card changed after signing, a signature by a key not in the JWKS, `alg: none` and HS256 keyed with the public key all fail both verifiers', async () => {
    const card = filled(CONTROL);
    const tampered: Record<string, unknown> = {
      ...withSignature(card, signCard(card, key)),
      defaultOutputModes: ['application/vnd.vendorx.workflow+json;profile="v3"'],
    };
    expect(await joseVerifies(tampered, (tampered.signatures as CardSignature[])[0]!, key)).toBe(false);
    expect(await sdkVerifies(tampered, [key])).toBe(false);

    const byOther = withSignature(card, signCard(card, other));
    expect(await sdkVerifies(byOther, [key])).toBe(false); // kid not in the keys the verifier holds
    expect(await sdkVerifies(byOther, [key, other])).toBe(true);

    for (const breaker of [BREAKERS.algNone, BREAKERS.hmacWithPublicKey]) {
      const sig = breaker(card, key);
      expect(await joseVerifies(withSignature(card, sig), sig, key), breaker.name).toBe(false);
      expect(await sdkVerifies(withSignature(card, sig), [key]), breaker.name).toBe(false);
    }
  });
});

describe("the built-in clients' trust gate (clients/common/trust.ts) against signatures made elsewhere", () => {
  const key = makeSigningKey('vendorx-2026-11');
  const JWKS = 'https://jwks.example/.well-known/jwks.json';
  const profile: ClientProfile = { ...DEFAULT_PROFILE, requireSignedCards: true, trustedJwks: [JWKS] };
  const fetched: string[] = [];
  const fetchJson = async (url: string) => {
    fetched.push(url);
    return url === JWKS
      ? { ok: true as const, json: jwksOf([key]) }
      : url === 'https://peer.example/jwks.json'
        ? { ok: true as const, json: jwksOf([other]) }
        : { ok: false as const };
  };
  const other = makeSigningKey('vendorx-self');

  it('verifies a card signed by @a2a-js/sdk 1.3.0, and one signed by our peers', async () => {
    const card = filled(CONTROL);
    const { importPKCS8 } = await import('jose');
    const pem = key.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const bySdk = (await generateAgentCardSignature(await importPKCS8(pem, 'ES256'), { alg: 'ES256', typ: 'JOSE', kid: key.kid })(
      card as never,
    )) as unknown as Record<string, unknown>;
    expect(await checkTrust(bySdk, profile, fetchJson)).toMatchObject({ ok: true, verified: true, kid: key.kid, jwks: JWKS });
    expect(await checkTrust(withSignature(card, signCard(card, key)), profile, fetchJson)).toMatchObject({ ok: true, verified: true });
  });

  it('refuses a tampered card, an unknown kid, alg none, HMAC with the public key, and a jku it never trusted (never fetching that jku)', async () => {
    const card = filled(CONTROL);
    const bad = {
      tampered: { ...withSignature(card, signCard(card, key)), description: 'changed' },
      unknownKid: withSignature(card, signCard(card, makeSigningKey('vendorx-unlisted'))),
      algNone: withSignature(card, BREAKERS.algNone(card, key)),
      hmac: withSignature(card, BREAKERS.hmacWithPublicKey(card, key)),
      jku: withSignature(card, signCard(card, other, { header: { jku: 'https://peer.example/jwks.json' } })),
    };
    fetched.length = 0;
    for (const [name, c] of Object.entries(bad)) expect((await checkTrust(c, profile, fetchJson)).ok, name).toBe(false);
    expect(fetched).not.toContain('https://peer.example/jwks.json');
    // The naive verifier's mistakes make the same cards pass.
    expect((await checkTrust(bad.jku, profile, fetchJson, { trustsAnyJku: true })).ok).toBe(true);
    expect((await checkTrust(bad.algNone, profile, fetchJson, { acceptsAlgNone: true })).ok).toBe(true);
    expect((await checkTrust(bad.hmac, profile, fetchJson, { acceptsAlgNone: true })).ok).toBe(true);
  });
});

describe('the trust gate on the wire (reference client, in-process, real TLS)', () => {
  it("fetches the JWKS from the other vendor's origin over verified TLS before any task; with no trust anchor it refuses, and a client that skips verification is graded FAIL", {
    timeout: 60_000,
  }, async () => {
    const ref = await startHarness('reference');
    const naive = await startHarness('naive:skips-signature-verification');
    try {
      const valid = await ref.run(scenario('trust-signature/valid'));
      expect(valid.verdict).toBe('PASS');
      const http = valid.transcript.filter((e): e is HttpEvent => e.kind === 'http');
      const jwks = http.find((e) => e.path.endsWith('/.well-known/jwks.json'))!;
      const send = http.find((e) => e.rpc?.method === 'SendMessage')!;
      expect(jwks.listener).toBe('vendor-b');
      expect(jwks.status).toBe(200);
      expect(jwks.seq).toBeLessThan(send.seq);
      // The request came over a handshake the vendor-b listener completed with its own certificate, which the client verified (it trusts only the test CA).
      expect(valid.transcript.some((e) => e.kind === 'tls' && e.listener === 'vendor-b' && e.ok && e.seq < jwks.seq)).toBe(true);
      expect(valid.signatures?.[0]).toMatchObject({ harness: 'verifies', kid: 'vendorx-2026-11' });

      const noAnchor = await ref.run(scenario('trust-kid/no-anchor'));
      expect(noAnchor.verdict).toBe('PASS');
      expect(noAnchor.ledger).toEqual([]);
      expect(noAnchor.claims).toMatchObject({ decision: 'rejected', errorClass: 'untrusted-card' });

      // A scenario whose description of its signature is not true is the harness's fault, never a verdict: a tamper that changes nothing.
      const sound = scenario('trust-signature/tampered');
      const noop = await ref.run({
        ...sound,
        id: 'x/no-op-tamper',
        peer: {
          ...sound.peer,
          signing: { key: 'published', tamper: { pointer: '/description', value: (sound.peer.card as { description: string }).description } },
        },
      });
      expect(noop.verdict).toBe('ERROR');
      expect(noop.checks[0]!.reason).toMatch(/should give a signature that does not verify; the harness finds one that verifies/);

      const blind = await naive.run(scenario('trust-kid/no-anchor'));
      const check = blind.checks.find((c) => c.rule === 'TRUST-UNKNOWN-KID')!;
      expect(check.verdict).toBe('FAIL');
      expect(check.evidence.some((e) => e.absence && /no JWKS was fetched/.test(e.fact))).toBe(true);
    } finally {
      await Promise.all([ref.close(), naive.close()]);
    }
  });
});

describe("a signed card on the wire: its keys published by another vendor's origin", () => {
  let fx: PeerFixture;
  let agent: Agent;
  beforeAll(async () => {
    fx = await peerFixture();
    agent = new Agent({ connect: { ca: fx.pki.testCa.cert } });
  });
  afterAll(async () => {
    await agent.close();
    await fx.close();
  });

  it('the card names its JWKS with jku on the vendor-b origin (own port, own certificate); fetched over verified TLS, it verifies the card; that listener records the handshake and the request', async () => {
    const key = makeSigningKey('vendorx-2026-11');
    const run = fx.start(scenario(CONTROL).peer, { parts: signedCardParts({ key, jwksOn: 'vendor-b', jku: true }) });
    const card = (await (await request(run.peer.cardUrl, { dispatcher: agent })).body.json()) as Record<string, unknown>;
    const sig = (card.signatures as CardSignature[])[0]!;
    const header = JSON.parse(Buffer.from(sig.protected, 'base64url').toString()) as { jku: string; kid: string };
    expect(new URL(header.jku).origin).toBe(fx.host.origin('vendor-b'));
    expect(new URL(header.jku).origin).not.toBe(new URL(run.peer.cardUrl).origin);
    const res = await request(header.jku, { dispatcher: agent });
    expect(res.headers['content-type']).toBe('application/jwk-set+json');
    const jwks = (await res.body.json()) as { keys: Array<Record<string, unknown>> };
    const published = jwks.keys.find((k) => k.kid === header.kid)!;
    expect(await joseVerifies(card, sig, { ...key, jwk: published })).toBe(true);
    const onB = run.transcript.events.filter((e) => (e.kind === 'tls' || e.kind === 'http') && e.listener === 'vendor-b');
    expect(onB.map((e) => e.kind)).toEqual(['tls', 'http']);
    expect(onB[0]!.kind === 'tls' && onB[0]!.ok).toBe(true);
    // Its certificate is its own: another name than the agent's listener.
    const { connect } = await import('node:tls');
    const subject = await new Promise<string>((done, fail) => {
      const u = new URL(fx.host.origin('vendor-b'));
      const sock = connect({ host: u.hostname, port: Number(u.port), ca: fx.pki.testCa.cert }, () => {
        done(String(sock.getPeerCertificate().subject.CN));
        sock.end();
      });
      sock.on('error', fail);
    });
    expect(subject).toBe('jwks.vendor-b.test');
    run.end();
  });
});

describe('media types compared with their parameters (seed 001: "loose matching that strips parameters masks the failure")', () => {
  it('type, subtype and parameter names are case-insensitive, charset values too; profile and version are significant; an extra parameter makes another type', () => {
    const v3 = 'application/vnd.vendorx.workflow+json;profile="v3"';
    expect(sameMediaType(v3, 'Application/VND.vendorx.Workflow+JSON; Profile=v3')).toBe(true);
    expect(sameMediaType('text/plain;charset=UTF-8', 'text/plain; charset="utf-8"')).toBe(true);
    expect(sameMediaType(v3, 'application/vnd.vendorx.workflow+json;profile="V3"')).toBe(false);
    expect(sameMediaType(v3, 'application/vnd.vendorx.workflow+json')).toBe(false);
    expect(sameMediaType('application/json;version=2', 'application/json;version=1')).toBe(false);
  });
});
