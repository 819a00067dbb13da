import { describe, expect, it } from 'vitest';
import * as testing from '../src/index.js';

describe('public API', () => {
  it('exports exactly the documented values', () => {
    expect(Object.keys(testing).sort()).toEqual(
      [
        'DEFAULTS',
        'TEST_ALGORITHMS',
        'accessTokenHash',
        'certificateThumbprint',
        'clientCertHeader',
        'createDpopProof',
        'createTestCertificateAuthority',
        'createTestIssuer',
        'generateDpopKey',
        'generateTestCertificate',
        'onUnhandledRequest',
        'tamperSignature',
        'thumbprint',
      ].sort(),
    );
  });

  it('gives a TestIssuer every member of the contract', async () => {
    const issuer = await testing.createTestIssuer();
    for (const name of ['issuer', 'audience', 'jwksUri', 'kid', 'alg'])
      expect(typeof issuer[name as keyof typeof issuer]).toBe('string');
    expect(Array.isArray(issuer.handlers)).toBe(true);
    expect(issuer.handlers).toHaveLength(3);
    for (const name of [
      'sign',
      'impersonation',
      'rotateKeys',
      'jwks',
      'fetch',
      'verifierOptions',
      'listen',
    ] as const) {
      expect(typeof issuer[name]).toBe('function');
    }
    for (const name of [
      'expired',
      'notYetValid',
      'wrongAudience',
      'wrongIssuer',
      'unknownKey',
      'tamperedSignature',
      'algNone',
    ] as const) {
      expect(typeof issuer.tokens[name]).toBe('function');
    }
    for (const name of ['serverError', 'timeout', 'malformed'] as const)
      expect(typeof issuer.outage[name]).toBe('function');
  });
});
