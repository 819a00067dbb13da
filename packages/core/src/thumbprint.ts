/**
 * The two thumbprints a sender-constrained token is bound to (RFC 7800 `cnf`):
 * - `jkt` (RFC 9449 §6.1): the RFC 7638 SHA-256 thumbprint of the client's DPoP public key;
 * - `x5t#S256` (RFC 8705 §3.1): the SHA-256 of the DER client certificate.
 *
 * Both are computed synchronously (the platform's SHA-256): jose's `calculateJwkThumbprint` is async
 * (WebCrypto digest), and the thumbprint sits on the per-request path of every new proof key.
 *
 * @module
 */
import { sha256Base64url } from './internal/platform.js';

/** The members RFC 7638 §3.2 hashes, per key type, already in lexicographic order. */
const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
});

/** A base64url SHA-256 digest: 43 characters. */
const SHA256_B64URL = /^[A-Za-z0-9_-]{43}$/;

/** Whether `value` has the form of a base64url SHA-256 thumbprint (`jkt`, `x5t#S256`). */
export const isThumbprint = (value: unknown): value is string =>
  typeof value === 'string' && SHA256_B64URL.test(value);

/**
 * RFC 7638 JWK thumbprint (SHA-256, base64url) of a public `EC`, `OKP` or `RSA` key: the JSON of its
 * required members only, in lexicographic order, without whitespace. Returns `undefined` when `jwk`
 * lacks one of them or is of another key type.
 *
 * @example
 * ```ts
 * import { jwkThumbprint } from '@gatehouse/core';
 *
 * jwkThumbprint({ kty: 'EC', crv: 'P-256', x: '…', y: '…' }); // 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs'-like
 * ```
 */
export function jwkThumbprint(jwk: Readonly<Record<string, unknown>>): string | undefined {
  const members = typeof jwk.kty === 'string' ? REQUIRED_MEMBERS[jwk.kty] : undefined;
  if (members === undefined) return undefined;
  let json = '{';
  for (const name of members) {
    const value = jwk[name];
    if (typeof value !== 'string') return undefined;
    json += `${json.length === 1 ? '' : ','}"${name}":${JSON.stringify(value)}`;
  }
  return sha256Base64url(`${json}}`);
}

/**
 * RFC 8705 §3.1 certificate thumbprint: base64url SHA-256 of the DER-encoded certificate.
 *
 * @example
 * ```ts
 * import { certificateThumbprint } from '@gatehouse/core';
 *
 * const x5t = certificateThumbprint(tlsSocket.getPeerCertificate().raw);
 * ```
 */
export function certificateThumbprint(der: Uint8Array): string {
  return sha256Base64url(der);
}
