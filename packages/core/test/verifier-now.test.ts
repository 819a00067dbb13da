/**
 * `verifier.authenticateNow()`: `authenticate()` without the promise when the answer is ready — the
 * same results and the same errors, thrown when known now and rejected when known later. On the
 * WebCrypto build (core-web project) a signature check is a promise, a cache hit is not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type RequestLike, type VerifierOptions } from '../src/index.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

let server: JwksServer;
const key = makeKey('ES256');
const onWeb = process.env.GATEHOUSE_PLATFORM === 'web';

beforeAll(async () => {
  server = await startJwksServer(jwksOf(key));
});
afterAll(() => server.close());

const make = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri, ...options });
const bearer = (token: string): RequestLike => ({ headers: { authorization: `Bearer ${token}` } });

describe('verifier.authenticateNow', () => {
  it('answers with a promise while the keys are fetched, then with the AuthInfo itself', async () => {
    const verifier = make();
    const token = signToken(key, claims());
    const first = verifier.authenticateNow(bearer(token));
    expect(first).toBeInstanceOf(Promise);
    expect((await first)?.subject).toBe('user-42');
    const cached = verifier.authenticateNow(bearer(token));
    expect(cached).not.toBeInstanceOf(Promise);
    expect(cached).toEqual(await verifier.authenticate(bearer(token)));
    // Another token under the cached keys: synchronous on node:crypto, a promise on WebCrypto.
    const other = verifier.authenticateNow(bearer(signToken(key, claims({ sub: 'user-7' }))));
    expect(other instanceof Promise).toBe(onWeb);
    expect((await other)?.subject).toBe('user-7');
  });

  it('throws what fails now, with the error authenticate() rejects with', async () => {
    const verifier = make();
    await verifier.warmUp();
    const expired = signToken(key, claims({ exp: 1 }));
    const cases: [RequestLike, string][] = [
      [{ headers: {} }, 'missing_token'],
      [{ headers: { authorization: 'Bearer a b' } }, 'bad_syntax'],
      [
        {
          headers: { authorization: 'Bearer x', 'x-a': '1' },
          rawHeaders: ['authorization', 'Bearer x', 'Authorization', 'Bearer y'],
        },
        'multiple_tokens',
      ],
    ];
    if (!onWeb) cases.push([bearer(expired), 'expired']);
    for (const [request, reason] of cases) {
      const rejected = await verifier.authenticate(request).catch((error: unknown) => error);
      expect(rejected).toMatchObject({ reason });
      expect(() => verifier.authenticateNow(request)).toThrow(rejected as Error);
    }
    if (onWeb)
      await expect(verifier.authenticateNow(bearer(expired))).rejects.toMatchObject({ reason: 'expired' });
  });

  it('A6, A4: checks the b64token syntax of any token not verified before, in the order of the checks', async () => {
    for (const cache of [{}, false] as const) {
      const verifier = make({ cache, tokenSources: { query: true } });
      await verifier.warmUp();
      const token = signToken(key, claims());
      await verifier.authenticate(bearer(token));
      const bad = `${token}\u0001`;
      const cases: [RequestLike, string][] = [
        [bearer(bad), 'bad_syntax'],
        [bearer(`${token.slice(0, -2)} x`), 'bad_syntax'],
        // A bad header credential beside another source: its syntax first, as without a cache.
        [{ ...bearer('a b'), query: { access_token: token } }, 'bad_syntax'],
        [{ ...bearer(token), query: { access_token: token } }, 'multiple_tokens'],
      ];
      for (const [request, reason] of cases) {
        expect(() => verifier.authenticateNow(request)).toThrow(expect.objectContaining({ reason }));
        await expect(verifier.authenticate(request)).rejects.toMatchObject({ reason, status: 400 });
      }
      // The token verified before still answers (from the cache when there is one, then at once).
      expect(await verifier.authenticate(bearer(token))).toMatchObject({ subject: 'user-42' });
      if (cache !== false) expect(verifier.authenticateNow(bearer(token))).not.toBeInstanceOf(Promise);
    }
  });

  it('lets an anonymous request through in optional mode', () => {
    expect(make().authenticateNow({ headers: {} }, { optional: true })).toBeUndefined();
  });

  it('takes a WHATWG Request too', async () => {
    const verifier = make();
    const token = signToken(key, claims());
    await verifier.authenticate(bearer(token));
    const request = new Request('https://api.test/orders', { headers: { authorization: `Bearer ${token}` } });
    const auth = verifier.authenticateNow(request);
    expect(auth).not.toBeInstanceOf(Promise);
    expect((auth as { subject: string }).subject).toBe('user-42');
  });
});
