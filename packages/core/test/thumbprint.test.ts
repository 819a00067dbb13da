/** RFC 7638 JWK thumbprints and RFC 8705 certificate thumbprints (src/thumbprint.ts). */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { certificateThumbprint, jwkThumbprint } from '../src/index.js';
import { isThumbprint } from '../src/thumbprint.js';

/** RFC 7638 §3.1: the example RSA key and its SHA-256 thumbprint. */
const RFC7638_KEY = {
  kty: 'RSA',
  n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
  alg: 'RS256',
  kid: '2011-04-29',
};

describe('jwkThumbprint', () => {
  it('gives RFC 7638 §3.1 its published thumbprint (members other than the required ones are ignored)', () => {
    expect(jwkThumbprint(RFC7638_KEY)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });

  it.each([
    ['EC', generateKeyPairSync('ec', { namedCurve: 'P-256' })],
    ['OKP', generateKeyPairSync('ed25519')],
    ['RSA', generateKeyPairSync('rsa', { modulusLength: 2048 })],
  ])('agrees with jose for a %s key', async (_kty, pair) => {
    const jwk = pair.publicKey.export({ format: 'jwk' });
    expect(jwkThumbprint(jwk)).toBe(await calculateJwkThumbprint(jwk as JWK));
  });

  it('returns undefined for an unknown key type or a missing member', () => {
    expect(jwkThumbprint({ kty: 'oct', k: 'AAAA' })).toBeUndefined();
    expect(jwkThumbprint({ kty: 'EC', crv: 'P-256', x: 'AAAA' })).toBeUndefined();
    expect(jwkThumbprint({ kty: 'RSA', n: 1, e: 'AQAB' })).toBeUndefined();
    expect(jwkThumbprint({})).toBeUndefined();
  });
});

describe('certificateThumbprint', () => {
  it('is the base64url SHA-256 of the DER bytes', () => {
    const der = Buffer.from('not really a certificate, but bytes');
    expect(certificateThumbprint(der)).toBe(createHash('sha256').update(der).digest('base64url'));
    expect(isThumbprint(certificateThumbprint(der))).toBe(true);
  });

  it('isThumbprint accepts 43 base64url characters only', () => {
    expect(isThumbprint('A'.repeat(43))).toBe(true);
    for (const bad of ['A'.repeat(42), 'A'.repeat(44), `${'A'.repeat(42)}=`, `${'A'.repeat(42)}+`, 42])
      expect(isThumbprint(bad)).toBe(false);
  });
});
