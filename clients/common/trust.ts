/**
 * The clients' trust gate (A2A v1.0.1 §8.4.3; docs/rules.md, Trust: a signed card is verified first): before
 * anything else, a signed card is verified against keys from the JWKS documents the profile trusts,
 * fetched over verified TLS. The algorithm comes from an allow list, never from the header alone; a
 * `jku` is followed only where it names a trusted JWKS; a key whose `x5c` certificate is outside its
 * validity window is not used. jose verifies; the payload is this client's own canonical form.
 *
 * `TrustMistakes` switch on the naive client's errors; the reference makes none.
 */
import { X509Certificate, createHmac, createPublicKey, timingSafeEqual } from 'node:crypto';
import { flattenedVerify, importJWK, type JWK } from 'jose';
import type { ClientProfile } from '../../harness/core/protocol/types.js';
import { canonicalCardPayload } from './canonical.js';

export interface TrustMistakes {
  /** Never verifies a signature. */
  skipsVerification?: boolean;
  /** Fetches whatever JWKS a `jku` names and trusts its keys. */
  trustsAnyJku?: boolean;
  /** Takes the algorithm from the header: `none` passes, HS256 is keyed with the public key. */
  acceptsAlgNone?: boolean;
}

/** Asymmetric algorithms this client verifies with (RFC 8725 §3.1: the caller's list, no other). */
const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'PS256', 'EdDSA'];

export type Trust =
  | { ok: true; verified: true; kid: string; jwks: string; notes: string }
  | { ok: true; verified: false; notes: string }
  | { ok: false; notes: string };

type FetchJson = (url: string) => Promise<{ ok: true; json: unknown } | { ok: false }>;

const b64json = (s: string): Record<string, unknown> | undefined => {
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** Why a JWK may not be used now, or undefined: its first x5c certificate must hold this key and be in its window. */
function keyProblem(jwk: Record<string, unknown>, now: Date): string | undefined {
  const x5c = Array.isArray(jwk.x5c) ? jwk.x5c : undefined;
  if (!x5c || typeof x5c[0] !== 'string') return undefined;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(x5c[0], 'base64'));
  } catch {
    return 'its x5c certificate cannot be read';
  }
  const certKey = cert.publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  if (['kty', 'crv', 'x', 'y', 'n', 'e'].some((m) => certKey[m] !== jwk[m])) return 'its x5c certificate holds another key (RFC 7517 §4.7)';
  if (now < new Date(cert.validFrom)) return `its certificate is not valid before ${cert.validFrom}`;
  if (now > new Date(cert.validTo)) return `its certificate expired ${cert.validTo}`;
  return undefined;
}

/** The naive verifier: whatever algorithm the header names, with whatever key it found. */
function naiveVerify(alg: string, input: string, signature: string, jwk: Record<string, unknown>): boolean {
  if (alg === 'none') return true;
  if (alg === 'HS256') {
    const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const mac = createHmac('sha256', pem).update(input).digest();
    const got = Buffer.from(signature, 'base64url');
    return got.length === mac.length && timingSafeEqual(got, mac);
  }
  return false;
}

/**
 * Verifies the card's signatures as the profile asks. Without signatures, or without trust anchors,
 * a card is taken unverified unless the profile requires signed cards.
 */
export async function checkTrust(card: Record<string, unknown>, profile: ClientProfile, fetchJson: FetchJson, mistakes: TrustMistakes = {}): Promise<Trust> {
  const signatures = (Array.isArray(card.signatures) ? card.signatures : []).filter((s): s is Record<string, unknown> => !!s && typeof s === 'object');
  const required = profile.requireSignedCards;
  if (mistakes.skipsVerification) return { ok: true, verified: false, notes: 'signature not checked' };
  if (signatures.length === 0)
    return required
      ? { ok: false, notes: 'the card is not signed, and the profile requires signed cards' }
      : { ok: true, verified: false, notes: 'the card is not signed' };
  const anchors = profile.trustedJwks.filter((u) => u.startsWith('https://'));
  if (anchors.length === 0 && !mistakes.trustsAnyJku)
    return required
      ? { ok: false, notes: 'the card is signed, but the profile trusts no JWKS to verify it with' }
      : { ok: true, verified: false, notes: 'signed, but no trusted JWKS to verify it with' };

  const sets = new Map<string, Array<Record<string, unknown>>>();
  const keysAt = async (url: string) => {
    if (!sets.has(url)) {
      const got = await fetchJson(url);
      const keys =
        got.ok && got.json && typeof got.json === 'object' && Array.isArray((got.json as { keys?: unknown }).keys)
          ? ((got.json as { keys: unknown[] }).keys.filter((k) => !!k && typeof k === 'object') as Array<Record<string, unknown>>)
          : [];
      sets.set(url, keys);
    }
    return sets.get(url)!;
  };

  let payload: string;
  try {
    payload = canonicalCardPayload(card);
  } catch (err) {
    return { ok: false, notes: `the card cannot be canonicalised: ${(err as Error).message}` };
  }
  const problems: string[] = [];
  for (const sig of signatures) {
    const prot = typeof sig.protected === 'string' ? sig.protected : '';
    const header = b64json(prot);
    if (!header) {
      problems.push('a protected header that is not base64url JSON');
      continue;
    }
    const alg = typeof header.alg === 'string' ? header.alg : '';
    const kid = typeof header.kid === 'string' ? header.kid : '';
    if (!ALGORITHMS.includes(alg) && !mistakes.acceptsAlgNone) {
      problems.push(`alg ${JSON.stringify(alg)} is not one this client verifies with`);
      continue;
    }
    const sources = [...anchors];
    if (typeof header.jku === 'string' && !anchors.includes(header.jku)) {
      if (mistakes.trustsAnyJku && header.jku.startsWith('https://')) sources.push(header.jku);
      else problems.push(`jku ${header.jku} is not a trusted JWKS (not followed)`);
    }
    let found: { jwk: Record<string, unknown>; at: string } | undefined;
    for (const url of sources) {
      const jwk = (await keysAt(url)).find((k) => k.kid === kid);
      if (jwk) {
        found = { jwk, at: url };
        break;
      }
    }
    if (!found) {
      problems.push(`kid ${JSON.stringify(kid)} is in no trusted JWKS`);
      continue;
    }
    const use = found.jwk.use;
    const ops = found.jwk.key_ops;
    const unusable =
      use !== undefined && use !== 'sig'
        ? `its "use" is ${JSON.stringify(use)}, not "sig"`
        : ops !== undefined && !(Array.isArray(ops) && ops.includes('verify'))
          ? 'its "key_ops" do not include "verify"'
          : keyProblem(found.jwk, new Date());
    if (unusable) {
      problems.push(`key ${kid}: ${unusable}`);
      continue;
    }
    const signature = typeof sig.signature === 'string' ? sig.signature : '';
    const encoded = Buffer.from(payload).toString('base64url');
    if (mistakes.acceptsAlgNone && !ALGORITHMS.includes(alg)) {
      if (naiveVerify(alg, `${prot}.${encoded}`, signature, found.jwk))
        return { ok: true, verified: true, kid, jwks: found.at, notes: `verified (${alg}) with ${kid}` };
      problems.push(`signature by ${kid} does not verify`);
      continue;
    }
    if (typeof found.jwk.alg === 'string' && found.jwk.alg !== alg) {
      problems.push(`key ${kid} is for ${found.jwk.alg}, the header says ${alg}`);
      continue;
    }
    try {
      const key = await importJWK(found.jwk as JWK, alg);
      await flattenedVerify({ protected: prot, payload: encoded, signature }, key, { algorithms: [alg] });
      return { ok: true, verified: true, kid, jwks: found.at, notes: `signature verified with ${kid} from ${found.at}` };
    } catch {
      problems.push(`signature by ${kid} does not verify over the card's canonical form`);
    }
  }
  return { ok: false, notes: `no signature of the card can be trusted: ${problems.join('; ')}` };
}
