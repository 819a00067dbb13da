import { createHash, X509Certificate } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateTestCertificate } from '../src/certificates.js';
import { generateDpopKey } from '../src/dpop.js';
import { certificateDer, certificateThumbprint, thumbprint } from '../src/thumbprint.js';

/** The example RSA key of RFC 7638 §3.1. */
const RFC7638_KEY = {
  kty: 'RSA',
  n:
    '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjB' +
    'ZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8K' +
    'JZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBn' +
    'iIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
  alg: 'RS256',
  kid: '2011-04-29',
};

/** The public key of RFC 9449's example proofs (§4.1), and its thumbprint as RFC 9449 §6.1 gives it. */
const RFC9449_KEY = {
  kty: 'EC',
  x: 'l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs',
  y: '9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA',
  crv: 'P-256',
};

describe('thumbprint (RFC 7638)', () => {
  it('gives the thumbprint of RFC 7638 §3.1 for its example RSA key', () => {
    expect(thumbprint(RFC7638_KEY)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });

  it('gives the cnf.jkt of RFC 9449 §6.1 for the key of its example proofs', () => {
    expect(thumbprint(RFC9449_KEY)).toBe('0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I');
  });

  it('hashes the required members only, in lexicographic order, without whitespace', () => {
    const expected = createHash('sha256')
      .update(`{"crv":"P-256","kty":"EC","x":"${RFC9449_KEY.x}","y":"${RFC9449_KEY.y}"}`)
      .digest('base64url');
    expect(thumbprint(RFC9449_KEY)).toBe(expected);
    // kid, alg, use and private members do not change it; member order does not either.
    const { y, x, crv, kty } = RFC9449_KEY;
    expect(thumbprint({ y, x, kid: 'k', alg: 'ES256', use: 'sig', d: 'private', crv, kty })).toBe(expected);
  });

  it('agrees with jose for every DPoP key type (EC, RSA, OKP)', async () => {
    for (const alg of ['ES256', 'RS256', 'EdDSA'] as const) {
      const { publicJwk } = await generateDpopKey(alg);
      expect(thumbprint(publicJwk), alg).toBe(await calculateJwkThumbprint(publicJwk, 'sha256'));
    }
    expect(thumbprint({ kty: 'oct', k: 'c2VjcmV0' })).toBe(
      await calculateJwkThumbprint({ kty: 'oct', k: 'c2VjcmV0' }, 'sha256'),
    );
  });

  it('refuses unknown key types and missing members', () => {
    expect(() => thumbprint({ kty: 'XYZ' })).toThrow(/"kty" must be one of EC, RSA, OKP, oct/);
    expect(() => thumbprint({ x: 'a' } as never)).toThrow(TypeError);
    expect(() => thumbprint({ kty: 'EC', crv: 'P-256', x: 'a' })).toThrow(/"y" must be a non-empty string/);
    expect(() => thumbprint(null as never)).toThrow(/must be a JWK object/);
  });
});

describe('certificateThumbprint (RFC 8705 x5t#S256)', async () => {
  const cert = await generateTestCertificate();
  const expected = createHash('sha256').update(cert.der).digest('base64url');

  it('is base64url(SHA-256(DER)), from DER, PEM or { der }', () => {
    expect(certificateThumbprint(cert.der)).toBe(expected);
    expect(certificateThumbprint(cert.certificate)).toBe(expected);
    expect(certificateThumbprint(cert)).toBe(expected);
    expect(certificateThumbprint(new Uint8Array(cert.der))).toBe(expected);
  });

  it('matches the SHA-256 fingerprint Node computes (hex vs base64url)', () => {
    const hex = new X509Certificate(cert.der).fingerprint256.replaceAll(':', '').toLowerCase();
    expect(Buffer.from(expected, 'base64url').toString('hex')).toBe(hex);
  });

  it('refuses what is not a certificate', () => {
    expect(certificateDer(cert.certificate).equals(cert.der)).toBe(true);
    expect(() => certificateThumbprint('not a certificate')).toThrow(TypeError);
    expect(() => certificateThumbprint({} as never)).toThrow(/PEM X.509 certificate, its DER bytes/);
    expect(() => certificateThumbprint(42 as never)).toThrow(TypeError);
  });
});
