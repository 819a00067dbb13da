import { describe, expect, it } from 'vitest';
import { DEFAULTS, TEST_ALGORITHMS } from '../src/defaults.js';
import { createTestIssuer } from '../src/test-issuer.js';
import { decode, expectRejected, verifierFor } from './helpers/verify.js';

describe('ready-made bad tokens (catalogue cases 18, 25, 33, 37, 38, 39, 40, 17)', () => {
  const expected = {
    expired: 'expired',
    notYetValid: 'not_yet_valid',
    wrongAudience: 'audience',
    wrongIssuer: 'issuer',
    unknownKey: 'key_not_found',
    tamperedSignature: 'signature',
    algNone: ['malformed', 'algorithm'],
    wrongType: 'typ',
    noExpiry: 'claim',
  } as const;

  for (const alg of TEST_ALGORITHMS) {
    it(`each ${alg} bad token fails in core for its own reason, under the largest clock tolerance`, async () => {
      const issuer = await createTestIssuer({ alg });
      const verifier = verifierFor(issuer, { clockTolerance: 300 });
      // A good token from the same issuer passes, so each failure is the token's own.
      await expect(verifier.verify(await issuer.sign())).resolves.toBeDefined();
      for (const [name, reason] of Object.entries(expected)) {
        const token = await issuer.tokens[name as keyof typeof expected]();
        await expectRejected(verifier, token, reason as string | string[]);
      }
    });
  }

  it('bad tokens take claims and options like sign()', async () => {
    const issuer = await createTestIssuer();
    const token = await issuer.tokens.expired({ scope: 'read:orders', sub: 'bob' });
    const { payload } = decode(token);
    expect(payload).toMatchObject({ scope: 'read:orders', sub: 'bob' });
    expect(payload.exp as number).toBeLessThan(Date.now() / 1000 - 300);
    expect(decode(await issuer.tokens.wrongAudience()).payload.aud).toBe(DEFAULTS.wrongAudience);
    expect(decode(await issuer.tokens.wrongIssuer()).payload.iss).toBe(DEFAULTS.wrongIssuer);
    expect(decode(await issuer.tokens.noExpiry()).payload).not.toHaveProperty('exp');
    expect(decode(await issuer.tokens.algNone({}, { header: { kid: undefined } })).header).toEqual({
      alg: 'none',
      typ: 'at+jwt',
    });
  });

  it('unknownKey with the active kid forges a signature instead (case 25)', async () => {
    const issuer = await createTestIssuer();
    const token = await issuer.tokens.unknownKey({}, { kid: issuer.kid });
    expect(decode(token).header.kid).toBe(issuer.kid);
    await expectRejected(verifierFor(issuer), token, 'signature');
    // The stranger key is never published, and is reused.
    const other = await issuer.tokens.unknownKey();
    expect(issuer.jwks().keys.map((k) => k.kid)).not.toContain(decode(other).header.kid);
    expect(decode(await issuer.tokens.unknownKey()).header.kid).toBe(decode(other).header.kid);
  });

  it('a token of one issuer is refused by a verifier of another (no shared keys or state)', async () => {
    const [a, b] = await Promise.all([createTestIssuer(), createTestIssuer()]);
    expect(a.kid).not.toBe(b.kid);
    await expectRejected(verifierFor(a), await b.sign(), 'key_not_found');
    await a.rotateKeys();
    expect(b.jwks().keys).toHaveLength(1);
  });
});
