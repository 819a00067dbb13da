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

/** Encode one unsigned big-endian integer as a DER INTEGER (minimal, with a 0x00 pad when the top bit is set). */
function derInteger(bytes: Uint8Array, start: number, end: number): Buffer {
  while (start < end - 1 && bytes[start] === 0) start++;
  const pad = (bytes[start]! & 0x80) !== 0 ? 1 : 0;
  const len = end - start + pad;
  const out = Buffer.allocUnsafe(2 + len);
  out[0] = 0x02;
  out[1] = len;
  if (pad) out[2] = 0;
  out.set(bytes.subarray(start, end), 2 + pad);
  return out;
}

function isZero(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}

/** Convert a JWS ECDSA signature (R‖S) to DER, or `undefined` when its length or values are invalid. */
export function ecdsaToDer(signature: Uint8Array, size: number): Buffer | undefined {
  if (signature.length !== size * 2) return undefined;
  if (isZero(signature, 0, size) || isZero(signature, size, size * 2)) return undefined;
  const r = derInteger(signature, 0, size);
  const s = derInteger(signature, size, size * 2);
  const body = r.length + s.length;
  const head = body < 0x80 ? Buffer.from([0x30, body]) : Buffer.from([0x30, 0x81, body]);
  return Buffer.concat([head, r, s], head.length + body);
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
