/**
 * Strict base64url (RFC 4648 §5, no padding), as RFC 7515 §2 requires. The platform decoders are lenient (Node's
 * (it skips `=`, `+`, `/` and whitespace, and ignores the unused low bits of the last character), so
 * the alphabet and the canonical form are checked first: every byte string then has exactly one
 * accepted encoding, and a JWS signature segment cannot be altered while decoding to the same bytes.
 * On Node the check is a round trip (decode, re-encode, compare): only the one canonical text of the
 * bytes re-encodes to itself, and Node's native codec does both in about half the time a regular
 * expression takes to scan the text (≈0.3 µs against ≈0.6 µs for a 300-character segment).
 *
 * @module
 */

import { base64Bytes, base64urlBytes, encodeBase64url, PLATFORM } from './platform.js';

const ALPHABET = /^[A-Za-z0-9_-]+$/;

/** The 6-bit value of one base64url character (the alphabet is already checked). */
function sextet(code: number): number {
  if (code >= 97) return code - 71; // a-z → 26-51
  if (code === 95) return 63; // '_'
  if (code >= 65) return code - 65; // A-Z → 0-25
  if (code >= 48) return code + 4; // 0-9 → 52-61
  return 62; // '-'
}

/**
 * Decode a non-empty, unpadded, canonical base64url string, or return `undefined` when it is not one
 * (wrong alphabet, padding, a length that cannot be base64, or non-zero unused bits in the last character).
 */
export function decodeBase64url(segment: string): Uint8Array | undefined {
  if (PLATFORM === 'node') {
    if (segment.length === 0) return undefined;
    const bytes = base64urlBytes(segment);
    return encodeBase64url(bytes) === segment ? bytes : undefined;
  }
  const rest = segment.length % 4;
  if (rest === 1 || !ALPHABET.test(segment)) return undefined;
  // With 2 (3) characters in the last quantum, its last character carries 4 (2) unused bits that must be 0.
  if (rest !== 0 && (sextet(segment.charCodeAt(segment.length - 1)) & (rest === 2 ? 0x0f : 0x03)) !== 0) {
    return undefined;
  }
  return base64urlBytes(segment);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decode strict, padded standard base64 (RFC 4648 §4), or return `undefined` when it is not that. */
export function decodeBase64(value: string): Uint8Array | undefined {
  if (value.length === 0 || !BASE64.test(value)) return undefined;
  return base64Bytes(value);
}
