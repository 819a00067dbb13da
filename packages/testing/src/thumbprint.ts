/**
 * Thumbprints that bind an access token to its sender (`cnf` claim, RFC 7800): the RFC 7638 JWK
 * thumbprint of a DPoP key (`cnf.jkt`, RFC 9449 §6.1) and the SHA-256 thumbprint of a client certificate
 * (`cnf["x5t#S256"]`, RFC 8705 §3.1). Both are computed here with `node:crypto`, independently of any
 * verifier, so tests compare a verifier against the RFCs and not against itself.
 *
 * @module
 */
import { createHash, X509Certificate } from 'node:crypto';

/**
 * A JSON Web Key (RFC 7517): the members a thumbprint is computed from (and any others, which are
 * ignored).
 *
 * @example
 * ```ts
 * const jwk: JwkInput = { kty: 'EC', crv: 'P-256', x: '…', y: '…' };
 * ```
 */
export interface JwkInput {
  readonly kty: string;
  readonly [member: string]: unknown;
}

/**
 * A certificate given as its DER bytes, a PEM string, or anything holding its DER bytes in `der` (a
 * `TestCertificate` from `generateTestCertificate()`).
 *
 * @example
 * ```ts
 * const a: CertificateInput = certificate.der;          // DER bytes
 * const b: CertificateInput = certificate.certificate;  // PEM
 * const c: CertificateInput = certificate;              // { der }
 * ```
 */
export type CertificateInput = Uint8Array | string | { readonly der: Uint8Array };

/** The members RFC 7638 §3.2 hashes, per key type, in lexicographic order. */
const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  EC: ['crv', 'kty', 'x', 'y'],
  RSA: ['e', 'kty', 'n'],
  OKP: ['crv', 'kty', 'x'], // RFC 8037 §2
  oct: ['k', 'kty'],
});

const sha256 = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('base64url');

/**
 * The RFC 7638 SHA-256 thumbprint of a JWK, base64url-encoded: the value of `cnf.jkt` for a DPoP key
 * (RFC 9449 §6.1). Only the required members of the key type are hashed (EC `crv kty x y`, RSA `e kty n`,
 * OKP `crv kty x`, oct `k kty`), in lexicographic order, as JSON without whitespace, so `kid`, `alg`,
 * `use` and private members do not change it. Throws a `TypeError` for an unknown `kty` or a missing
 * member.
 *
 * @example
 * ```ts
 * import { thumbprint } from '@gatehouse/testing';
 *
 * thumbprint({ kty: 'RSA', e: 'AQAB', n: '0vx7agoebGcQSuuPiLJXZptN9…', kid: '2011-04-29' });
 * // 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' (RFC 7638 §3.1)
 * ```
 */
export function thumbprint(jwk: JwkInput): string {
  if (jwk === null || typeof jwk !== 'object') throw new TypeError('jwk must be a JWK object');
  const members = typeof jwk.kty === 'string' ? REQUIRED_MEMBERS[jwk.kty] : undefined;
  if (members === undefined) {
    throw new TypeError(`jwk "kty" must be one of ${Object.keys(REQUIRED_MEMBERS).join(', ')}`);
  }
  const canonical: Record<string, string> = {};
  for (const name of members) {
    const value = jwk[name];
    if (typeof value !== 'string' || value.length === 0) {
      throw new TypeError(`jwk "${name}" must be a non-empty string for kty ${jwk.kty as string}`);
    }
    canonical[name] = value;
  }
  // JSON.stringify writes the members in insertion order (already lexicographic) without whitespace.
  return sha256(JSON.stringify(canonical));
}

/**
 * The DER bytes of a certificate given as DER, PEM or `{ der }`. Throws a `TypeError` for anything else
 * (a PEM string that does not parse as an X.509 certificate included).
 *
 * @example
 * ```ts
 * certificateDer(certificate.certificate).equals(certificate.der); // true
 * ```
 */
export function certificateDer(certificate: CertificateInput): Buffer {
  if (typeof certificate === 'string') {
    try {
      return new X509Certificate(certificate).raw;
    } catch {
      throw new TypeError('certificate must be a PEM X.509 certificate, its DER bytes, or { der }');
    }
  }
  if (certificate instanceof Uint8Array) return Buffer.from(certificate);
  if (certificate !== null && typeof certificate === 'object' && certificate.der instanceof Uint8Array) {
    return Buffer.from(certificate.der);
  }
  throw new TypeError('certificate must be a PEM X.509 certificate, its DER bytes, or { der }');
}

/**
 * The RFC 8705 certificate thumbprint, `x5t#S256`: base64url(SHA-256(DER of the certificate)). It is the
 * value of `cnf["x5t#S256"]` in a certificate-bound token (RFC 8705 §3.1), and what a TLS server sees
 * hashing `socket.getPeerCertificate().raw`.
 *
 * @example
 * ```ts
 * import { certificateThumbprint, generateTestCertificate } from '@gatehouse/testing';
 *
 * const client = await generateTestCertificate();
 * certificateThumbprint(client.der) === client.thumbprint;         // true
 * certificateThumbprint(client.certificate) === client.thumbprint; // PEM works too
 * ```
 */
export function certificateThumbprint(certificate: CertificateInput): string {
  return sha256(certificateDer(certificate));
}
