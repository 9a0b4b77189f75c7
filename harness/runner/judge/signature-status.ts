/**
 * The harness's own reading of a served card's signatures, for the report: which key it names, and
 * whether it verifies against what the peer published (the harness's canonical form, jose, an
 * allow list of asymmetric algorithms, the key's x5c window). It grades nothing: the rules grade
 * from the scenario's truth and the wire; this says what a careful verifier would have found.
 */
import { X509Certificate } from 'node:crypto';
import { flattenedVerify, importJWK, type JWK } from 'jose';
import { cardSigningPayload } from '../../core/card-canonical.js';
import type { SignatureStatus } from '../../core/results.js';

const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'PS256', 'EdDSA'];

function headerOf(prot: unknown): Record<string, unknown> | undefined {
  if (typeof prot !== 'string') return undefined;
  try {
    const v = JSON.parse(Buffer.from(prot, 'base64url').toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function window(jwk: Record<string, unknown>, now: Date): string | undefined {
  const x5c = Array.isArray(jwk.x5c) && typeof jwk.x5c[0] === 'string' ? jwk.x5c[0] : undefined;
  if (!x5c) return undefined;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(x5c, 'base64'));
  } catch {
    return 'unreadable x5c certificate';
  }
  if (now < new Date(cert.validFrom)) return `not valid before ${cert.validFrom}`;
  if (now > new Date(cert.validTo)) return `expired ${cert.validTo}`;
  return `valid ${cert.validFrom} – ${cert.validTo}`;
}

/** One status per signature of the card; empty for an unsigned card. */
export async function signatureStatus(
  card: Record<string, unknown>,
  published: Array<{ url: string; keys: Array<Record<string, unknown>> }>,
  now = new Date(),
): Promise<SignatureStatus[]> {
  const sigs = Array.isArray(card.signatures) ? card.signatures : [];
  const out: SignatureStatus[] = [];
  let payload: string | undefined;
  try {
    payload = cardSigningPayload(card);
  } catch {
    payload = undefined;
  }
  for (const sig of sigs as Array<Record<string, unknown>>) {
    const h = headerOf(sig?.protected);
    const alg = typeof h?.alg === 'string' ? h.alg : '';
    const kid = typeof h?.kid === 'string' ? h.kid : '';
    const status: SignatureStatus = { alg, kid, ...(typeof h?.jku === 'string' ? { jku: h.jku } : {}), harness: 'does not verify' };
    const at = published.find((p) => p.keys.some((k) => k.kid === kid));
    const jwk = at?.keys.find((k) => k.kid === kid);
    if (at) status.publishedAt = at.url;
    if (jwk) {
      const w = window(jwk, now);
      if (w) status.keyWindow = w;
    }
    if (!ALGORITHMS.includes(alg)) status.why = `alg ${JSON.stringify(alg)} is not an asymmetric signature algorithm`;
    else if (!jwk) status.why = `kid ${JSON.stringify(kid)} is in no JWKS the peer publishes`;
    else if (payload === undefined) status.why = 'the card has no canonical form';
    else {
      try {
        await flattenedVerify(
          { protected: sig.protected as string, payload: Buffer.from(payload).toString('base64url'), signature: String(sig.signature ?? '') },
          await importJWK(jwk as JWK, alg),
          { algorithms: [alg] },
        );
        status.harness = status.keyWindow && !status.keyWindow.startsWith('valid') ? 'verifies, but the key is outside its window' : 'verifies';
      } catch {
        status.why = "the signature does not match the card's canonical form";
      }
    }
    out.push(status);
  }
  return out;
}
