/**
 * The runtime primitives of core, Node implementation: `node:crypto` and `Buffer`. Everything else in
 * core (the verifier, DPoP proofs, thumbprints, nonces, mTLS) is written once against these functions.
 * The twin for every other runtime, platform-web.ts (WebCrypto, no Node built-in), has the same
 * exports; the package's `exports` conditions pick the build that holds one or the other.
 *
 * Node verifies synchronously: `crypto.verify` with pre-imported `KeyObject`s has no async hop per
 * token, and is 2x faster than WebCrypto for RS256. For ECDSA the `R‖S` signature is re-encoded as
 * DER, which OpenSSL verifies faster than the IEEE P1363 form.
 *
 * @module
 */
import { isUtf8 } from 'node:buffer';
import { constants, createHmac, createPublicKey, hash, type KeyObject, verify } from 'node:crypto';
import type { Algorithm } from '../types.js';
import { EC_SIZE, HASH, isEcdsaShape, MIN_RSA_BITS, PSS_SALT } from './algorithms.js';

/**
 * Which build of core this is: `node` (`node:crypto`) or `web` (WebCrypto), as the package's `exports`
 * conditions or an explicit subpath (`@gatehouse/core/node`, `@gatehouse/core/web`) picked it.
 *
 * @example
 * ```ts
 * import { PLATFORM } from '@gatehouse/core';
 * log.info({ gatehouseBuild: PLATFORM }); // 'node' on Node, 'web' on Bun, Deno, workerd
 * ```
 */
export const PLATFORM: 'node' | 'web' = 'node';

/** A public key ready to verify signatures. */
export type VerifyKey = KeyObject;

/** The public members of a JWK, and nothing else. */
export type PublicJwk = Readonly<Record<string, string>>;

/** Where one R or S value starts once leading zero bytes are dropped (at least one byte stays). */
function firstByte(bytes: Uint8Array, start: number, end: number): number {
  while (start < end - 1 && bytes[start] === 0) start++;
  return start;
}

/**
 * Convert a JWS ECDSA signature (R‖S) to DER, or `undefined` when its length or values are invalid.
 * Each integer is minimal, with a 0x00 pad when its top bit is set; one allocation in all.
 *
 * @example
 * ```ts
 * ecdsaToDer(rawSignature, 32); // DER for crypto.verify, or undefined
 * ```
 */
export function ecdsaToDer(signature: Uint8Array, size: number): Buffer | undefined {
  if (!isEcdsaShape(signature, size)) return undefined;
  const r = firstByte(signature, 0, size);
  const s = firstByte(signature, size, size * 2);
  const rPad = signature[r]! & 0x80 ? 1 : 0;
  const sPad = signature[s]! & 0x80 ? 1 : 0;
  const rLen = size - r + rPad;
  const sLen = size * 2 - s + sPad;
  const body = 4 + rLen + sLen;
  const head = body < 0x80 ? 2 : 3;
  // Every byte is written below (pads included), so the pooled, unzeroed allocation is safe.
  const out = Buffer.allocUnsafe(head + body);
  out[0] = 0x30;
  if (head === 2) out[1] = body;
  else {
    out[1] = 0x81;
    out[2] = body;
  }
  let at = head;
  out[at++] = 0x02;
  out[at++] = rLen;
  if (rPad) out[at++] = 0;
  out.set(signature.subarray(r, size), at);
  at += size - r;
  out[at++] = 0x02;
  out[at++] = sLen;
  if (sPad) out[at++] = 0;
  out.set(signature.subarray(s, size * 2), at);
  return out;
}

/**
 * Import a public JWK (its public members only) for verification, or `undefined` when it is not a
 * valid public key, or an RSA key under 2048 bits. Synchronous here; a promise on WebCrypto.
 */
export function importKey(
  jwk: PublicJwk,
  _alg: Algorithm,
): VerifyKey | Promise<VerifyKey | undefined> | undefined {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    return undefined;
  }
  if (key.type !== 'public') return undefined;
  if (jwk.kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) return undefined;
  return key;
}

/** Whether two imported keys are the same public key. */
export function sameKey(a: VerifyKey, b: VerifyKey): boolean {
  return a.equals(b);
}

/**
 * Verify a JWS signature. `false` for any mismatch or malformed signature; never throws, never
 * rejects. Synchronous here; a promise on WebCrypto.
 */
export function verifySignature(
  alg: Algorithm,
  key: VerifyKey,
  data: Uint8Array,
  signature: Uint8Array,
): boolean | Promise<boolean> {
  try {
    const size = EC_SIZE[alg];
    if (size !== undefined) {
      const der = ecdsaToDer(signature, size);
      return der !== undefined && verify(HASH[alg], data, key, der);
    }
    const salt = PSS_SALT[alg];
    if (salt !== undefined) {
      return verify(
        HASH[alg],
        data,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: salt },
        signature,
      );
    }
    return verify(HASH[alg], data, key, signature);
  } catch {
    return false;
  }
}

/** Base64url SHA-256 of a string (UTF-8) or bytes. */
export function sha256Base64url(data: string | Uint8Array): string {
  return hash('sha256', data, 'base64url');
}

/** HMAC-SHA-256 of `data` under `key`. */
export function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  return createHmac('sha256', key).update(data).digest();
}

/** Bytes of base64url text whose alphabet and canonical form the caller has checked. */
export function base64urlBytes(text: string): Uint8Array {
  return Buffer.from(text, 'base64url');
}

/** Bytes of padded standard base64 text the caller has checked. */
export function base64Bytes(text: string): Uint8Array {
  return Buffer.from(text, 'base64');
}

/** Unpadded base64url of bytes. */
export function encodeBase64url(bytes: Uint8Array): string {
  return (
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  ).toString('base64url');
}

/** The bytes of an ASCII string (a JWS signing input). */
export function asciiBytes(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

/** The text of strictly valid UTF-8 bytes (a byte-order mark is kept), or `undefined`. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  return (
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  ).toString('utf8');
}
