import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/defaults.js';
import {
  resolveIssuerOptions,
  validateClaims,
  validateIssuerUrl,
  validateSignOptions,
} from '../src/options.js';

describe('resolveIssuerOptions', () => {
  it('applies DEFAULTS', () => {
    expect(resolveIssuerOptions()).toEqual({
      explicitIssuer: false,
      issuer: DEFAULTS.issuer,
      audience: DEFAULTS.audience,
      alg: 'ES256',
      kid: undefined,
      subject: 'user-1',
      clientId: 'test-client',
      scope: undefined,
      expiresIn: 300,
    });
  });

  it('keeps valid overrides and records that the issuer was chosen', () => {
    const r = resolveIssuerOptions({
      issuer: 'http://127.0.0.1:4000/oidc',
      audience: ['https://a', 'https://b'],
      alg: 'EdDSA',
      kid: 'k1',
      subject: 's',
      clientId: 'c',
      scope: 'read:orders',
      expiresIn: 60,
    });
    expect(r).toMatchObject({
      explicitIssuer: true,
      issuer: 'http://127.0.0.1:4000/oidc',
      alg: 'EdDSA',
      kid: 'k1',
      expiresIn: 60,
    });
    expect(r.audience).toEqual(['https://a', 'https://b']);
    expect(Object.isFrozen(r)).toBe(true);
  });

  it.each([
    [{ issuer: 'not a url' }, /"issuer" option must be an absolute URL/],
    [{ issuer: 'ftp://x.test/' }, /"issuer" option must be an https: or http: URL/],
    [{ issuer: 'https://x.test/?a=1' }, /"issuer" option must not contain a query/],
    [{ issuer: 'https://x.test/#f' }, /"issuer" option must not contain a query, fragment/],
    [{ audience: '' }, /"audience" option must be a non-empty string/],
    [{ audience: [] }, /"audience" option must not be an empty array/],
    [{ audience: ['ok', 3] }, /"audience" option must contain non-empty strings/],
    [{ alg: 'HS256' }, /"alg" option must be one of ES256, RS256, PS256, EdDSA/],
    [{ alg: 'none' }, /"alg" option/],
    [{ kid: '' }, /"kid" option must be a non-empty string/],
    [{ subject: 42 }, /"subject" option/],
    [{ clientId: null }, /"clientId" option/],
    [{ scope: ['read'] }, /"scope" option must be a string/],
    [{ expiresIn: 0 }, /"expiresIn" option must be a finite number >= 1/],
    [{ expiresIn: Number.POSITIVE_INFINITY }, /"expiresIn" option/],
    [{ expiresIn: '300' }, /"expiresIn" option/],
  ])('refuses %j with a TypeError naming the option', (options, message) => {
    expect(() => resolveIssuerOptions(options as never)).toThrow(TypeError);
    expect(() => resolveIssuerOptions(options as never)).toThrow(message);
  });

  it('refuses a non-object', () => {
    expect(() => resolveIssuerOptions('x' as never)).toThrow(/options must be an object/);
  });
});

describe('validateIssuerUrl', () => {
  it('accepts https and http URLs', () => {
    expect(validateIssuerUrl('https://id.example.com')).toBe('https://id.example.com');
    expect(validateIssuerUrl('http://127.0.0.1:1/x')).toBe('http://127.0.0.1:1/x');
  });
  it('refuses credentials and non-strings', () => {
    expect(() => validateIssuerUrl('https://u:p@x.test')).toThrow(/credentials/);
    expect(() => validateIssuerUrl(new URL('https://x.test'))).toThrow(/URL string/);
  });
});

describe('validateSignOptions and validateClaims', () => {
  it.each([
    [{ expiresIn: Number.NaN }, /"expiresIn" option must be a finite number/],
    [{ notBefore: '10' }, /"notBefore" option/],
    [{ kid: 3 }, /"kid" option/],
    [{ typ: 1 }, /"typ" option must be a string/],
    [{ header: [] }, /"header" option must be an object/],
    [{ dpop: 'key' }, /"dpop" option must be a key from generateDpopKey\(\) or a public JWK/],
    [{ dpop: { kty: 'EC', crv: 'P-256', x: 'a' } }, /"dpop" option .*"y" must be a non-empty string/],
    [{ dpop: { publicJwk: { kty: 'nope' } } }, /"dpop" option .*"kty" must be one of/],
    [{ certificate: 'not PEM' }, /"certificate" option must be a certificate from generateTestCertificate/],
    [{ certificate: { der: 'x' } }, /"certificate" option/],
  ])('refuses %j', (options, message) => {
    expect(() => validateSignOptions(options)).toThrow(message);
  });

  it('accepts nothing or valid options', () => {
    expect(validateSignOptions(undefined)).toEqual({});
    expect(
      validateSignOptions({ expiresIn: -5, notBefore: 10, kid: 'k', typ: 'JWT', header: {} }),
    ).toMatchObject({
      expiresIn: -5,
    });
    expect(() => validateSignOptions(null)).toThrow(/sign options must be an object/);
  });

  it('requires claims to be a plain object', () => {
    expect(validateClaims(undefined)).toEqual({});
    expect(() => validateClaims([])).toThrow(/"claims" option must be an object/);
    expect(() => validateClaims('sub')).toThrow(TypeError);
  });
});

describe('options that cannot be mistyped', () => {
  it('refuses unknown keys with the closest known name, in every options object', async () => {
    const { createTestIssuer, createDpopProof, generateDpopKey, generateTestCertificate } = await import(
      '../src/index.js'
    );
    await expect(createTestIssuer({ audiance: 'https://api.test' } as never)).rejects.toThrow(
      'unknown option "audiance" (did you mean "audience"?)',
    );
    const issuer = await createTestIssuer();
    await expect(issuer.sign({}, { expiresin: 60 } as never)).rejects.toThrow(
      'unknown option "expiresin" (did you mean "expiresIn"?)',
    );
    await expect(issuer.tokens.expired({}, { kidd: 'x' } as never)).rejects.toThrow('did you mean "kid"?');
    const key = await generateDpopKey();
    expect(() =>
      createDpopProof({ key, method: 'GET', url: 'https://api.test/', accesToken: 't' } as never),
    ).toThrow('unknown option "accesToken" (did you mean "accessToken"?)');
    await expect(generateTestCertificate({ host: ['localhost'] } as never)).rejects.toThrow(
      'did you mean "hosts"?',
    );
    await expect(issuer.listen({ prot: 0 } as never)).rejects.toThrow('did you mean "port"?');
  });
});
