import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ResultCache } from '../src/cache.js';
import {
  type AuthInfo,
  createVerifier,
  ForbiddenError,
  InsufficientScopeError,
  InvalidTokenError,
  KeysUnavailableError,
  type VerifierOptions,
} from '../src/index.js';
import { freezeDate } from './helpers/clock.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const KEY = makeKey('ES256', 'cache-1');
const RSA = makeKey('RS256', 'cache-rsa');
let server: JwksServer;

beforeAll(async () => {
  server = await startJwksServer(jwksOf(KEY, RSA));
});
afterAll(() => server.close());
afterEach(() => {
  vi.useRealTimers();
  server.setMode('ok');
});

const make = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: server.jwksUri,
    ...options,
    jwks: { cooldown: 200, cacheMaxAge: 3_600_000, backoffInitial: 50, ...options.jwks },
  });

const info = (subject: string) => ({ subject }) as unknown as AuthInfo;

describe('ResultCache', () => {
  it('returns an entry until its validUntil (seconds), then drops it', () => {
    const cache = new ResultCache(10, 600_000);
    const a = info('a');
    cache.set('t', a, 1_010, 1_000);
    expect(cache.get('t', 1_000)).toBe(a);
    expect(cache.get('t', 1_009.999)).toBe(a);
    expect(cache.get('t', 1_010)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('bounds every entry by the key cache max age', () => {
    const cache = new ResultCache(10, 2_000);
    cache.set('t', info('a'), 10_000, 1_000);
    expect(cache.get('t', 1_001.999)).toBeDefined();
    expect(cache.get('t', 1_002)).toBeUndefined();
  });

  it('does not store an entry that is already invalid, nor any with a zero max age', () => {
    const cache = new ResultCache(10, 600_000);
    cache.set('t', info('a'), 1_000, 1_000);
    expect(cache.size).toBe(0);
    const off = new ResultCache(10, 0);
    off.set('t', info('a'), 2_000, 1_000);
    expect(off.size).toBe(0);
  });

  it('A54: finds an entry by the token tail but answers only for the very same token', () => {
    const cache = new ResultCache(10, 600_000);
    const tail = 'x'.repeat(12);
    const [first, second] = [`header.payload-1.${tail}`, `header.payload-2.${tail}`];
    const a = info('a');
    cache.set(first, a, 2_000, 1_000);
    expect(cache.get(first, 1_000)).toBe(a);
    // Same last 12 characters, another token: never the first one's result.
    expect(cache.get(second, 1_000)).toBeUndefined();
    // A copy of the first token (another string, same text) hits.
    expect(cache.get([...first].join(''), 1_000)).toBe(a);
    // The second token, once verified, takes the place; the first is then verified again.
    const b = info('b');
    cache.set(second, b, 2_000, 1_000);
    expect(cache.get(second, 1_000)).toBe(b);
    expect(cache.get(first, 1_000)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('evicts the least recently used entry beyond max, and clears', () => {
    const cache = new ResultCache(2, 600_000);
    cache.set('a', info('a'), 2_000, 1_000);
    cache.set('b', info('b'), 2_000, 1_000);
    expect(cache.get('a', 1_000)).toBeDefined(); // a is now the most recent
    cache.set('c', info('c'), 2_000, 1_000);
    expect(cache.size).toBe(2);
    expect(cache.get('b', 1_000)).toBeUndefined();
    expect(cache.get('a', 1_000)).toBeDefined();
    expect(cache.get('c', 1_000)).toBeDefined();
    cache.clear();
    expect(cache.size).toBe(0);
  });
});

describe('result cache in the verifier (A50)', () => {
  it('answers a repeated token from the cache, and re-verifies with cache: false or after clearCache()', async () => {
    const token = signToken(KEY);
    const cached = make();
    const first = await cached.verify(token);
    expect(await cached.verify(token)).toBe(first);
    cached.clearCache();
    const again = await cached.verify(token);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);

    const uncached = make({ cache: false });
    const a = await uncached.verify(token);
    const b = await uncached.verify(token);
    expect(b).not.toBe(a);
    expect(b.subject).toBe('user-42');
  });

  it('is per verifier: a token cached by one verifier fails under another audience, issuer or algorithm list', async () => {
    const token = signToken(KEY);
    const orders = make();
    await orders.verify(token);
    await orders.verify(token);

    const billing = make({ audience: 'https://api.test/billing' });
    await expect(billing.verify(token)).rejects.toMatchObject({ reason: 'audience', code: 'invalid_token' });
    const otherIssuer = make({ issuer: 'https://issuer.test/other' });
    await expect(otherIssuer.verify(token)).rejects.toMatchObject({ reason: 'issuer' });
    const rsaOnly = make({ algorithms: ['RS256'] });
    await expect(rsaOnly.verify(token)).rejects.toMatchObject({ reason: 'algorithm' });
    // And the first verifier's cache is not poisoned by those failures.
    await expect(orders.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
  });

  it('still applies per-call and per-verifier requirements on a cache hit', async () => {
    const token = signToken(KEY, claims({ scope: 'read:orders', act: { sub: 'support-7' } }));
    const verifier = make();
    await verifier.verify(token);
    await expect(verifier.verify(token, { scopes: 'write:orders' })).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
    await expect(verifier.verify(token, { allowDelegation: false })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(verifier.verify(token, { scopes: 'read:orders' })).resolves.toBeDefined();

    const strictScopes = make({ requiredScopes: 'admin' });
    await expect(strictScopes.verify(token)).rejects.toBeInstanceOf(InsufficientScopeError);
    await expect(strictScopes.verify(token)).rejects.toBeInstanceOf(InsufficientScopeError);
  });

  it('never serves a result past exp (plus the clock tolerance)', async () => {
    const advance = freezeDate();
    const now = Date.now() / 1000;
    const token = signToken(KEY, claims({ iat: now, exp: now + 10 }));
    const verifier = make({ clockTolerance: 5 });
    const first = await verifier.verify(token);

    advance(14.999);
    expect(await verifier.verify(token)).toBe(first);
    advance(0.001); // exp + tolerance
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'expired' });
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it('never serves a result past iat + maxTokenAge (plus the clock tolerance)', async () => {
    const advance = freezeDate();
    const now = Date.now() / 1000;
    const token = signToken(KEY, claims({ iat: now, exp: now + 3_600 }));
    const verifier = make({ clockTolerance: 0, maxTokenAge: 30 });
    const first = await verifier.verify(token);
    advance(29.999);
    expect(await verifier.verify(token)).toBe(first);
    advance(0.002);
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'too_old' });
  });

  it('never serves a result past the key cache max age', async () => {
    const advance = freezeDate();
    const verifier = make({ jwks: { cacheMaxAge: 60_000 } });
    const token = signToken(KEY);
    const first = await verifier.verify(token);
    const hits = server.jwksHits();
    advance(59.999);
    expect(await verifier.verify(token)).toBe(first);
    advance(0.001);
    const again = await verifier.verify(token);
    expect(again).not.toBe(first);
    expect(server.jwksHits()).toBe(hits + 1); // re-verified against refreshed keys
  });

  it('never caches a failure: a 503 during an outage is retried once keys are back', async () => {
    const token = signToken(KEY);
    const verifier = make();
    server.setMode('500');
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(KeysUnavailableError);
    server.setMode('ok');
    await new Promise((resolve) => setTimeout(resolve, 60)); // past backoffInitial (50 ms)
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
  });
});
