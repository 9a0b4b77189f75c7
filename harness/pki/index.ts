/**
 * The per-run PKI: a test CA, a partner CA for the mTLS push federation, a rogue CA nobody trusts,
 * and the leaves the listeners, clients and receivers use. EC P-256 and SHA-256 throughout
 * (selfsigned defaults to SHA-1, which OpenSSL 3 refuses as "ca md too weak").
 *
 * Made once per run, written as PEM files into a temp folder shared with the workers, removed at the end.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { generate as Generate } from 'selfsigned';
import type { ListenerKind } from '../core/scenario/runtime.js';

/** selfsigned loads only where a PKI is made (the CLI's process), never in a worker that reads one (about 0.1 s). */
let generator: Promise<typeof Generate> | undefined;
// Its module.exports' generate (default): a CommonJS module's named exports are Node's guess, which a bundle does not make.
const loadGenerate = () => (generator ??= import('selfsigned').then((m) => m.default.generate));

export interface KeyPair {
  cert: string;
  key: string;
}

/** Every certificate the harness uses, as PEM. */
export interface Pki {
  testCa: KeyPair;
  partnerCa: KeyPair;
  rogueCa: KeyPair;
  /** Test-CA server leaf for 127.0.0.1 and localhost: the good listeners. */
  server: KeyPair;
  /** Test-CA client leaf the client under test presents to mTLS listeners. */
  client: KeyPair;
  /** Test-CA server leaf for a plain HTTPS push receiver. */
  receiver: KeyPair;
  /** Partner-CA server leaf for an mTLS push receiver. */
  partnerReceiver: KeyPair;
  /** Partner-CA client leaf the peers' push dispatcher presents. */
  partnerClient: KeyPair;
  /** Test-CA server leaf of another vendor's origin (the vendor's JWKS of the trust scenarios, docs/duties.md §7), named apart from `server`. */
  vendorB: KeyPair;
  /** Test-CA server leaf of a vendor's CDN: the card's origin apart from its RPC's (docs/duties.md §11). */
  cdn: KeyPair;
  /**
   * Card-signing keys of the vendor whose JWKS lives on `vendorB` (docs/duties.md §7), each with a test-CA
   * certificate published as the key's `x5c`: one valid now, one expired, one not valid yet.
   */
  cardSigner: KeyPair;
  cardSignerExpired: KeyPair;
  cardSignerFuture: KeyPair;
  /** Bad server leaves (SPEC-TLS-VERIFY). */
  untrusted: KeyPair;
  wrongHost: KeyPair;
  expired: KeyPair;
}

export type PkiName = keyof Pki;

/** The leaf a listener of each kind serves (harness/core/scenario/runtime.ts LISTENER_KINDS): the run's server certificate, or one a client must refuse. */
export function listenerLeaf(pki: Pki, kind: ListenerKind): { cert: string; key: string } {
  const leaf: Record<ListenerKind, KeyPair> = {
    tls: pki.server,
    mtls: pki.server,
    'untrusted-ca': pki.untrusted,
    'wrong-host': pki.wrongHost,
    expired: pki.expired,
    'vendor-b': pki.vendorB,
    cdn: pki.cdn,
  };
  return leaf[kind];
}

const DAY = 864e5;

type Ext = Parameters<typeof Generate>[1] extends infer O ? (O extends { extensions?: infer E } ? E : never) : never;

const caExtensions = [
  { name: 'basicConstraints', cA: true, critical: true },
  { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
] as unknown as Ext;

const signerExtensions = [
  { name: 'basicConstraints', cA: false, critical: true },
  { name: 'keyUsage', digitalSignature: true, critical: true },
] as unknown as Ext;

function leafExtensions(kind: 'server' | 'client', altNames: Array<Record<string, unknown>>): Ext {
  return [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: kind === 'server', critical: true },
    { name: 'extKeyUsage', serverAuth: kind === 'server', clientAuth: kind === 'client' },
    { name: 'subjectAltName', altNames },
  ] as unknown as Ext;
}

const LOOPBACK_NAMES = [
  { type: 2, value: 'localhost' },
  { type: 7, ip: '127.0.0.1' },
];

async function make(cn: string, opts: { ca?: KeyPair; extensions: Ext; notBefore?: Date; notAfter?: Date }): Promise<KeyPair> {
  const generate = await loadGenerate();
  const now = Date.now();
  const out = await generate([{ name: 'commonName', value: cn }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: opts.notBefore ?? new Date(now - DAY),
    notAfterDate: opts.notAfter ?? new Date(now + 7 * DAY),
    extensions: opts.extensions,
    ...(opts.ca ? { ca: { key: opts.ca.key, cert: opts.ca.cert } } : {}),
  } as Parameters<typeof Generate>[1]);
  return { cert: out.cert, key: out.private };
}

/** Makes a fresh PKI (about 0.2 s: EC keys). */
export async function makePki(): Promise<Pki> {
  const [testCa, partnerCa, rogueCa] = await Promise.all([
    make('a2a-conformance test CA', { extensions: caExtensions }),
    make('a2a-conformance partner CA', { extensions: caExtensions }),
    make('a2a-conformance rogue CA (untrusted)', { extensions: caExtensions }),
  ]);
  const now = Date.now();
  const [
    server,
    client,
    receiver,
    partnerReceiver,
    partnerClient,
    untrusted,
    wrongHost,
    expired,
    vendorB,
    cdn,
    cardSigner,
    cardSignerExpired,
    cardSignerFuture,
  ] = await Promise.all([
    make('peer.test', { ca: testCa, extensions: leafExtensions('server', LOOPBACK_NAMES) }),
    make('client-under-test', {
      ca: testCa,
      extensions: leafExtensions('client', [{ type: 6, value: 'spiffe://a2a-conformance/client-under-test' }]),
    }),
    make('push-receiver', { ca: testCa, extensions: leafExtensions('server', LOOPBACK_NAMES) }),
    make('partner-push-receiver', { ca: partnerCa, extensions: leafExtensions('server', LOOPBACK_NAMES) }),
    make('partner-dispatcher', {
      ca: partnerCa,
      extensions: leafExtensions('client', [{ type: 6, value: 'spiffe://a2a-conformance/partner-dispatcher' }]),
    }),
    make('untrusted.test', { ca: rogueCa, extensions: leafExtensions('server', LOOPBACK_NAMES) }),
    make('wrong-host.invalid', {
      ca: testCa,
      extensions: leafExtensions('server', [{ type: 2, value: 'wrong-host.invalid' }]),
    }),
    make('expired.test', {
      ca: testCa,
      extensions: leafExtensions('server', LOOPBACK_NAMES),
      notBefore: new Date(now - 30 * DAY),
      notAfter: new Date(now - 2 * DAY),
    }),
    make('jwks.vendor-b.test', { ca: testCa, extensions: leafExtensions('server', LOOPBACK_NAMES) }),
    make('cdn.contoso.test', { ca: testCa, extensions: leafExtensions('server', LOOPBACK_NAMES) }),
    make('vendorx card signing key', { ca: testCa, extensions: signerExtensions }),
    make('vendorx card signing key (expired)', {
      ca: testCa,
      extensions: signerExtensions,
      notBefore: new Date(now - 60 * DAY),
      notAfter: new Date(now - 30 * DAY),
    }),
    make('vendorx card signing key (not yet valid)', {
      ca: testCa,
      extensions: signerExtensions,
      notBefore: new Date(now + 30 * DAY),
      notAfter: new Date(now + 60 * DAY),
    }),
  ]);
  return {
    testCa,
    partnerCa,
    rogueCa,
    server,
    client,
    receiver,
    partnerReceiver,
    partnerClient,
    untrusted,
    wrongHost,
    expired,
    vendorB,
    cdn,
    cardSigner,
    cardSignerExpired,
    cardSignerFuture,
  };
}

/** Where each PEM lives on disk: `<dir>/<name>.crt` and `<dir>/<name>.key`. */
export interface PkiFiles {
  dir: string;
  cert: Record<PkiName, string>;
  key: Record<PkiName, string>;
}

export function pkiPaths(dir: string): PkiFiles {
  const names: PkiName[] = [
    'testCa',
    'partnerCa',
    'rogueCa',
    'server',
    'client',
    'receiver',
    'partnerReceiver',
    'partnerClient',
    'untrusted',
    'wrongHost',
    'expired',
    'vendorB',
    'cdn',
    'cardSigner',
    'cardSignerExpired',
    'cardSignerFuture',
  ];
  const cert = {} as Record<PkiName, string>;
  const key = {} as Record<PkiName, string>;
  for (const n of names) {
    cert[n] = join(dir, `${n}.crt`);
    key[n] = join(dir, `${n}.key`);
  }
  return { dir, cert, key };
}

/**
 * The private keys a client under test is handed (docs/protocol.md, the run's `tls`): its own for
 * mTLS peers, and its push receivers' two. Every other key (the CAs', the peers' servers', the card
 * signers', the harness's push sender's) stays in the harness's memory during a run.
 */
export const CLIENT_KEYS: readonly PkiName[] = ['client', 'receiver', 'partnerReceiver'];

/**
 * Writes the PKI into `dir` (an existing folder: a run's private one, or `serve --pki-dir`); returns
 * the paths. Every certificate is written; of the keys, `keys` only (all of them by default: `serve`
 * hands the whole PKI to its user; a run, CLIENT_KEYS).
 */
export async function writePki(pki: Pki, dir: string, keys: readonly PkiName[] = Object.keys(pki) as PkiName[]): Promise<PkiFiles> {
  const files = pkiPaths(dir);
  await Promise.all([
    ...(Object.keys(pki) as PkiName[]).map((n) => writeFile(files.cert[n], pki[n].cert)),
    ...keys.map((n) => writeFile(files.key[n], pki[n].key, { mode: 0o600 })),
  ]);
  return files;
}

export async function readPki(dir: string): Promise<Pki> {
  const files = pkiPaths(dir);
  const out = {} as Pki;
  for (const n of Object.keys(files.cert) as PkiName[]) out[n] = { cert: await readFile(files.cert[n], 'utf8'), key: await readFile(files.key[n], 'utf8') };
  return out;
}

export async function removePki(files: PkiFiles): Promise<void> {
  await rm(files.dir, { recursive: true, force: true });
}
