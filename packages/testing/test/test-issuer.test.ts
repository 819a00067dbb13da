import { ForbiddenError, InsufficientScopeError } from '@gatehouse/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateTestCertificate } from '../src/certificates.js';
import { DEFAULTS, TEST_ALGORITHMS } from '../src/defaults.js';
import { generateDpopKey } from '../src/dpop.js';
import { createTestIssuer } from '../src/test-issuer.js';
import { decode, expectRejected, verifierFor } from './helpers/verify.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('createTestIssuer', () => {
  it('has the documented defaults', async () => {
    const issuer = await createTestIssuer();
    expect(issuer.issuer).toBe(DEFAULTS.issuer);
    expect(issuer.audience).toBe(DEFAULTS.audience);
    expect(issuer.jwksUri).toBe(`${DEFAULTS.issuer}/jwks`);
    expect(issuer.alg).toBe('ES256');
    expect(issuer.verifierOptions()).toEqual({
      issuer: DEFAULTS.issuer,
      audience: DEFAULTS.audience,
      jwksUri: issuer.jwksUri,
    });
    expect(issuer.jwks().keys).toEqual([
      expect.objectContaining({ kid: issuer.kid, alg: 'ES256', use: 'sig', kty: 'EC' }),
    ]);
    expect(Object.isFrozen(issuer)).toBe(true);
  });

  it('validates options when it runs (TypeError naming the option)', async () => {
    await expect(createTestIssuer({ alg: 'HS256' as never })).rejects.toThrow(/"alg" option/);
    await expect(createTestIssuer({ issuer: '/relative' })).rejects.toThrow(/"issuer" option/);
  });

  for (const alg of TEST_ALGORITHMS) {
    it(`sign() makes a ${alg} at+jwt that core verifies, even in strict mode`, async () => {
      const issuer = await createTestIssuer({ alg });
      const verifier = verifierFor(issuer, { strict: true });
      const token = await issuer.sign({ scope: 'read:orders write:orders' });
      const auth = await verifier.verify(token);
      expect(auth).toMatchObject({
        subject: 'user-1',
        clientId: 'test-client',
        issuer: DEFAULTS.issuer,
        audience: [DEFAULTS.audience],
        scopes: ['read:orders', 'write:orders'],
        delegated: false,
      });
      expect(decode(token).header).toEqual({ alg, kid: issuer.kid, typ: 'at+jwt' });
      expect(auth.claims.exp! - auth.claims.iat!).toBe(300);
      expect(auth.claims.jti).toEqual(expect.any(String));
    });
  }

  it('uses its own defaults for sub, client_id, scope, audience and lifetime', async () => {
    const issuer = await createTestIssuer({
      issuer: 'https://id.example.com',
      audience: ['https://orders.example.com', 'https://billing.example.com'],
      subject: 'alice',
      clientId: 'spa',
      scope: 'read:orders',
      expiresIn: 60,
      kid: 'key-1',
    });
    const auth = await verifierFor(issuer, { audience: 'https://billing.example.com' }).verify(
      await issuer.sign(),
    );
    expect(auth).toMatchObject({
      subject: 'alice',
      clientId: 'spa',
      issuer: 'https://id.example.com',
      scopes: ['read:orders'],
      audience: ['https://orders.example.com', 'https://billing.example.com'],
    });
    expect(auth.claims.exp! - auth.claims.iat!).toBe(60);
    expect(issuer.kid).toBe('key-1');
    expect(issuer.jwksUri).toBe('https://id.example.com/jwks');
  });

  it('sign() takes custom claims, removes claims set to undefined, and honours options', async () => {
    const issuer = await createTestIssuer();
    const token = await issuer.sign(
      { tenant: 'acme', sub: undefined, aud: ['https://x.test', DEFAULTS.audience] },
      { expiresIn: 42, notBefore: -10, typ: 'application/at+jwt', header: { cty: 'x' } },
    );
    const { header, payload } = decode(token);
    expect(header).toEqual({ alg: 'ES256', kid: issuer.kid, typ: 'application/at+jwt', cty: 'x' });
    expect(payload).not.toHaveProperty('sub');
    expect(payload).toMatchObject({
      tenant: 'acme',
      nbf: (payload.iat as number) - 10,
      exp: (payload.iat as number) + 42,
    });

    const auth = await verifierFor(issuer).verify(token);
    expect(auth.claims.tenant).toBe('acme');
    // Without sub the RFC 9068 profile fails.
    await expectRejected(verifierFor(issuer, { strict: true }), token, 'claim');
  });

  it('sign() binds tokens to a DPoP key or a client certificate (cnf), impersonation and bad tokens too', async () => {
    const issuer = await createTestIssuer();
    const [key, cert] = await Promise.all([generateDpopKey(), generateTestCertificate()]);
    const dpopBound = decode(await issuer.sign({ scope: 'read:orders' }, { dpop: key }));
    expect(dpopBound.payload).toMatchObject({ scope: 'read:orders', cnf: { jkt: key.thumbprint } });
    expect(dpopBound.header).toEqual({ alg: 'ES256', kid: issuer.kid, typ: 'at+jwt' });
    const certBound = decode(await issuer.sign({}, { certificate: cert })).payload;
    expect(certBound.cnf).toEqual({ 'x5t#S256': cert.thumbprint });
    const acting = decode(
      await issuer.impersonation('agent-7', { sub: 'customer-42' }, { dpop: key }),
    ).payload;
    expect(acting).toMatchObject({ act: { sub: 'agent-7' }, cnf: { jkt: key.thumbprint } });
    const expired = decode(await issuer.tokens.expired({}, { dpop: key })).payload;
    expect(expired.cnf).toEqual({ jkt: key.thumbprint });
    expect(decode(await issuer.tokens.unknownKey({}, { certificate: cert })).payload.cnf).toEqual({
      'x5t#S256': cert.thumbprint,
    });
    expect(decode(await issuer.sign()).payload).not.toHaveProperty('cnf');
    await expect(issuer.sign({}, { dpop: 'key' as never })).rejects.toThrow(/"dpop" option/);
  });

  it('sign() validates its arguments', async () => {
    const issuer = await createTestIssuer();
    await expect(issuer.sign([] as never)).rejects.toThrow(/"claims" option must be an object/);
    await expect(issuer.sign({}, { expiresIn: 'long' as never })).rejects.toThrow(/"expiresIn" option/);
    await expect(issuer.sign({}, { kid: 'nope' })).rejects.toThrow(/"kid" option must name a published key/);
    await expect(issuer.sign({}, { header: { alg: 'none' } })).rejects.toThrow(/"header.alg" option/);
  });

  it('signs a token without kid when asked, which core still matches against the JWKS (case 36)', async () => {
    const issuer = await createTestIssuer();
    const token = await issuer.sign({}, { header: { kid: undefined } });
    expect(decode(token).header).not.toHaveProperty('kid');
    await expect(verifierFor(issuer).verify(token)).resolves.toMatchObject({ subject: 'user-1' });
  });

  it('writes header fields a verifier must refuse verbatim (cases 16, 26, 27)', async () => {
    const issuer = await createTestIssuer();
    const requested: string[] = [];
    const verifier = verifierFor(issuer, {
      fetch: (input, init) => {
        requested.push(String(input));
        return issuer.fetch(input, init);
      },
    });
    const crit = await issuer.sign({}, { header: { crit: ['exp'] } });
    expect(decode(crit).header.crit).toEqual(['exp']);
    await expectRejected(verifier, crit, 'malformed');

    // An attacker's own key, announced in jwk and jku: never trusted, never fetched.
    const attacker = issuer.jwks().keys[0]!;
    const forged = await issuer.tokens.unknownKey(
      {},
      { header: { jwk: attacker, jku: 'https://evil.test/jwks' } },
    );
    expect(decode(forged).header).toMatchObject({ jku: 'https://evil.test/jwks', jwk: attacker });
    await expectRejected(verifier, forged, 'key_not_found');
    expect(requested.some((url) => url.includes('evil.test'))).toBe(false);
  });

  it('tokens follow a faked clock', async () => {
    const issuer = await createTestIssuer();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 3_600_000);
    const old = await issuer.sign();
    vi.useRealTimers();
    await expectRejected(verifierFor(issuer), old, 'expired');
  });
});

describe('impersonation', () => {
  it('puts the actor in act, which core exposes as AuthInfo.actor (delegated)', async () => {
    const issuer = await createTestIssuer();
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    const auth = await verifierFor(issuer).verify(token);
    expect(auth).toMatchObject({ subject: 'customer-42', delegated: true, actor: { sub: 'support-7' } });
    await expect(verifierFor(issuer).verify(token, { allowDelegation: false })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    await expect(verifierFor(issuer).verify(token, { scopes: 'write:orders' })).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
  });

  it('takes an actor object for chains and actor details', async () => {
    const issuer = await createTestIssuer();
    const token = await issuer.impersonation({
      sub: 'support-7',
      client_id: 'console',
      act: { sub: 'admin-1' },
    });
    const auth = await verifierFor(issuer).verify(token);
    expect(auth.actor).toEqual({ sub: 'support-7', client_id: 'console', act: { sub: 'admin-1' } });
  });

  it('refuses an actor without sub', async () => {
    const issuer = await createTestIssuer();
    await expect(issuer.impersonation('')).rejects.toThrow(TypeError);
    await expect(issuer.impersonation({ sub: 3 } as never)).rejects.toThrow(/"actor"/);
  });
});

describe('rotateKeys (catalogue case 33)', () => {
  it('a new key signs; core picks it up after its cooldown; the previous key keeps verifying', async () => {
    const issuer = await createTestIssuer();
    const verifier = verifierFor(issuer, { cache: false });
    const before = await issuer.sign();
    await verifier.verify(before);
    const oldKid = issuer.kid;

    await issuer.rotateKeys();
    expect(issuer.kid).not.toBe(oldKid);
    const after = await issuer.sign();
    expect(decode(after).header.kid).toBe(issuer.kid);
    await expect(verifier.verify(after)).resolves.toBeDefined();
    await expect(verifier.verify(before)).resolves.toBeDefined();
    expect(issuer.jwks().keys.map((k) => k.kid)).toEqual([issuer.kid, oldKid]);
    // The previous key can still sign on request (tokens minted just before a rotation).
    expect(decode(await issuer.sign({}, { kid: oldKid })).header.kid).toBe(oldKid);
  });

  it('with dropPrevious, tokens of the old key stop verifying once the verifier refreshes', async () => {
    const issuer = await createTestIssuer();
    const verifier = verifierFor(issuer, { cache: false, jwks: { cacheMaxAge: 0 } });
    const before = await issuer.sign();
    await verifier.verify(before);
    await issuer.rotateKeys({ dropPrevious: true });
    await expectRejected(verifier, before, 'key_not_found');
    await expect(verifier.verify(await issuer.sign())).resolves.toBeDefined();
  });

  it('can switch algorithm', async () => {
    const issuer = await createTestIssuer();
    await issuer.rotateKeys({ alg: 'EdDSA' });
    expect(issuer.alg).toBe('EdDSA');
    await expect(verifierFor(issuer).verify(await issuer.sign())).resolves.toBeDefined();
    await expectRejected(verifierFor(issuer), await issuer.tokens.unknownKey(), 'key_not_found');
  });
});
