/**
 * Step 2b: the JWS signature check, straight on `node:crypto` with pre-imported `KeyObject`s.
 *
 * jose verifies through WebCrypto (`subtle.verify`), which adds an async thread-pool hop per token; a
 * synchronous `crypto.verify` is 2x faster for RS256. For ECDSA the 64/96/132-byte `R‖S` signature
 * (RFC 7518 §3.4) is length-checked, refused when R or S is zero (CVE-2022-21449), and re-encoded as
 * DER, which OpenSSL verifies faster than the IEEE P1363 form. A DER signature inside a JWS is refused
 * by the length check.
 *
 * @module
 */
import { constants, type KeyObject, verify } from 'node:crypto';
import type { Algorithm } from './types.js';

const HASH: Readonly<Record<Algorithm, string | null>> = {
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
};

/** Byte length of one ECDSA coordinate (R or S) per algorithm. */
const EC_SIZE: Partial<Record<Algorithm, number>> = { ES256: 32, ES384: 48, ES512: 66 };
const PSS_SALT: Partial<Record<Algorithm, number>> = { PS256: 32, PS384: 48, PS512: 64 };

/** Where one R or S value starts once leading zero bytes are dropped (at least one byte stays). */
function firstByte(bytes: Uint8Array, start: number, end: number): number {
  while (start < end - 1 && bytes[start] === 0) start++;
  return start;
}

function isZero(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

/**
 * Convert a JWS ECDSA signature (R‖S) to DER, or `undefined` when its length or values are invalid.
 * Each integer is minimal, with a 0x00 pad when its top bit is set; one allocation in all.
 */
export function ecdsaToDer(signature: Uint8Array, size: number): Buffer | undefined {
  if (signature.length !== size * 2) return undefined;
  if (isZero(signature, 0, size) || isZero(signature, size, size * 2)) return undefined;
  const r = firstByte(signature, 0, size);
  const s = firstByte(signature, size, size * 2);
  const rPad = signature[r]! & 0x80 ? 1 : 0;
  const sPad = signature[s]! & 0x80 ? 1 : 0;
  const rLen = size - r + rPad;
  const sLen = size * 2 - s + sPad;
  const body = 4 + rLen + sLen;
  const head = body < 0x80 ? 2 : 3;
  const out = Buffer.alloc(head + body);
  out[0] = 0x30;
  if (head === 2) out[1] = body;
  else {
    out[1] = 0x81;
    out[2] = body;
  }
  let at = head;
  out[at++] = 0x02;
  out[at++] = rLen;
  at += rPad;
  out.set(signature.subarray(r, size), at);
  at += size - r;
  out[at++] = 0x02;
  out[at++] = sLen;
  at += sPad;
  out.set(signature.subarray(s, size * 2), at);
  return out;
}

/**
 * Verify a JWS signature. Returns `false` for any mismatch or malformed signature; never throws.
 */
export function verifySignature(alg: Algorithm, key: KeyObject, data: Buffer, signature: Buffer): boolean {
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
