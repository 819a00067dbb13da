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
    await expect(verifier.verify(token, { scopes: ['write:orders'] })).rejects.toBeInstanceOf(InsufficientScopeError);
    await expect(verifier.verify(token, { scopes: ['write:orders', 'read:orders'], scopeMode: 'any' })).resolves.toBeDefined();
    await expect(verifier.verify(token, { allowDelegation: false })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it('authenticate() extracts the bearer token and reports a missing one', async () => {
    const verifier = make();
    const token = signToken(keys[1]!);
    await expect(verifier.authenticate({ headers: { authorization: `bearer ${token}` } })).resolves.toMatchObject({
      subject: 'user-42',
    });
    await expect(verifier.authenticate({ headers: {} })).rejects.toBeInstanceOf(MissingTokenError);
    await expect(verifier.authenticate({ headers: {} }, { optional: true })).resolves.toBeUndefined();
    await expect(verifier.authenticate({ headers: { authorization: 'Bearer x.y.z' } }, { optional: true })).rejects.toBeInstanceOf(
      InvalidTokenError,
    );
  });
});
