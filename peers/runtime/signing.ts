/**
 * Signing a card the way a vendor does (A2A v1.0.1 §8.4.2), and the ways a signature can be broken.
 *
 * A signature is a JWS with a detached payload: `protected` (base64url of the header JSON) and
 * `signature` over `BASE64URL(protected) || '.' || BASE64URL(payload)`, the payload being the
 * card's canonical form (harness/core/card-canonical.ts). Keys are ES256 (ECDSA P-256, SHA-256; the
 * signature in the IEEE P1363 form RFC 7518 §3.4 asks for). The peer signs synchronously with
 * node:crypto, because a card is finished synchronously when a peer is mounted; jose and
 * @a2a-js/sdk verify what it signs (test/signing.test.ts).
 */
import { X509Certificate, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { cardSigningPayload } from '../../harness/core/card-canonical.js';
import { JWKS_PATH, type CardSigning } from '../../harness/core/scenario/card.js';
import type { ListenerKind } from '../../harness/core/scenario/runtime.js';
import type { PeerParts, PeerRunContext } from './context.js';
import { eventOf, exactly } from './event.js';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as a JWK, with `kid`, `alg` and `use`; extra members (a validity window, say) may be added. */
  jwk: Record<string, unknown>;
}

/** A fresh ES256 key pair named `kid`. */
export function makeSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, privateKey, publicKey, jwk: { ...(publicKey.export({ format: 'jwk' }) as Record<string, unknown>), kid, alg: 'ES256', use: 'sig' } };
}

/**
 * A signing key from a PEM key pair whose certificate is published with the key as `x5c` (RFC 7517
 * §4.7): the certificate's validity window is how the JWKS says when the key may be used.
 */
export function signingKeyFromPem(kid: string, pair: { cert: string; key: string }): SigningKey {
  const k = `${pair.key}\0${pair.cert}`;
  let parsed = parsedPems.get(k);
  if (!parsed) {
    const privateKey = createPrivateKey(pair.key);
    const publicKey = createPublicKey(privateKey);
    const x5c = [new X509Certificate(pair.cert).raw.toString('base64')];
    parsed = { privateKey, publicKey, jwk: publicKey.export({ format: 'jwk' }) as Record<string, unknown>, x5c };
    if (parsedPems.size >= 16) parsedPems.delete(parsedPems.keys().next().value!);
    parsedPems.set(k, parsed);
  }
  // A fresh JWK each time: a peer may add members to its own (a validity window).
  return { kid, privateKey: parsed.privateKey, publicKey: parsed.publicKey, jwk: { ...parsed.jwk, kid, alg: 'ES256', use: 'sig', x5c: [...parsed.x5c] } };
}

/**
 * The run's signing keys parsed once: every scenario of a signing peer builds its keys from the same
 * PEM pairs, and parsing them (a private key, a certificate) was about 1.5% of a property run's CPU.
 * KeyObjects are immutable, so sharing them across runs changes nothing a run sees.
 */
const parsedPems = new Map<string, { privateKey: KeyObject; publicKey: KeyObject; jwk: Record<string, unknown>; x5c: string[] }>();

/** A JWKS document (RFC 7517 §5) of public keys. */
export const jwksOf = (keys: SigningKey[]): { keys: Array<Record<string, unknown>> } => ({ keys: keys.map((k) => k.jwk) });

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

export interface SignatureOptions {
  /** Protected header parameters besides `alg`, `typ` and `kid` (a `jku`), or overrides of them. */
  header?: Record<string, unknown>;
}

export interface CardSignature {
  protected: string;
  signature: string;
}

/** Signs the card's canonical form with `key`: the §8.4.2 process, `typ` JOSE, `kid` the key's. */
export function signCard(card: Record<string, unknown>, key: SigningKey, o: SignatureOptions = {}): CardSignature {
  const header = b64url(JSON.stringify({ alg: 'ES256', typ: 'JOSE', kid: key.kid, ...o.header }));
  const input = `${header}.${b64url(cardSigningPayload(card))}`;
  return { protected: header, signature: sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url') };
}

/** The card with one more signature in its `signatures`. */
export function withSignature(card: Record<string, unknown>, sig: CardSignature): Record<string, unknown> {
  const prior = Array.isArray(card.signatures) ? card.signatures : [];
  return { ...card, signatures: [...prior, sig] };
}

/** What a broken signature looks like, one way each (the TRUST-* rules). */
export const BREAKERS = {
  /**
   * `alg: none` (RFC 7518 §3.6: an Unsecured JWS). Its signature would be empty, but a v1.0 card
   * requires `AgentCardSignature.signature` to be set, so the attack carries 32 filler bytes that a
   * verifier honouring `none` never looks at.
   */
  algNone(_card: Record<string, unknown>, key: SigningKey): CardSignature {
    return { protected: b64url(JSON.stringify({ alg: 'none', typ: 'JOSE', kid: key.kid })), signature: b64url(Buffer.alloc(32)) };
  },
  /**
   * HS256 keyed with the public key itself (its SPKI PEM text): accepted only by a verifier that
   * takes the algorithm from the header and the key material from wherever it finds it.
   */
  hmacWithPublicKey(card: Record<string, unknown>, key: SigningKey): CardSignature {
    const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JOSE', kid: key.kid }));
    const secret = key.publicKey.export({ type: 'spki', format: 'pem' });
    const input = `${header}.${b64url(cardSigningPayload(card))}`;
    return { protected: header, signature: createHmac('sha256', secret).update(input).digest('base64url') };
  },
} as const;

/** Where a JWKS is published for a run: `<base of the listener>` + `JWKS_PATH`. */
export const jwksUrl = (ctx: PeerRunContext, on: ListenerKind) => `${ctx.base(on)}${JWKS_PATH}`;

export interface SignedCardOptions {
  /** The key that signs the card. */
  key: SigningKey;
  /** The keys published in the JWKS (default: the signing key alone). */
  published?: SigningKey[];
  /** The origin that publishes the JWKS: another vendor's (`vendor-b`) or the peer's own. */
  jwksOn: ListenerKind;
  /** Whether the protected header names the JWKS with `jku`. */
  jku: boolean;
  /** A way to break the signature (the card is otherwise signed as §8.4.2 says). */
  breaker?: keyof typeof BREAKERS;
  /** A change made to the card after it was signed (a tampered card). */
  tamper?: (card: Record<string, unknown>) => Record<string, unknown>;
  /** The JWKS answers its first this-many fetches 503 with `Retry-After: 1`. */
  busy?: number;
}

/**
 * The parts of a peer that signs its card: the signing step after the card is filled, and the
 * origin that publishes the public keys. The JWKS is served as `application/jwk-set+json`
 * (RFC 7517 §8.5.1); its requests are recorded by that origin's listener like any other.
 */
export function signedCardParts(o: SignedCardOptions): PeerParts {
  const published = o.published ?? [o.key];
  return {
    finishCard(card, ctx) {
      const header = o.jku ? { jku: jwksUrl(ctx, o.jwksOn) } : {};
      const sig = o.breaker ? BREAKERS[o.breaker](card, o.key) : signCard(card, o.key, { header });
      const signed = withSignature(card, sig);
      return o.tamper ? o.tamper(signed) : signed;
    },
    origins: (ctx) => {
      let refused = 0;
      return [
        http.get(exactly(jwksUrl(ctx, o.jwksOn)), ({ request }) => {
          if (refused < (o.busy ?? 0)) {
            refused++;
            const ev = eventOf(ctx, request);
            if (ev) ev.note = `scripted: the key store is briefly unavailable (signing.jwksBusy: ${o.busy}), answered 503 with Retry-After: 1`;
            return new HttpResponse(null, { status: 503, headers: { 'retry-after': '1' } });
          }
          return new HttpResponse(JSON.stringify(jwksOf(published)), {
            headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=300' },
          });
        }),
      ];
    },
    jwks: (ctx) => [{ url: jwksUrl(ctx, o.jwksOn), keys: jwksOf(published).keys }],
  };
}

/** The value at a JSON pointer replaced (RFC 6901; the parents must exist). */
function replaceAt(card: Record<string, unknown>, pointer: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(card);
  const path = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
  if (path.length) at[path.at(-1)!] = value;
  return copy;
}

/** The kids of the vendor's keys; a client sees them in the JWKS and the protected header. */
export const KIDS = {
  published: 'vendorx-2026-11',
  expired: 'vendorx-2026-09',
  notYetValid: 'vendorx-2027-01',
  unlisted: 'vendorx-unlisted',
  ownOrigin: 'vendorx-self',
} as const;

const BREAKER_OF = { 'alg-none': 'algNone', 'hmac-public-key': 'hmacWithPublicKey' } as const;

/**
 * The parts of a peer whose card is signed as its scenario says. The vendor's JWKS on `vendor-b`
 * always publishes its three keys (valid now, expired, not yet valid); `unlisted` and `own-origin`
 * sign with a fresh key of their own, the latter publishing it on the card's own origin.
 */
export function signingParts(signing: CardSigning, ctx: PeerRunContext, cardListener: ListenerKind): PeerParts {
  const vendorKeys = [
    signingKeyFromPem(KIDS.published, ctx.signers.published),
    signingKeyFromPem(KIDS.expired, ctx.signers.expired),
    signingKeyFromPem(KIDS.notYetValid, ctx.signers.notYetValid),
  ];
  const [published, expired, notYetValid] = vendorKeys as [SigningKey, SigningKey, SigningKey];
  const own = signing.key === 'own-origin' ? makeSigningKey(KIDS.ownOrigin) : undefined;
  const key =
    signing.key === 'published'
      ? published
      : signing.key === 'expired'
        ? expired
        : signing.key === 'not-yet-valid'
          ? notYetValid
          : signing.key === 'unlisted'
            ? makeSigningKey(KIDS.unlisted)
            : own!;
  const vendor = signedCardParts({
    key,
    published: vendorKeys,
    jwksOn: own ? cardListener : 'vendor-b',
    jku: own ? true : signing.jku === true,
    ...(signing.breaker ? { breaker: BREAKER_OF[signing.breaker] } : {}),
    ...(signing.tamper ? { tamper: (c: Record<string, unknown>) => replaceAt(c, signing.tamper!.pointer, signing.tamper!.value) } : {}),
    ...(signing.jwksBusy ? { busy: signing.jwksBusy } : {}),
  });
  if (!own) return vendor;
  // The vendor's JWKS still stands on vendor-b; the peer's own keys are published on its card origin.
  return {
    finishCard: vendor.finishCard!,
    jwks: (c) => [
      { url: jwksUrl(c, 'vendor-b'), keys: jwksOf(vendorKeys).keys },
      { url: jwksUrl(c, cardListener), keys: jwksOf([own]).keys },
    ],
    origins: (c, card) => [
      ...signedCardParts({ key: published, published: vendorKeys, jwksOn: 'vendor-b', jku: false }).origins!(c, card),
      http.get(
        exactly(jwksUrl(c, cardListener)),
        () => new HttpResponse(JSON.stringify(jwksOf([own])), { headers: { 'content-type': 'application/jwk-set+json' } }),
      ),
    ],
  };
}
