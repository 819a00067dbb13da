import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { discoverJwksUri } from '../src/discovery.js';
import {
  createVerifier,
  InvalidTokenError,
  type JwksOptions,
  KeysUnavailableError,
  resolveOptions,
  type Verifier,
  type VerifierOptions,
} from '../src/index.js';
import { RemoteKeySet } from '../src/jwks.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken, type TestKey } from './helpers/fixtures.js';
import { refusedOrigin, startServer, status } from './helpers/http-server.js';
import { type JwksMode, type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const K1 = makeKey('ES256', 'k1');
const K2 = makeKey('ES256', 'k2');
const RSA = makeKey('RS256', 'rsa-1');
/** Holds a private key the JWKS never publishes. */
const ATTACKER = makeKey('ES256', 'attacker');

/**
 * Small durations (ms) so real waits stay short; tests that need longer spans fake `Date`. The fetch
 * timeout is not small: a loopback fetch can take longer than 300 ms on a loaded machine (a 503 instead
 * of the row's answer, seen in .ci/run); the tests of a hanging endpoint set their own.
 */
const FAST: JwksOptions = {
  cooldown: 200,
  cacheMaxAge: 500,
  backoffInitial: 50,
  backoffMax: 400,
  staleIfError: 1_000,
  timeout: 5_000,
};

afterEach(() => {
  vi.useRealTimers();
});

async function serve(...keys: TestKey[]): Promise<JwksServer> {
  const server = await startJwksServer(jwksOf(...keys));
  onTestFinished(() => server.close());
  return server;
}

function make(server: { jwksUri: string }, options: Partial<VerifierOptions> = {}): Verifier {
  return createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: server.jwksUri,
    ...options,
    jwks: { ...FAST, ...options.jwks },
  });
}

/** Freeze `Date` (timers stay real, so sockets and fetch timeouts behave normally); returns a clock mover. */
function freezeDate(): { now: () => number; advance: (ms: number) => void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  let now = Date.now();
  vi.setSystemTime(now);
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
      vi.setSystemTime(now);
    },
  };
}

/** What `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

async function expectUnavailable(promise: Promise<unknown>): Promise<KeysUnavailableError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(KeysUnavailableError);
  expect(error).not.toBeInstanceOf(InvalidTokenError);
  const e = error as KeysUnavailableError;
  expect(e.status).toBe(503);
  expect(e.code).toBeUndefined();
  expect(e.reason).toBe('jwks_unavailable');
  expect(e.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  expect(e.headers['www-authenticate']).toBeUndefined();
  expect(e.toJSON().error).toBe('temporarily_unavailable');
  return e;
}

async function expectInvalid(promise: Promise<unknown>, reason: string): Promise<void> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(InvalidTokenError);
  expect(error).toMatchObject({ status: 401, code: 'invalid_token', reason });
}

const tokenWithKid = (key: TestKey, kid: string | undefined) => signToken(key, claims(), { header: { kid } });

describe('unknown kid flood (A32)', () => {
  it('answers 10,000 random kids with key_not_found, one shared fetch per cooldown, while a cached kid keeps verifying', async () => {
    const clock = freezeDate();
    const server = await serve(K1);
    // A generous timeout: 10,000 verifications keep the event loop busy while the refetch is in flight.
    const verifier = make(server, { cache: false, jwks: { cacheMaxAge: 600_000, timeout: 5_000 } });
    await verifier.warmUp();
    expect(server.jwksHits()).toBe(1);

    const flood = Array.from({ length: 10_000 }, () => tokenWithKid(ATTACKER, randomUUID()));
    server.setLatency(150);
    clock.advance(201); // past the cooldown: the first miss may refetch once

    const outcomes: PromiseSettledResult<unknown>[] = [];
    for (let i = 0; i < flood.length; i += 1_000) {
      const batch = Promise.allSettled(flood.slice(i, i + 1_000).map((t) => verifier.verify(t)));
      if (i === 0) {
        // The first batch shares one refetch that takes 150 ms; a token with a cached kid does not wait on it.
        let settled = false;
        void batch.then(() => {
          settled = true;
        });
        const good = await verifier.verify(signToken(K1));
        expect(good.subject).toBe('user-42');
        expect(settled).toBe(false);
      }
      outcomes.push(...(await batch));
    }

    expect(outcomes).toHaveLength(10_000);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(InvalidTokenError);
      expect(reason.reason).toBe('key_not_found');
    }
    expect(server.jwksHits()).toBe(2);
    expect(verifier.keyStats.fetches).toBe(2);
    await expect(verifier.verify(signToken(K1))).resolves.toMatchObject({ subject: 'user-42' });

    // One cooldown later, the next burst of unknown kids may refetch exactly once more.
    clock.advance(200);
    const burst = await Promise.allSettled(flood.slice(0, 500).map((t) => verifier.verify(t)));
    expect(burst.every((o) => o.status === 'rejected' && o.reason.reason === 'key_not_found')).toBe(true);
    expect(server.jwksHits()).toBe(3);
  });

  it('makes no fetch at all for unknown kids within the cooldown of the last fetch', async () => {
    const server = await serve(K1);
    const verifier = make(server, { jwks: { cooldown: 60_000 } });
    await verifier.warmUp();
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, () => verifier.verify(tokenWithKid(ATTACKER, randomUUID()))),
    );
    expect(results.every((r) => r.status === 'rejected' && r.reason.reason === 'key_not_found')).toBe(true);
    expect(server.jwksHits()).toBe(1);
  });
});

describe('cold start', () => {
  it('serves 100 concurrent first requests from exactly one JWKS fetch', async () => {
    const server = await serve(K1, RSA);
    server.setLatency(50);
    const verifier = make(server, { cache: false });
    const tokens = Array.from({ length: 100 }, (_, i) => signToken(i % 2 === 0 ? K1 : RSA));
    const results = await Promise.all(tokens.map((t) => verifier.verify(t)));
    expect(results.map((r) => r.subject)).toEqual(Array(100).fill('user-42'));
    expect(server.jwksHits()).toBe(1);
    expect(verifier.keyStats).toMatchObject({ fetches: 1, failures: 0, keys: 2 });
    expect(verifier.keyStats.loadedAt).toBeTypeOf('number');
  });
});

describe('key rotation (A33)', () => {
  it('refetches exactly once for a new kid after the cooldown, then verifies it', async () => {
    const clock = freezeDate();
    const server = await serve(K1);
    const verifier = make(server);
    await verifier.warmUp();
    server.setKeys(jwksOf(K1, K2));

    // Within the cooldown of the last fetch, the new kid is not looked up yet.
    await expectInvalid(verifier.verify(signToken(K2)), 'key_not_found');
    expect(server.jwksHits()).toBe(1);

    clock.advance(201);
    const [a, b] = await Promise.all([verifier.verify(signToken(K2)), verifier.verify(signToken(K2))]);
    expect(a.subject).toBe('user-42');
    expect(b.subject).toBe('user-42');
    expect(server.jwksHits()).toBe(2);
    await expect(verifier.verify(signToken(K2))).resolves.toBeDefined();
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined();
    expect(server.jwksHits()).toBe(2);
    expect(verifier.keyStats.keys).toBe(2);
  });

  it('stops verifying a removed key once cacheMaxAge has passed', async () => {
    const clock = freezeDate();
    const server = await serve(K1, K2);
    const verifier = make(server);
    await verifier.warmUp();
    const token = signToken(K1);
    const first = await verifier.verify(token);
    expect(await verifier.verify(token)).toBe(first); // served from the result cache

    server.setKeys(jwksOf(K2));
    clock.advance(499);
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined(); // keys still fresh
    expect(server.jwksHits()).toBe(1);

    clock.advance(2); // 501 ms: past cacheMaxAge
    await expectInvalid(verifier.verify(token), 'key_not_found');
    await expectInvalid(verifier.verify(signToken(K1)), 'key_not_found');
    await expect(verifier.verify(signToken(K2))).resolves.toBeDefined();
    expect(server.jwksHits()).toBe(2);
    expect(verifier.keyStats.keys).toBe(1);
  });

  it('drops cached results when a refresh changes the key set, and keeps them when it does not', async () => {
    const clock = freezeDate();
    const server = await serve(K1);
    const verifier = make(server);
    await verifier.warmUp();
    const token = signToken(K1);
    const first = await verifier.verify(token);

    // An unknown kid after the cooldown refetches an unchanged set: the cached result stays.
    clock.advance(201);
    await expectInvalid(verifier.verify(tokenWithKid(ATTACKER, 'nope')), 'key_not_found');
    expect(server.jwksHits()).toBe(2);
    expect(await verifier.verify(token)).toBe(first);

    // K1 is withdrawn and K2 published; a K2 token after the cooldown refetches, well before cacheMaxAge.
    server.setKeys(jwksOf(K2));
    clock.advance(201);
    await expect(verifier.verify(signToken(K2))).resolves.toBeDefined();
    expect(server.jwksHits()).toBe(3);
    // Without the cache being cleared, this token would still be answered from it.
    await expectInvalid(verifier.verify(token), 'key_not_found');
  });
});

describe('JWKS outage (A34)', () => {
  it('fails closed with 503 and Retry-After when the JWKS answers 500 and no key is cached', async () => {
    const server = await serve(K1);
    server.setMode('500');
    const verifier = make(server);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => verifier.verify(signToken(K1))),
    );
    for (const r of results) {
      expect(r.status).toBe('rejected');
      await expectUnavailable(Promise.reject((r as PromiseRejectedResult).reason));
    }
    expect(server.jwksHits()).toBe(1);
    expect(verifier.keyStats).toMatchObject({ fetches: 1, failures: 1, keys: 0, loadedAt: undefined });
  });

  it('fails closed with 503 when the JWKS hangs past the timeout', async () => {
    const server = await serve(K1);
    server.setMode('hang');
    const verifier = make(server, { jwks: { timeout: 150 } });
    const started = performance.now();
    await expectUnavailable(verifier.verify(signToken(K1)));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1_500);
  });

  it('fails closed with 503 when the connection is refused', async () => {
    const verifier = make({ jwksUri: `${await refusedOrigin()}/jwks` });
    await expectUnavailable(verifier.verify(signToken(K1)));
    expect(verifier.keyStats.failures).toBe(1);
  });

  it('backs off between retries: a burst during the backoff makes no request', async () => {
    const clock = freezeDate();
    const server = await serve(K1);
    server.setMode('500');
    const verifier = make(server, { jwks: { backoffInitial: 50, backoffMax: 200 } });

    await expectUnavailable(verifier.verify(signToken(K1)));
    expect(server.jwksHits()).toBe(1);
    await Promise.allSettled(Array.from({ length: 50 }, () => verifier.verify(signToken(K1))));
    expect(server.jwksHits()).toBe(1);

    // Waits double from 50 ms and stop growing at backoffMax (200 ms).
    let hits = 1;
    for (const wait of [50, 100, 200, 200, 200]) {
      clock.advance(wait - 1);
      await expectUnavailable(verifier.verify(signToken(K1)));
      expect(server.jwksHits()).toBe(hits);
      clock.advance(1);
      await expectUnavailable(verifier.verify(signToken(K1)));
      expect(server.jwksHits()).toBe(++hits);
    }
    expect(verifier.keyStats.failures).toBe(6);

    // Recovery: the next attempt after the backoff loads the keys.
    server.setMode('ok');
    clock.advance(200);
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined();
    expect(server.jwksHits()).toBe(hits + 1);
  });

  it('keeps known keys working through an outage up to cacheMaxAge + staleIfError, then answers 503', async () => {
    const clock = freezeDate();
    const server = await serve(K1);
    const verifier = make(server, { cache: false });
    await verifier.warmUp();
    server.setMode('500');

    clock.advance(501); // stale: the refresh fails, the kept key still verifies
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined();
    expect(server.jwksHits()).toBe(2);
    expect(verifier.keyStats.failures).toBe(1);
    // An unknown kid cannot be checked while the endpoint fails: 503, not invalid_token.
    await expectUnavailable(verifier.verify(tokenWithKid(ATTACKER, 'rotated?')));

    clock.advance(998); // 1,499 ms after loading: still inside cacheMaxAge + staleIfError
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined();

    clock.advance(2); // 1,501 ms
    await expectUnavailable(verifier.verify(signToken(K1)));

    // Once the endpoint recovers, the next attempt after the backoff restores service.
    server.setMode('ok');
    clock.advance(400);
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined();
    expect(verifier.keyStats.loadedAt).toBe(clock.now());
  });

  it('answers from the kept keys without waiting on an endpoint known to hang', async () => {
    const clock = freezeDate();
    const server = await serve(K1);
    const verifier = make(server, { cache: false, jwks: { timeout: 300 } });
    await verifier.warmUp();
    server.setMode('hang');
    clock.advance(501);

    // The first refresh after cacheMaxAge is awaited (a removed key must stop verifying), and times out.
    let started = performance.now();
    await expect(verifier.verify(signToken(K1))).resolves.toBeDefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
    expect(server.jwksHits()).toBe(2);

    // Now the endpoint is known to fail: after the backoff, a retry runs in the background only.
    clock.advance(51);
    started = performance.now();
    const results = await Promise.all(Array.from({ length: 50 }, () => verifier.verify(signToken(K1))));
    expect(results).toHaveLength(50);
    expect(performance.now() - started).toBeLessThan(200);
    await vi.waitFor(() => expect(server.jwksHits()).toBe(3), { timeout: 1_000, interval: 10 });
    await vi.waitFor(() => expect(verifier.keyStats.failures).toBe(2), { timeout: 2_000, interval: 20 });
    expect(server.jwksHits()).toBe(3);
  });
});

describe('unusable JWKS responses (A35)', () => {
  const modes: JwksMode[] = ['huge', 'not-json', 'no-keys-array', 'redirect', 'empty'];

  for (const mode of modes) {
    it(`rejects a "${mode}" response: 503 on a cold cache, previous keys kept on a warm one`, async () => {
      const server = await serve(K1);
      server.setMode(mode);
      await expectUnavailable(make(server).verify(signToken(K1)));

      const clock = freezeDate();
      server.setMode('ok');
      const verifier = make(server, { cache: false });
      await verifier.warmUp();
      server.setMode(mode);
      clock.advance(501);
      const before = server.jwksHits();
      await expect(verifier.verify(signToken(K1))).resolves.toMatchObject({ subject: 'user-42' });
      expect(server.jwksHits()).toBe(before + 1);
      expect(verifier.keyStats).toMatchObject({ failures: 1, keys: 1 });
    });
  }

  it('does not follow a JWKS redirect to another loopback host', async () => {
    const other = await serve(ATTACKER);
    const redirecting = await startServer({ '/jwks': status(302, { location: other.jwksUri }) });
    onTestFinished(() => redirecting.close());
    const verifier = make({ jwksUri: `${redirecting.origin}/jwks` });
    await expectUnavailable(verifier.verify(signToken(ATTACKER)));
    expect(redirecting.hits.get('/jwks')).toBe(1);
    expect(other.hits.size).toBe(0);
  });

  it('refuses a JWKS URL over http: to a non-loopback host at construction', () => {
    expect(() =>
      createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: 'http://jwks.example.com/keys' }),
    ).toThrow(/"jwksUri" option must use https:/);
  });
});

describe('key selection (A36)', () => {
  it('tries every compatible key when the token has no kid', async () => {
    const server = await serve(K1, RSA, K2);
    const verifier = make(server, { cache: false });
    await expect(verifier.verify(tokenWithKid(K1, undefined))).resolves.toBeDefined();
    await expect(verifier.verify(tokenWithKid(K2, undefined))).resolves.toBeDefined();
    await expect(verifier.verify(tokenWithKid(RSA, undefined))).resolves.toBeDefined();
    await expectInvalid(verifier.verify(tokenWithKid(ATTACKER, undefined)), 'signature');
    expect(server.jwksHits()).toBe(1);
  });

  it('tries every key sharing a duplicate kid', async () => {
    const a = makeKey('ES256', 'dup-a');
    const b = makeKey('ES256', 'dup-b');
    const server = await startJwksServer({
      keys: [
        { ...a.jwk, kid: 'dup' },
        { ...b.jwk, kid: 'dup' },
      ],
    });
    onTestFinished(() => server.close());
    const verifier = make(server, { cache: false });
    await expect(verifier.verify(tokenWithKid(a, 'dup'))).resolves.toBeDefined();
    await expect(verifier.verify(tokenWithKid(b, 'dup'))).resolves.toBeDefined();
    await expectInvalid(verifier.verify(tokenWithKid(ATTACKER, 'dup')), 'signature');
    expect(verifier.keyStats.keys).toBe(2);
  });
});

describe('keys never come from the token (A37)', () => {
  it('fetches nothing from the host a token names in iss, jku or x5u', async () => {
    const server = await serve(K1);
    const evil = await serve(ATTACKER);
    const token = signToken(ATTACKER, claims({ iss: evil.issuer }), {
      header: { jku: evil.jwksUri, x5u: `${evil.origin}/cert.pem` },
    });
    await expectInvalid(make(server).verify(token), 'key_not_found');
    // The same with a verifier that discovers its keys from its own issuer.
    await expectInvalid(
      make(server, { issuer: server.issuer, jwksUri: undefined }).verify(token),
      'key_not_found',
    );
    expect(evil.hits.size).toBe(0);
    expect(server.hits.get('/jwks')).toBe(2);
  });
});

describe('RemoteKeySet', () => {
  it('counts discovery requests made through the limits it hands to the URI function', async () => {
    const server = await serve(K1);
    const resolved = resolveOptions({ issuer: server.issuer, audience: AUDIENCE, jwks: FAST });
    const keys = new RemoteKeySet({
      uri: (limits) => discoverJwksUri(server.issuer, limits),
      jwks: resolved.jwks,
      fetch: resolved.fetch,
      allowInsecureHttp: false,
      context: {},
      issuer: server.issuer,
      warningInterval: 300_000,
    });
    expect(keys.freshUntil).toBe(Number.NEGATIVE_INFINITY);
    await keys.refresh();
    expect(keys.stats).toMatchObject({ fetches: 2, failures: 0, keys: 1 });
    expect(keys.freshUntil).toBe(keys.stats.loadedAt! + 500);
    expect(keys.select('k1', 'ES256')).toHaveLength(1);
    expect(keys.select('k1', 'RS256')).toBeUndefined();
  });

  it('calls onChange only when a refresh changes the keys', async () => {
    const server = await serve(K1);
    let changes = 0;
    const resolved = resolveOptions({ issuer: ISSUER, audience: AUDIENCE, jwks: FAST });
    const keys = new RemoteKeySet({
      uri: new URL(server.jwksUri),
      jwks: resolved.jwks,
      fetch: resolved.fetch,
      allowInsecureHttp: false,
      context: {},
      issuer: ISSUER,
      warningInterval: 300_000,
      onChange: () => changes++,
    });
    await keys.refresh();
    await keys.refresh();
    expect(changes).toBe(1);
    server.setKeys(jwksOf(K1, K2));
    await keys.refresh();
    expect(changes).toBe(2);
    server.setMode('empty');
    await expect(keys.refresh()).rejects.toBeInstanceOf(KeysUnavailableError);
    expect(changes).toBe(2);
    expect(keys.stats.keys).toBe(2);
  });
});
