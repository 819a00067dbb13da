/**
 * Strict base64url (RFC 4648 §5, no padding), as RFC 7515 §2 requires. Node's decoder is lenient
 * (it skips `=`, `+`, `/` and whitespace), so the alphabet is checked first.
 *
 * @module
 */

const ALPHABET = /^[A-Za-z0-9_-]+$/;

/** Decode a non-empty, unpadded base64url string, or return `undefined` when it is not one. */
export function decodeBase64url(segment: string): Buffer | undefined {
  if (segment.length % 4 === 1 || !ALPHABET.test(segment)) return undefined;
  return Buffer.from(segment, 'base64url');
}
