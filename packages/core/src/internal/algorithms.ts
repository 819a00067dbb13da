/**
 * Per-algorithm parameters shared by both platform implementations (platform.ts, platform-web.ts):
 * the hash, the ECDSA coordinate size and the RSA-PSS salt length of every accepted JWS `alg`, and the
 * ECDSA signature shape check that both apply before any crypto runs.
 *
 * @module
 */
import type { Algorithm } from '../types.js';

/** The hash of each algorithm (`null`: EdDSA hashes internally). */
export const HASH: Readonly<Record<Algorithm, 'sha256' | 'sha384' | 'sha512' | null>> = Object.freeze({
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
  EdDSA: null,
  Ed25519: null,
});

/** Byte length of one ECDSA coordinate (R or S) per algorithm. */
export const EC_SIZE: Readonly<Partial<Record<Algorithm, number>>> = Object.freeze({
  ES256: 32,
  ES384: 48,
  ES512: 66,
});

/** RSA-PSS salt length (bytes) per algorithm: the hash length (RFC 7518 §3.5). */
export const PSS_SALT: Readonly<Partial<Record<Algorithm, number>>> = Object.freeze({
  PS256: 32,
  PS384: 48,
  PS512: 64,
});

/** The curve of each ECDSA algorithm (RFC 7518 §3.4). */
export const EC_CURVE: Readonly<Partial<Record<Algorithm, string>>> = Object.freeze({
  ES256: 'P-256',
  ES384: 'P-384',
  ES512: 'P-521',
});

function isZero(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * Whether a JWS ECDSA signature (R‖S, RFC 7518 §3.4) has the exact length for its curve and neither
 * R nor S is zero (CVE-2022-21449). A DER signature inside a JWS fails the length check.
 */
export function isEcdsaShape(signature: Uint8Array, size: number): boolean {
  return signature.length === size * 2 && !isZero(signature, 0, size) && !isZero(signature, size, size * 2);
}

/** The smallest RSA modulus accepted, in bits (RFC 7518 §3.3). */
export const MIN_RSA_BITS = 2048;
