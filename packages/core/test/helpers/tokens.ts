/** Small helpers to take a compact JWS apart and put it back together with altered parts. */
import { b64url, rawSign, type TestAlg, type TestKey } from './fixtures.js';

export interface Segments {
  readonly header: string;
  readonly payload: string;
  readonly signature: string;
}

export function segments(token: string): Segments {
  const [header = '', payload = '', signature = ''] = token.split('.');
  return { header, payload, signature };
}

/** The decoded signature bytes of `token`. */
export const signatureOf = (token: string): Buffer => Buffer.from(segments(token).signature, 'base64url');

/** `token` with its signature replaced by `signature` (bytes, or an already encoded segment). */
export function withSignature(token: string, signature: Uint8Array | string): string {
  const { header, payload } = segments(token);
  return `${header}.${payload}.${typeof signature === 'string' ? signature : b64url(signature)}`;
}

/** An unsigned-looking token from raw header and payload texts plus a signature segment. */
export function compact(headerText: string, payloadText: string, signature = ''): string {
  return `${b64url(headerText)}.${b64url(payloadText)}.${signature}`;
}

/** Sign raw header and payload bytes (e.g. invalid UTF-8) as a compact JWS with `key`. */
export function signBytes(
  key: TestKey,
  header: Uint8Array | string,
  payload: Uint8Array | string,
  alg: TestAlg = key.alg,
): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${b64url(rawSign(alg, key.privateKey, input))}`;
}
