/**
 * Turning JWKS entries into verification keys, and matching keys to a token's `alg`.
 *
 * A JWK is never used when it is symmetric (`kty: "oct"`), an RSA key under 2048 bits, marked for
 * encryption (`use: "enc"`), or has `key_ops` without `verify` (RFC 7517 §4.2–4.3, RFC 7518 §3.3).
 * Only the public members are imported (a published private key is not trusted either), by the
 * platform (a `KeyObject` on Node for the synchronous hot path, WebCrypto keys elsewhere).
 *
 * @module
 */
import { EC_CURVE } from './internal/algorithms.js';
import { importKey, type PublicJwk, type VerifyKey } from './internal/platform.js';
import type { Algorithm } from './types.js';

/** A usable public key from the JWKS. */
export interface KeyEntry {
  readonly kid: string | undefined;
  /** The JWK's own `alg`, which then is the only algorithm it may verify. */
  readonly alg: string | undefined;
  readonly kty: 'RSA' | 'EC' | 'OKP';
  /** `crv` for EC and OKP keys. */
  readonly crv: string | undefined;
  readonly key: VerifyKey;
}

/** Whether `entry` may verify a signature made with `alg`. */
export function keyMatchesAlgorithm(entry: KeyEntry, alg: Algorithm): boolean {
  if (entry.alg !== undefined && entry.alg !== alg) return false;
  switch (alg) {
    case 'RS256':
    case 'RS384':
    case 'RS512':
    case 'PS256':
    case 'PS384':
    case 'PS512':
      return entry.kty === 'RSA';
    case 'ES256':
    case 'ES384':
    case 'ES512':
      return entry.kty === 'EC' && entry.crv === EC_CURVE[alg];
    case 'EdDSA':
      // Ed25519 only: Ed448 keys are never used.
      return entry.kty === 'OKP' && entry.crv === 'Ed25519';
    case 'Ed25519':
      return entry.kty === 'OKP' && entry.crv === 'Ed25519';
    default:
      return false;
  }
}

const IMPORT_ALG: Readonly<Record<string, Algorithm>> = {
  'P-256': 'ES256',
  'P-384': 'ES384',
  'P-521': 'ES512',
  Ed25519: 'EdDSA',
};

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Import one JWKS entry, or return `undefined` when it must not be used for verification.
 */
export async function importVerificationKey(jwk: unknown): Promise<KeyEntry | undefined> {
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return undefined;
  const j = jwk as Record<string, unknown>;
  if (j.kid !== undefined && typeof j.kid !== 'string') return undefined;
  if (j.alg !== undefined && typeof j.alg !== 'string') return undefined;
  if (j.use !== undefined && j.use !== 'sig') return undefined;
  if (j.key_ops !== undefined && !(Array.isArray(j.key_ops) && j.key_ops.includes('verify')))
    return undefined;

  let publicJwk: Record<string, string | undefined>;
  let importAlg: Algorithm | undefined;
  const kty = j.kty;
  if (kty === 'RSA') {
    publicJwk = { kty, n: str(j.n), e: str(j.e) };
    const alg = str(j.alg) ?? 'RS256';
    if (!/^(?:RS|PS)(?:256|384|512)$/.test(alg)) return undefined;
    importAlg = alg as Algorithm;
  } else if (kty === 'EC') {
    publicJwk = { kty, crv: str(j.crv), x: str(j.x), y: str(j.y) };
    importAlg = IMPORT_ALG[str(j.crv) ?? ''];
  } else if (kty === 'OKP') {
    publicJwk = { kty, crv: str(j.crv), x: str(j.x) };
    importAlg = IMPORT_ALG[str(j.crv) ?? ''];
  } else {
    return undefined;
  }
  if (importAlg === undefined) return undefined;
  if (Object.values(publicJwk).some((value) => value === undefined)) return undefined;

  // RSA keys under 2048 bits and anything that is not a valid public key come back `undefined`.
  const key = await importKey(publicJwk as PublicJwk, importAlg);
  if (key === undefined) return undefined;

  return Object.freeze({ kid: str(j.kid), alg: str(j.alg), kty, crv: str(j.crv), key });
}
