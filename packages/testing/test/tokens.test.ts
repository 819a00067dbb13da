import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateTestCertificate } from '../src/certificates.js';
import { generateDpopKey } from '../src/dpop.js';
import { signCompact } from '../src/jws.js';
import { generateSigningKey } from '../src/keys.js';
import {
  accessTokenClaims,
  type ClaimDefaults,
  confirmation,
  tamperSignature,
  tokenHeader,
  unsignedToken,
} from '../src/tokens.js';
import { decode } from './helpers/verify.js';

const defaults: ClaimDefaults = {
  issuer: 'https://issuer.gatehouse.test/oidc',
  audience: 'https://api.gatehouse.test',
  subject: 'user-1',
  clientId: 'test-client',
  scope: undefined,
  expiresIn: 300,
};

afterEach(() => {
  vi.useRealTimers();
});

describe('accessTokenClaims', () => {
  it('fills the RFC 9068 claims from the defaults and the clock', () => {
    const c = accessTokenClaims(defaults, {}, {}, 1_000);
    expect(c).toEqual({
      iss: defaults.issuer,
      sub: 'user-1',
      aud: defaults.audience,
      client_id: 'test-client',
      iat: 1_000,
      exp: 1_300,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(accessTokenClaims(defaults).jti).not.toBe(c.jti);
  });

  it('reads Date.now(), so fake timers move tokens in time', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
    expect(accessTokenClaims(defaults).iat).toBe(Date.UTC(2030, 0, 1) / 1000);
  });

  it('lets claims override or remove defaults, and derives exp from an explicit iat', () => {
    const c = accessTokenClaims(
      defaults,
      { sub: undefined, aud: ['a', 'b'], iat: 50, tenant: 'acme' },
      { expiresIn: 10 },
      1_000,
    );
    expect(c).not.toHaveProperty('sub');
    expect(c).toMatchObject({ aud: ['a', 'b'], iat: 50, exp: 60, tenant: 'acme' });
    expect(accessTokenClaims(defaults, { exp: 7 }, {}, 1_000).exp).toBe(7);
  });

  it('adds scope when configured and nbf from notBefore', () => {
    const c = accessTokenClaims({ ...defaults, scope: 'read:orders' }, {}, { notBefore: -30 }, 1_000);
    expect(c).toMatchObject({ scope: 'read:orders', nbf: 970 });
  });

  it('copies an audience array instead of sharing it', () => {
    const audience = ['a'];
    const c = accessTokenClaims({ ...defaults, audience }, {}, {}, 1);
    (c.aud as string[]).push('b');
    expect(audience).toEqual(['a']);
  });
});

describe('sender-constrained claims (cnf)', async () => {
  const key = await generateDpopKey('ES256');
  const cert = await generateTestCertificate();

  it('binds to a DPoP key: cnf.jkt is the RFC 7638 thumbprint of its public JWK', () => {
    const c = accessTokenClaims(defaults, {}, { dpop: key }, 1_000);
    const { crv, kty, x, y } = key.publicJwk;
    const expected = createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
    expect(c.cnf).toEqual({ jkt: expected });
    // A bare public JWK works too, and the thumbprint is recomputed rather than trusted.
    expect(confirmation({ dpop: { ...key.publicJwk } })).toEqual({ jkt: expected });
    expect(confirmation({ dpop: { ...key, thumbprint: 'forged' } })).toEqual({ jkt: expected });
  });

  it('binds to a certificate: cnf["x5t#S256"] is base64url(SHA-256(DER)), from the object, DER or PEM', () => {
    const expected = createHash('sha256').update(cert.der).digest('base64url');
    expect(accessTokenClaims(defaults, {}, { certificate: cert }, 1_000).cnf).toEqual({
      'x5t#S256': expected,
    });
    expect(confirmation({ certificate: cert.der })).toEqual({ 'x5t#S256': expected });
    expect(confirmation({ certificate: cert.certificate })).toEqual({ 'x5t#S256': expected });
  });

  it('holds both with both options, nothing without, and a cnf claim replaces it', () => {
    expect(confirmation({ dpop: key, certificate: cert })).toEqual({
      jkt: key.thumbprint,
      'x5t#S256': cert.thumbprint,
    });
    expect(accessTokenClaims(defaults, {}, {}, 1_000)).not.toHaveProperty('cnf');
    expect(accessTokenClaims(defaults, { cnf: { jkt: 'other' } }, { dpop: key }, 1_000).cnf).toEqual({
      jkt: 'other',
    });
    expect(accessTokenClaims(defaults, { cnf: undefined }, { dpop: key }, 1_000)).not.toHaveProperty('cnf');
  });
});

describe('tokenHeader', () => {
  it('is { alg, kid, typ: at+jwt } with typ and header overrides, undefined removing a field', async () => {
    const key = await generateSigningKey('ES256', 'k1');
    expect(tokenHeader(key)).toEqual({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' });
    expect(tokenHeader(key, { typ: 'JWT' })).toEqual({ alg: 'ES256', kid: 'k1', typ: 'JWT' });
    expect(tokenHeader(key, { header: { kid: undefined, jku: 'https://evil.test/jwks' } })).toEqual({
      alg: 'ES256',
      typ: 'at+jwt',
      jku: 'https://evil.test/jwks',
    });
  });

  it('refuses to change alg (the key decides it)', async () => {
    const key = await generateSigningKey('ES256');
    expect(() => tokenHeader(key, { header: { alg: 'HS256' } })).toThrow(/"header.alg" option must equal/);
    expect(tokenHeader(key, { header: { alg: 'ES256' } }).alg).toBe('ES256');
  });
});

describe('tamperSignature and unsignedToken', () => {
  it('tamperSignature changes exactly one bit of the signature and nothing else', async () => {
    const key = await generateSigningKey('RS256');
    const token = signCompact(key, { alg: 'RS256' }, { sub: 'x' });
    const bad = tamperSignature(token);
    const [h1, p1, s1] = token.split('.');
    const [h2, p2, s2] = bad.split('.');
    expect([h2, p2]).toEqual([h1, p1]);
    const a = Buffer.from(s1!, 'base64url');
    const b = Buffer.from(s2!, 'base64url');
    expect(b.length).toBe(a.length);
    let bits = 0;
    for (let i = 0; i < a.length; i++) bits += (a[i]! ^ b[i]!).toString(2).replaceAll('0', '').length;
    expect(bits).toBe(1);
    expect(Buffer.from(s2!, 'base64url').toString('base64url')).toBe(s2); // canonical encoding
  });

  it('tamperSignature refuses strings that are not signed compact JWS', () => {
    expect(() => tamperSignature('abc')).toThrow(TypeError);
    expect(() => tamperSignature('a.b.')).toThrow(/must be signed/);
  });

  it('unsignedToken has alg none and an empty signature', () => {
    const token = unsignedToken({ sub: 'admin' }, { kid: 'k' });
    expect(token.endsWith('.')).toBe(true);
    expect(decode(token).header).toEqual({ alg: 'none', typ: 'at+jwt', kid: 'k' });
  });
});
