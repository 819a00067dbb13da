/**
 * DPoP (RFC 9449) from the client's side: a key pair the client proves possession of
 * ({@link generateDpopKey}) and the `DPoP` proof JWT it sends with each request ({@link createDpopProof}).
 * Bind an access token to the key with `issuer.sign(claims, { dpop: key })`.
 *
 * Proofs are signed with `node:crypto` directly (like access tokens), so that every header field and
 * claim a server must refuse — `typ: "JWT"`, a private member in `jwk`, `alg: "none"`, a missing `htu` —
 * can be written verbatim for negative tests.
 *
 * @module
 */

import { createHash, generateKeyPair, type KeyObject, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { rejectUnknownOptions } from '@gatehouse/core';
import { DEFAULTS, TEST_ALGORITHMS, type TestAlgorithm } from './defaults.js';
import { nowSeconds, signCompact } from './jws.js';
import { thumbprint } from './thumbprint.js';

/**
 * Algorithms of DPoP keys: the same as a test issuer's (`ES256`, `RS256`, `PS256`, `EdDSA`).
 *
 * @example
 * ```ts
 * const alg: DpopAlgorithm = 'EdDSA';
 * const key = await generateDpopKey(alg);
 * ```
 */
export type DpopAlgorithm = TestAlgorithm;

/**
 * The public JWK of a DPoP key as it goes into a proof's `jwk` header: key members only (EC `kty crv x y`,
 * RSA `kty n e`, OKP `kty crv x`), no `kid`, `alg`, `use` and no private member.
 *
 * @example
 * ```ts
 * const jwk: DpopPublicJwk = key.publicJwk; // { kty: 'EC', crv: 'P-256', x: '…', y: '…' }
 * ```
 */
export interface DpopPublicJwk {
  readonly kty: string;
  readonly crv?: string;
  readonly x?: string;
  readonly y?: string;
  readonly n?: string;
  readonly e?: string;
}

/**
 * A DPoP key pair, from {@link generateDpopKey}.
 *
 * @example
 * ```ts
 * const key: DpopKey = await generateDpopKey();
 * key.alg;        // 'ES256'
 * key.publicJwk;  // what proofs carry in their `jwk` header
 * key.thumbprint; // RFC 7638 thumbprint: the `cnf.jkt` of tokens bound to this key
 * ```
 */
export interface DpopKey {
  /** The algorithm proofs are signed with. */
  readonly alg: DpopAlgorithm;
  /** The private key (a Node `KeyObject`): signs proofs. */
  readonly privateKey: KeyObject;
  /** The public JWK, frozen. */
  readonly publicJwk: Readonly<DpopPublicJwk>;
  /** RFC 7638 SHA-256 thumbprint of `publicJwk`, base64url: `cnf.jkt` (RFC 9449 §6.1). */
  readonly thumbprint: string;
}

/**
 * Options of {@link createDpopProof}. `key`, `method` and `url` are required; everything else has an
 * RFC 9449 default and can be overridden, or removed with `undefined` in `header` / `claims`, for
 * negative tests.
 *
 * @example
 * ```ts
 * const options: DpopProofOptions = {
 *   key,
 *   method: 'GET',
 *   url: 'https://api.gatehouse.test/orders?page=2', // htu: https://api.gatehouse.test/orders
 *   accessToken: token,                               // adds ath
 * };
 * ```
 */
export interface DpopProofOptions {
  /** The key that signs the proof; its public JWK goes into the `jwk` header. */
  key: DpopKey;
  /** HTTP method of the request: the `htm` claim, written as given (`'GET'`, `'POST'`, …). */
  method: string;
  /** URL of the request: the `htu` claim is this URL without its query and fragment (RFC 9449 §4.2). */
  url: string | URL;
  /** Access token sent with the proof: adds `ath`, the base64url SHA-256 of its ASCII bytes. Default: no `ath`. */
  accessToken?: string;
  /** Server-provided nonce (RFC 9449 §8, §9): the `nonce` claim. Default: no `nonce`. */
  nonce?: string;
  /** `iat` in seconds since the epoch. Default: now (`Date.now()`, so fake timers apply). */
  iat?: number;
  /** `jti`. Default: 128 random bits, base64url. Reuse one to test replay detection. */
  jti?: string;
  /**
   * Header `alg`, written verbatim. Default: the key's algorithm. The signature is always made with the
   * key's own algorithm, so another value makes a proof whose `alg` lies; `'none'` leaves the signature empty.
   */
  alg?: string;
  /** Header `typ`. Default `dpop+jwt`. */
  typ?: string;
  /**
   * Header fields merged over `{ typ, alg, jwk }` and written verbatim (`kid`, `jku`, a `jwk` with a private
   * member, …); a field set to `undefined` is removed. A final `alg` of `'none'` leaves the signature empty.
   */
  header?: Record<string, unknown>;
  /**
   * Claims merged over `{ jti, htm, htu, iat, ath?, nonce? }`, with any value; a claim set to `undefined` is
   * removed (`{ iat: undefined }` makes a proof without `iat`).
   */
  claims?: Record<string, unknown>;
}

const generate = promisify(generateKeyPair);

async function keyPair(alg: DpopAlgorithm): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  switch (alg) {
    case 'ES256':
      return generate('ec', { namedCurve: 'P-256' });
    case 'RS256':
    case 'PS256':
      return generate('rsa', { modulusLength: 2048 });
    case 'EdDSA':
      return generate('ed25519');
  }
}

/** The members of a public JWK that a proof carries, in the order RFC 9449's examples write them. */
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

/**
 * Generate a DPoP key pair: ES256 (P-256) by default, or RS256 / PS256 (RSA 2048 bits) or EdDSA
 * (Ed25519). Every call makes a new key; nothing is cached.
 *
 * @example
 * ```ts
 * import { createDpopProof, generateDpopKey } from '@gatehouse/testing';
 *
 * const key = await generateDpopKey();          // ES256
 * const rsa = await generateDpopKey('PS256');
 * const token = await issuer.sign({ scope: 'read:orders' }, { dpop: key }); // cnf.jkt = key.thumbprint
 * ```
 */
export async function generateDpopKey(alg: DpopAlgorithm = DEFAULTS.dpopAlg): Promise<DpopKey> {
  if (!TEST_ALGORITHMS.includes(alg))
    throw new TypeError(`"alg" must be one of ${TEST_ALGORITHMS.join(', ')}`);
  const { publicKey, privateKey } = await keyPair(alg);
  const exported = publicKey.export({ format: 'jwk' }) as Record<string, string | undefined>;
  const jwk: Record<string, string> = {};
  for (const name of PUBLIC_MEMBERS) if (exported[name] !== undefined) jwk[name] = exported[name];
  const publicJwk = Object.freeze(jwk as unknown as DpopPublicJwk);
  return Object.freeze({ alg, privateKey, publicJwk, thumbprint: thumbprint(publicJwk) });
}

/**
 * The `ath` claim for an access token (RFC 9449 §4.2): base64url(SHA-256(ASCII bytes of the token)).
 *
 * @example
 * ```ts
 * import { accessTokenHash } from '@gatehouse/testing';
 *
 * expect(decodeJwt(proof).ath).toBe(accessTokenHash(token));
 * ```
 */
export function accessTokenHash(accessToken: string): string {
  if (typeof accessToken !== 'string' || accessToken.length === 0) {
    throw new TypeError('"accessToken" must be a non-empty string');
  }
  return createHash('sha256').update(accessToken, 'ascii').digest('base64url');
}

/** `url` without its query and fragment: the `htu` claim. */
function htuOf(url: unknown): string {
  if (typeof url !== 'string' && !(url instanceof URL))
    throw new TypeError('"url" option must be a string or URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('"url" option must be an absolute URL');
  }
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function optionalString(options: Record<string, unknown>, name: string): void {
  const value = options[name];
  if (value !== undefined && typeof value !== 'string')
    throw new TypeError(`"${name}" option must be a string`);
}

/** Every member of {@link DpopProofOptions}: the compiler keeps the list in step with the interface. */
const PROOF_OPTIONS = Object.keys({
  key: 1,
  method: 1,
  url: 1,
  accessToken: 1,
  nonce: 1,
  iat: 1,
  jti: 1,
  alg: 1,
  typ: 1,
  header: 1,
  claims: 1,
} satisfies Record<keyof DpopProofOptions, 1>);

function validate(options: unknown): DpopProofOptions {
  if (!isObject(options)) throw new TypeError('createDpopProof options must be an object');
  rejectUnknownOptions(options, PROOF_OPTIONS);
  const key = options.key as DpopKey | undefined;
  if (
    !isObject(key) ||
    !TEST_ALGORITHMS.includes(key.alg) ||
    typeof key.privateKey !== 'object' ||
    !isObject(key.publicJwk)
  ) {
    throw new TypeError('"key" option must be a key from generateDpopKey()');
  }
  if (typeof options.method !== 'string' || options.method.length === 0) {
    throw new TypeError('"method" option must be a non-empty string');
  }
  for (const name of ['accessToken', 'nonce', 'jti', 'alg', 'typ']) optionalString(options, name);
  if (options.iat !== undefined && (typeof options.iat !== 'number' || !Number.isFinite(options.iat))) {
    throw new TypeError('"iat" option must be a finite number');
  }
  for (const name of ['header', 'claims']) {
    if (options[name] !== undefined && !isObject(options[name])) {
      throw new TypeError(`"${name}" option must be an object`);
    }
  }
  return options as unknown as DpopProofOptions;
}

const withoutUndefined = (record: Record<string, unknown>): Record<string, unknown> => {
  for (const name of Object.keys(record)) if (record[name] === undefined) delete record[name];
  return record;
};

/**
 * Create a DPoP proof (RFC 9449 §4.2), the value of the `DPoP` request header: a compact JWS with header
 * `{ typ: "dpop+jwt", alg, jwk }` and claims `jti` (random), `htm`, `htu` (the URL without query and
 * fragment), `iat` (now), plus `ath` when `accessToken` is given and `nonce` when `nonce` is. ECDSA
 * signatures are in JOSE form (R‖S). Options validate at once and throw a `TypeError` naming the bad one.
 *
 * @example
 * ```ts
 * import { createDpopProof, generateDpopKey } from '@gatehouse/testing';
 *
 * const key = await generateDpopKey();
 * const token = await issuer.sign({ scope: 'read:orders' }, { dpop: key });
 * const proof = createDpopProof({ key, method: 'GET', url: 'https://api.gatehouse.test/orders', accessToken: token });
 * await request(app).get('/orders').set('authorization', `DPoP ${token}`).set('dpop', proof);
 *
 * // Negative tests: any field, verbatim.
 * createDpopProof({ key, method: 'GET', url, typ: 'JWT' });                           // wrong typ
 * createDpopProof({ key, method: 'GET', url, alg: 'none' });                          // unsigned
 * createDpopProof({ key, method: 'GET', url, iat: Math.floor(Date.now() / 1000) - 3600 }); // stale
 * createDpopProof({ key, method: 'GET', url, claims: { htu: undefined } });           // no htu
 * createDpopProof({ key, method: 'GET', url, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }); // private member
 * ```
 */
export function createDpopProof(options: DpopProofOptions): string {
  const opts = validate(options);
  const { key } = opts;
  const header = withoutUndefined({
    typ: opts.typ ?? DEFAULTS.dpopTyp,
    alg: opts.alg ?? key.alg,
    jwk: { ...key.publicJwk },
    ...opts.header,
  });
  const payload = withoutUndefined({
    jti: opts.jti ?? randomBytes(16).toString('base64url'),
    htm: opts.method,
    htu: htuOf(opts.url),
    iat: opts.iat ?? nowSeconds(),
    ...(opts.accessToken === undefined ? {} : { ath: accessTokenHash(opts.accessToken) }),
    ...(opts.nonce === undefined ? {} : { nonce: opts.nonce }),
    ...opts.claims,
  });
  if (header.alg !== 'none') return signCompact(key, header, payload);
  const encode = (part: Record<string, unknown>) => Buffer.from(JSON.stringify(part)).toString('base64url');
  return `${encode(header)}.${encode(payload)}.`; // unsigned: an empty signature segment
}
