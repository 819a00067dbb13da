import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createVerifier,
  ForbiddenError,
  InsufficientScopeError,
  InvalidTokenError,
  MissingTokenError,
  type VerifierOptions,
} from '../src/index.js';
import { AUDIENCE, claims, ISSUER, jwksOf, MAIN_ALGS, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

let server: JwksServer;
const keys = MAIN_ALGS.map((alg) => makeKey(alg));

beforeAll(async () => {
  server = await startJwksServer(jwksOf(...keys));
});
afterAll(() => server.close());

const make = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri, ...options });

describe('createVerifier().verify', () => {
  for (const key of keys) {
    it(`accepts a valid ${key.alg} token and exposes AuthInfo`, async () => {
      const verifier = make();
      const token = signToken(key, claims({ act: { sub: 'support-7' } }));
      const auth = await verifier.verify(token);
      expect(auth.subject).toBe('user-42');
      expect(auth.clientId).toBe('spa-1');
      expect(auth.issuer).toBe(ISSUER);
      expect(auth.audience).toEqual([AUDIENCE]);
      expect(auth.scopes).toEqual(['read:orders', 'write:orders']);
      expect(auth.actor).toEqual({ sub: 'support-7' });
      expect(auth.delegated).toBe(true);
      expect(auth.hasScope('read:orders')).toBe(true);
      expect(auth.hasScope('read:orders', 'admin')).toBe(false);
      expect(auth.hasAnyScope('admin', 'write:orders')).toBe(true);
      expect(auth.expiresAt.getTime()).toBe((auth.claims.exp as number) * 1000);
      expect(Object.isFrozen(auth)).toBe(true);
    });
  }

  it('reports the first failure in order: signature before audience and expiry', async () => {
    const verifier = make();
    const token = signToken(keys[0]!, claims({ aud: 'https://other', exp: 1 }));
    const tampered = `${token.slice(0, -4)}${token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(verifier.verify(tampered)).rejects.toMatchObject({ reason: 'signature', status: 401 });
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'audience' });
  });

  it('enforces per-call scopes in all/any mode and the delegation switch', async () => {
    const verifier = make();
    const token = signToken(keys[0]!, claims({ scope: 'read:orders', act: { sub: 'x' } }));
    await expect(verifier.verify(token, { scopes: ['write:orders'] })).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
    await expect(
      verifier.verify(token, { scopes: ['write:orders', 'read:orders'], scopeMode: 'any' }),
    ).resolves.toBeDefined();
    await expect(verifier.verify(token, { allowDelegation: false })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('authenticate() extracts the bearer token and reports a missing one', async () => {
    const verifier = make();
    const token = signToken(keys[1]!);
    await expect(
      verifier.authenticate({ headers: { authorization: `bearer ${token}` } }),
    ).resolves.toMatchObject({
      subject: 'user-42',
    });
    await expect(verifier.authenticate({ headers: {} })).rejects.toBeInstanceOf(MissingTokenError);
    await expect(verifier.authenticate({ headers: {} }, { optional: true })).resolves.toBeUndefined();
    await expect(
      verifier.authenticate({ headers: { authorization: 'Bearer x.y.z' } }, { optional: true }),
    ).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe('verification order and claim handling through the verifier', () => {
  // A41: `1e400` parses to Infinity; it must not pass as a NumericDate.
  it.each(MAIN_ALGS)('%s: exp of 1e400 is invalid_token', async (alg) => {
    const key = makeKey(alg);
    const body = JSON.stringify(claims()).replace(/"exp":\d+/, '"exp":1e400');
    const token = signToken(key, {}, { payloadText: body });
    await expect(make().verify(token)).rejects.toMatchObject({ reason: 'claim', claim: 'exp', status: 401 });
  });

  // A17: typ is checked after the signature, so a forged token still reports the signature.
  it('checks typ after the signature', async () => {
    const key = keys[0]!;
    const token = signToken(key, claims(), { header: { typ: 'dpop+jwt' } });
    await expect(make().verify(token)).rejects.toMatchObject({ reason: 'typ' });
    const forged = `${token.split('.').slice(0, 2).join('.')}.${signToken(keys[1]!).split('.')[2]}`;
    await expect(make().verify(forged)).rejects.toMatchObject({ reason: 'signature' });
    await expect(
      make({ strict: true }).verify(signToken(key, claims(), { header: { typ: 'JWT' } })),
    ).rejects.toMatchObject({
      reason: 'typ',
    });
    await expect(make().verify(signToken(key, claims(), { header: { typ: 'JWT' } }))).resolves.toBeDefined();
    await expect(
      make().verify(signToken(key, claims(), { header: { typ: undefined } })),
    ).resolves.toBeDefined();
  });

  // A43: strict profile through the verifier.
  it('strict mode requires jti', async () => {
    const token = signToken(keys[0]!, claims({ jti: undefined }));
    await expect(make({ strict: true }).verify(token)).rejects.toMatchObject({
      reason: 'claim',
      claim: 'jti',
    });
    await expect(make().verify(token)).resolves.toBeDefined();
  });

  // A48: delegated token on a route that refuses delegation.
  it('refuses delegated tokens with 403 where delegation is off, and accepts plain ones', async () => {
    const verifier = make();
    const delegated = signToken(keys[0]!, claims({ act: { sub: 'support-7' } }));
    const err = await verifier.verify(delegated, { allowDelegation: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect(err).toMatchObject({ status: 403, code: 'access_denied', reason: 'delegation_not_allowed' });
    await expect(verifier.verify(signToken(keys[0]!), { allowDelegation: false })).resolves.toBeDefined();
  });

  it('applies verifier-wide requiredScopes on every call, cached or not', async () => {
    const verifier = make({ requiredScopes: 'admin' });
    const token = signToken(keys[0]!);
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'insufficient_scope', status: 403 });
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'insufficient_scope' });
    const admin = signToken(keys[0]!, claims({ scope: 'admin' }));
    await expect(verifier.verify(admin)).resolves.toBeDefined();
  });

  it('serves repeated tokens from the result cache and still checks per-call scopes', async () => {
    const verifier = make();
    const token = signToken(keys[0]!, claims({ scope: 'read:orders' }));
    const first = await verifier.verify(token);
    const second = await verifier.verify(token);
    expect(second).toBe(first);
    await expect(verifier.verify(token, { scopes: 'write:orders' })).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
    const uncached = make({ cache: false });
    const a = await uncached.verify(token);
    expect(await uncached.verify(token)).not.toBe(a);
  });

  it('puts the required scope in the challenge', async () => {
    const err = await make()
      .verify(signToken(keys[0]!, claims({ scope: 'read:orders' })), { scopes: ['write:orders', 'admin'] })
      .catch((e: unknown) => e);
    expect((err as InsufficientScopeError).headers['www-authenticate']).toBe(
      'Bearer realm="api", error="insufficient_scope", error_description="The access token does not grant the required scope", scope="write:orders admin", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"',
    );
  });

  it('rejects non-string tokens as malformed', async () => {
    await expect(make().verify(42 as unknown as string)).rejects.toMatchObject({ reason: 'malformed' });
    await expect(make().verify('')).rejects.toMatchObject({ reason: 'malformed' });
  });
});

describe('result cache and key removal', () => {
  it('stops accepting a cached token once its key is removed and cacheMaxAge has passed', async () => {
    const { vi } = await import('vitest');
    const rsa = makeKey('RS256', 'rotating-out');
    const own = await startJwksServer(jwksOf(rsa));
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const t0 = Date.now();
      const verifier = createVerifier({
        issuer: ISSUER,
        audience: AUDIENCE,
        jwksUri: own.jwksUri,
        jwks: { cacheMaxAge: 500, cooldown: 0 },
      });
      await verifier.warmUp();
      const token = signToken(rsa, claims({ exp: Math.floor(t0 / 1000) + 3600 }));
      vi.setSystemTime(t0 + 499);
      await expect(verifier.verify(token)).resolves.toBeDefined();
      own.setKeys({ keys: [makeKey('ES256', 'replacement').jwk] });
      vi.setSystemTime(t0 + 699);
      await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'key_not_found' });
    } finally {
      vi.useRealTimers();
      await own.close();
    }
  });
});

describe('authenticate() with the result cache', () => {
  it('accepts a cached token without re-scanning it, and still refuses bad credentials', async () => {
    const verifier = make();
    const token = signToken(keys[0]!);
    const headers = { authorization: `Bearer ${token}` };
    const first = await verifier.authenticate({ headers });
    await expect(verifier.authenticate({ headers })).resolves.toBe(first);
    await expect(
      verifier.authenticate({ headers: { authorization: `Bearer ${token} x` } }),
    ).rejects.toMatchObject({
      status: 400,
      reason: 'bad_syntax',
    });
    await expect(verifier.authenticate({ headers, query: { access_token: token } })).rejects.toMatchObject({
      status: 400,
      reason: 'multiple_tokens',
    });
  });
});

describe('exact time checks', () => {
  it('E11: a token issued in the future is refused whenever iat is checked, for every algorithm', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const key of keys) {
      const future = signToken(key, claims({ iat: now + 60 }));
      for (const checked of [make({ maxTokenAge: 600 }), make({ strict: true })]) {
        const error = await checked.verify(future).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidTokenError);
        expect(error).toMatchObject({ status: 401, reason: 'not_yet_valid', claim: 'iat' });
        expect((error as InvalidTokenError).headers['www-authenticate']).not.toMatch(/[\\\r\n]|iat/);
      }
      // Not checked otherwise, and within the tolerance accepted.
      await expect(make().verify(future)).resolves.toBeDefined();
      await expect(
        make({ maxTokenAge: 600 }).verify(signToken(key, claims({ iat: now + 4 }))),
      ).resolves.toBeDefined();
    }
  });

  it('E12: a non-numeric nbf or auth_time is refused after the signature', async () => {
    const verifier = make();
    for (const patch of [{ nbf: 'soon' }, { auth_time: '1700000000' }, { auth_time: null }]) {
      const error = await verifier.verify(signToken(keys[0]!, claims(patch))).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error).toMatchObject({ reason: 'claim', claim: Object.keys(patch)[0] });
    }
  });
});
