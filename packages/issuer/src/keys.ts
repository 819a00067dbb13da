/**
 * Signing keys: generated on first start and persisted; rotation stores a new active key (which signs
 * from then on) and keeps the previous one published in the JWKS for `keys.gracePeriod` seconds, so
 * tokens it signed stay verifiable until they expire.
 *
 * @module
 */
import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import type { SigningAlgorithm } from './config/constants.js';
import type { ResolvedConfig } from './issuer-config.js';
import type { NewAuditEvent, SigningKeyRecord, Store } from './storage/store.js';

/** A JWK as published or handed to oidc-provider. */
export type Jwk = JsonWebKey & { kid: string; alg: string; use: 'sig' };

/** Public description of a key, as the Management API lists it (never the private part). */
export interface SigningKeyInfo {
  readonly kid: string;
  readonly alg: string;
  readonly status: 'active' | 'retired';
  readonly createdAt: number;
  readonly retiredAt: number | null;
  readonly expiresAt: number | null;
}

/** The keys in force at one moment. */
export interface KeySet {
  /** Private JWKs for oidc-provider: the active key first (it signs), then retired ones (verify only). */
  readonly signing: readonly Jwk[];
  /** The public JWKS document. */
  readonly jwks: { readonly keys: readonly Jwk[] };
  /** Changes whenever the set of keys changes; used to notice rotations by another process. */
  readonly fingerprint: string;
  /** When the next retired key leaves the set (epoch seconds), if any. */
  readonly nextExpiry: number | undefined;
}

const PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

/** RFC 7638 JWK thumbprint (SHA-256, base64url), used as `kid`. */
export function thumbprint(jwk: JsonWebKey): string {
  const members: Record<string, unknown> =
    jwk.kty === 'RSA'
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : jwk.kty === 'EC'
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
        : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

/** The public part of a private JWK. */
export function toPublicJwk(jwk: Readonly<Record<string, unknown>>): Jwk {
  return Object.fromEntries(Object.entries(jwk).filter(([name]) => !PRIVATE_MEMBERS.has(name))) as Jwk;
}

/**
 * Generate a new signing key for `algorithm`.
 *
 * @example
 * ```ts
 * const key = generateSigningKey('ES256', 2048, Math.floor(Date.now() / 1000));
 * console.log(key.kid, key.alg); // "<thumbprint>" "ES256"
 * ```
 */
export function generateSigningKey(
  algorithm: SigningAlgorithm,
  rsaModulusLength: number,
  now: number,
): SigningKeyRecord {
  const pair =
    algorithm === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : algorithm === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: rsaModulusLength });
  const jwk = pair.privateKey.export({ format: 'jwk' });
  const kid = thumbprint(jwk);
  return {
    kid,
    alg: algorithm,
    privateJwk: { ...jwk, kid, alg: algorithm, use: 'sig' },
    status: 'active',
    createdAt: now,
    retiredAt: null,
    expiresAt: null,
  };
}

/** Management API view of a key. */
export function describeKey(key: SigningKeyRecord): SigningKeyInfo {
  return {
    kid: key.kid,
    alg: key.alg,
    status: key.status,
    createdAt: key.createdAt,
    retiredAt: key.retiredAt,
    expiresAt: key.expiresAt,
  };
}

/**
 * Load the keys in force: create the first key when there is none, drop retired keys whose grace period
 * has ended, and order the active key first.
 */
export async function loadKeySet(
  store: Store,
  config: Pick<ResolvedConfig, 'keys'>,
  now: number,
): Promise<KeySet> {
  await store.keys.purgeExpired(now);
  let keys = await store.keys.list();
  if (!keys.some((key) => key.status === 'active')) {
    await store.keys.insertInitial(
      generateSigningKey(config.keys.algorithm, config.keys.rsaModulusLength, now),
    );
    keys = await store.keys.list();
  }
  const live = keys
    .filter((key) => key.status === 'active' || (key.expiresAt !== null && key.expiresAt > now))
    .sort((a, b) => (a.status === b.status ? b.createdAt - a.createdAt : a.status === 'active' ? -1 : 1));
  const signing = live.map((key) => key.privateJwk as Jwk);
  const expiries = live.flatMap((key) =>
    key.status === 'retired' && key.expiresAt !== null ? [key.expiresAt] : [],
  );
  return Object.freeze({
    signing: Object.freeze(signing),
    jwks: Object.freeze({ keys: Object.freeze(signing.map(toPublicJwk)) }),
    fingerprint: live.map((key) => `${key.kid}:${key.status}`).join(','),
    nextExpiry: expiries.length > 0 ? Math.min(...expiries) : undefined,
  });
}

/**
 * Rotate: the new key signs from now on; the previous active key stays published for the grace
 * period. `event`, when given, makes the audit event of the new key, recorded with the rotation.
 */
export async function rotateSigningKey(
  store: Store,
  config: Pick<ResolvedConfig, 'keys'>,
  now: number,
  event?: (key: SigningKeyRecord) => NewAuditEvent,
): Promise<SigningKeyRecord> {
  const key = generateSigningKey(config.keys.algorithm, config.keys.rsaModulusLength, now);
  await store.keys.rotate(key, now, now + config.keys.gracePeriod, event?.(key));
  return key;
}
