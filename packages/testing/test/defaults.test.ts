import { describe, expect, it } from 'vitest';
import { DEFAULTS, TEST_ALGORITHMS } from '../src/defaults.js';

describe('DEFAULTS', () => {
  it('holds the documented contract values', () => {
    expect(DEFAULTS).toMatchObject({
      issuer: 'https://issuer.gatehouse.test/oidc',
      audience: 'https://api.gatehouse.test',
      alg: 'ES256',
      subject: 'user-1',
      clientId: 'test-client',
      expiresIn: 300,
      typ: 'at+jwt',
    });
  });

  it('is frozen, and so is the algorithm list', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(Object.isFrozen(TEST_ALGORITHMS)).toBe(true);
    expect(TEST_ALGORITHMS).toEqual(['ES256', 'RS256', 'PS256', 'EdDSA']);
  });

  it('holds the DPoP and certificate defaults', () => {
    expect(DEFAULTS).toMatchObject({
      dpopAlg: 'ES256',
      dpopTyp: 'dpop+jwt',
      certificateCommonName: 'test-client',
      certificateAuthorityName: 'Gatehouse Test CA',
      certificateValidity: 86_400,
      certificateBackdate: 300,
    });
    expect(TEST_ALGORITHMS).toContain(DEFAULTS.dpopAlg);
  });

  it('puts bad tokens beyond the largest clock tolerance core accepts (300 s)', () => {
    expect(DEFAULTS.skew).toBeGreaterThan(300);
  });

  it('uses reserved .test hosts that differ from the defaults for the wrong issuer and audience', () => {
    for (const url of [DEFAULTS.issuer, DEFAULTS.audience, DEFAULTS.wrongIssuer, DEFAULTS.wrongAudience]) {
      expect(new URL(url).hostname.endsWith('.test')).toBe(true);
    }
    expect(DEFAULTS.wrongIssuer).not.toBe(DEFAULTS.issuer);
    expect(DEFAULTS.wrongAudience).not.toBe(DEFAULTS.audience);
  });
});
