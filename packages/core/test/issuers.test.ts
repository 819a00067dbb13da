/**
 * Many issuers (issuers.ts): a list of issuers, each with its own key set found by its own discovery,
 * per-issuer overrides, and an `issuer` function for tenants, against real loopback issuers (discovery
 * and JWKS over HTTP). Catalogue section E: E1–E4, E15.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createVerifier,
  errorResponse,
  InvalidTokenError,
  IssuerUnavailableError,
  type KeySetError,
  KeysUnavailableError,
  UnavailableError,
  type VerifierOptions,
} from '../src/index.js';
import { expectAuthError, invalidToken } from './helpers/assertions.js';
import { AUDIENCE, b64url, claims, jwksOf, makeKey, signToken, type TestKey } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

/** `key` published under another `kid`: two issuers whose keys share a `kid`. */
const rekeyed = (key: TestKey, kid: string): TestKey => ({ ...key, kid, jwk: { ...key.jwk, kid } });

const keyA = rekeyed(makeKey('ES256', 'issuer-a'), 'shared');
const keyB = rekeyed(makeKey('ES256', 'issuer-b'), 'shared');
const keyB2 = makeKey('EdDSA', 'issuer-b-ed');
const keyC = makeKey('RS256', 'issuer-c');

let a: JwksServer;
let b: JwksServer;
let c: JwksServer;

beforeAll(async () => {
  [a, b, c] = await Promise.all([
    startJwksServer(jwksOf(keyA)),
    startJwksServer(jwksOf(keyB, keyB2)),
    startJwksServer(jwksOf(keyC)),
  ]);
});
afterAll(() => Promise.all([a.close(), b.close(), c.close()]));

const discoveries = (server: JwksServer) => server.hits.get('/oidc/.well-known/openid-configuration') ?? 0;
/** Requests each server has answered so far. */
const requests = () => [a, b, c].map((s) => [...s.hits.values()].reduce((sum, n) => sum + n, 0));

const tokenOf = (key: TestKey, server: JwksServer, patch: Record<string, unknown> = {}) =>
  signToken(key, claims({ iss: server.issuer, ...patch }));

/** A well-formed token naming `iss`, with a signature nobody checks (the issuer fails first). */
const unsigned = (iss: unknown) =>
  `${b64url(JSON.stringify({ alg: 'ES256', kid: 'shared', typ: 'at+jwt' }))}.${b64url(JSON.stringify(claims({ iss })))}.${b64url('x'.repeat(64))}`;

const make = (options: Partial<VerifierOptions>) =>
  createVerifier({ issuer: [a.issuer, b.issuer], audience: AUDIENCE, onWarning: false, ...options });

describe('a list of issuers', () => {
  it("E1: discovers each issuer separately; an issuer's keys verify only tokens naming it", async () => {
    const before = [discoveries(a), a.jwksHits(), discoveries(b), b.jwksHits()];
    const verifier = make({});
    await expect(verifier.verify(tokenOf(keyA, a))).resolves.toMatchObject({ issuer: a.issuer });
    await expect(verifier.verify(tokenOf(keyB, b))).resolves.toMatchObject({ issuer: b.issuer });
    expect([discoveries(a), a.jwksHits(), discoveries(b), b.jwksHits()]).toEqual(before.map((n) => n + 1));
    expect(verifier.keyStats).toMatchObject({ keySets: 2, keys: 3, fetches: 4 });
    expect(verifier.issuerState(a.issuer)?.metadata).toMatchObject({ jwks_uri: a.jwksUri });

    // Same kid at both issuers: a token naming A signed with B's key is checked with A's key only.
    await expectAuthError(verifier.verify(tokenOf(keyB, a)), invalidToken('signature'));
    await expectAuthError(verifier.verify(tokenOf(keyA, b)), invalidToken('signature'));
    // B's EdDSA key is not A's: unknown there (A's JWKS is refetched at most once per cooldown).
    await expectAuthError(verifier.verify(tokenOf(keyB2, a)), invalidToken('key_not_found'));
    await expect(verifier.verify(tokenOf(keyB2, b))).resolves.toMatchObject({ issuer: b.issuer });
  });

  it('E1: per-issuer audience, algorithms and jwksUri override the top-level ones', async () => {
    const discoveredBefore = discoveries(c);
    const verifier = createVerifier({
      issuer: [
        a.issuer,
        { issuer: b.issuer, audience: 'https://api.test/b-only', algorithms: ['EdDSA'] },
        { issuer: 'https://tenant-c.test/', jwksUri: c.jwksUri },
      ],
      audience: AUDIENCE,
      algorithms: ['ES256', 'RS256'],
      onWarning: false,
    });
    await expect(verifier.verify(tokenOf(keyA, a))).resolves.toBeDefined();
    await expectAuthError(
      verifier.verify(tokenOf(keyA, a, { aud: 'https://api.test/b-only' })),
      invalidToken('audience'),
    );
    await expectAuthError(verifier.verify(tokenOf(keyB2, b)), invalidToken('audience'));
    await expect(
      verifier.verify(tokenOf(keyB2, b, { aud: 'https://api.test/b-only' })),
    ).resolves.toBeDefined();
    // ES256 is accepted for A, not for B; EdDSA for B, not for A.
    await expectAuthError(
      verifier.verify(tokenOf(keyB, b, { aud: 'https://api.test/b-only' })),
      invalidToken('algorithm'),
    );
    await expectAuthError(verifier.verify(tokenOf(keyB2, a)), invalidToken('algorithm'));
    // An explicit jwksUri: no discovery at all.
    const tokenC = signToken(keyC, claims({ iss: 'https://tenant-c.test/' }));
    await expect(verifier.verify(tokenC)).resolves.toMatchObject({ issuer: 'https://tenant-c.test/' });
    expect(discoveries(c)).toBe(discoveredBefore);
    expect(verifier.issuerState('https://tenant-c.test/')?.metadata).toBeUndefined();
  });

  it('E1: a top-level jwksUri is one key set shared by the issuers that name none', async () => {
    const verifier = createVerifier({
      issuer: ['https://one.test', 'https://two.test'],
      audience: AUDIENCE,
      jwksUri: c.jwksUri,
      onWarning: false,
    });
    for (const iss of ['https://one.test', 'https://two.test'])
      await expect(verifier.verify(signToken(keyC, claims({ iss })))).resolves.toMatchObject({ issuer: iss });
    expect(verifier.keyStats).toMatchObject({ keySets: 1, fetches: 1 });
  });

  it('E2: an iss outside the list fails before any fetch; 10,000 random iss values fetch nothing and hold nothing', async () => {
    const verifier = make({});
    const before = requests();
    for (const iss of [undefined, 42, '', `${a.issuer}/`, a.issuer.toUpperCase(), ['x']]) {
      await expectAuthError(verifier.verify(unsigned(iss)), invalidToken('issuer'));
    }
    for (let i = 0; i < 10_000; i++) {
      const error = await verifier.verify(unsigned(`https://${crypto.randomUUID()}.test/`)).catch((e) => e);
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect((error as InvalidTokenError).reason).toBe('issuer');
    }
    expect(requests()).toEqual(before);
    expect(verifier.keyStats).toMatchObject({ keySets: 2, fetches: 0 });
  }, 60_000);

  it('E2: the unverified iss is never echoed in the error', async () => {
    const verifier = make({});
    const iss = 'https://evil.test/"\\\r\nX-Injected: 1';
    const error = await expectAuthError(verifier.verify(unsigned(iss)), invalidToken('issuer'));
    const response = errorResponse(error);
    const sent = `${[...response.headers].join('\n')}\n${await response.text()}`;
    expect(sent).not.toContain('evil.test');
    expect(error.message).not.toContain('evil.test');
  });

  it('E4: an issuer whose metadata names another issuer is unusable (503); the others keep working', async () => {
    const wrong = await startJwksServer(jwksOf(keyB));
    try {
      wrong.setMetadata({ issuer: 'https://someone-else.test', jwks_uri: wrong.jwksUri });
      const warnings: KeySetError[] = [];
      const verifier = make({
        issuer: [a.issuer, wrong.issuer],
        onWarning: (warning) => warnings.push(warning),
      });
      const error = await verifier.verify(tokenOf(keyB, wrong)).catch((e) => e);
      expect(error).toBeInstanceOf(KeysUnavailableError);
      expect(error).toMatchObject({ status: 503, headers: { 'retry-after': expect.any(String) } });
      expect(wrong.jwksHits()).toBe(0);
      expect(warnings.map((w) => [w.code, w.issuer])).toEqual([['issuer_mismatch', wrong.issuer]]);
      await expect(verifier.verify(tokenOf(keyA, a))).resolves.toMatchObject({ issuer: a.issuer });
      await expect(verifier.warmUp()).rejects.toMatchObject({ code: 'issuer_mismatch' });
    } finally {
      await wrong.close();
    }
  });
});

describe('an issuer function (tenants)', () => {
  it('E3: is asked with the unverified iss only to decide; its answer is cached and keys come from discovery', async () => {
    const asked: string[] = [];
    const verifier = make({
      issuer: (iss) => {
        asked.push(iss);
        return iss === a.issuer || iss === b.issuer;
      },
    });
    expect(verifier.keyStats.keySets).toBe(0);
    const before = discoveries(a);
    // Concurrent first requests: one question, one discovery.
    const results = await Promise.all(Array.from({ length: 20 }, () => verifier.verify(tokenOf(keyA, a))));
    expect(results.every((r) => r.issuer === a.issuer)).toBe(true);
    expect(asked).toEqual([a.issuer]);
    expect(discoveries(a)).toBe(before + 1);
    await expect(verifier.verify(tokenOf(keyB, b))).resolves.toMatchObject({ issuer: b.issuer });
    // A trusted issuer's keys still verify only its own tokens.
    await expectAuthError(verifier.verify(tokenOf(keyB, a)), invalidToken('signature'));

    // Refused, and the refusal is cached; no fetch for it.
    const requestsBefore = requests();
    await expectAuthError(verifier.verify(tokenOf(keyC, c)), invalidToken('issuer'));
    await expectAuthError(verifier.verify(tokenOf(keyC, c)), invalidToken('issuer'));
    expect(requests()).toEqual(requestsBefore);
    // Not a URL an issuer can have: refused without asking.
    for (const iss of [
      42,
      'not a url',
      'ftp://x.test',
      'http://example.com/',
      'https://x.test/?q=1',
      'https://u:p@x.test',
    ])
      await expectAuthError(verifier.verify(unsigned(iss)), invalidToken('issuer'));
    expect(asked).toEqual([a.issuer, b.issuer, c.issuer]);
    expect(verifier.keyStats.keySets).toBe(2);
  });

  it('E3: holds at most issuerCache.max key sets, the least recently used dropped first', async () => {
    const verifier = make({ issuer: () => true, issuerCache: { max: 2 } });
    await verifier.verify(tokenOf(keyA, a));
    await verifier.verify(tokenOf(keyB, b));
    await verifier.verify(tokenOf(keyC, c));
    expect(verifier.keyStats.keySets).toBe(2);
    expect(verifier.issuerState(a.issuer)).toBeUndefined();
    expect(verifier.issuerState(c.issuer)).toBeDefined();
    // Counters never go down when a key set is dropped.
    expect(verifier.keyStats.fetches).toBe(6);
  });

  it('E3: with a top-level jwksUri, trusted tenants share one key set (no discovery)', async () => {
    const before = requests();
    const verifier = make({ issuer: () => true, jwksUri: c.jwksUri, issuerCache: { max: 1 } });
    for (const iss of ['https://t1.tenants.test/', 'https://t2.tenants.test/', 'https://t1.tenants.test/'])
      await expect(verifier.verify(signToken(keyC, claims({ iss })))).resolves.toMatchObject({ issuer: iss });
    expect(verifier.keyStats).toMatchObject({ keySets: 1, fetches: 1 });
    expect(requests()).toEqual([before[0], before[1], before[2]! + 1]);
  });

  it('E2: an attacker-chosen http:// iss with an issuer function: 401 invalid_token issuer, never 503 or a warning; the function is not asked', async () => {
    const asked: string[] = [];
    const warnings: unknown[] = [];
    const verifier = createVerifier({
      issuer: (iss) => {
        asked.push(iss);
        return true;
      },
      audience: AUDIENCE,
      onWarning: (warning) => warnings.push(warning),
    });
    const before = requests();
    for (const iss of [
      'http://evil.example.com',
      'http://evil.example.com/oidc',
      'HTTP://EVIL.example.com/',
      'http://evil.example.com:443/',
      'http:evil.example.com',
    ]) {
      const token = unsigned(iss);
      await expectAuthError(verifier.verify(token), invalidToken('issuer'));
      const request = new Request('https://api.example.com/data', {
        headers: { authorization: `Bearer ${token}` },
      });
      await expectAuthError(verifier.authenticate(request), invalidToken('issuer'));
      const error = await verifier.verify(token).catch((e) => e);
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error).toMatchObject({ status: 401, code: 'invalid_token', reason: 'issuer' });
    }
    expect(asked).toEqual([]);
    expect(warnings).toEqual([]);
    expect(requests()).toEqual(before);
    expect(verifier.keyStats.keySets).toBe(0);
  });

  it('E2: 10,000 random iss values refused by the function fetch nothing and hold no key set', async () => {
    let calls = 0;
    const verifier = make({
      issuer: async () => {
        calls++;
        return false;
      },
      issuerCache: { answers: 100 },
    });
    const before = requests();
    for (let i = 0; i < 10_000; i++) {
      await expectAuthErrorFast(verifier.verify(unsigned(`https://${i}.tenants.test/`)));
    }
    expect(calls).toBe(10_000);
    expect(requests()).toEqual(before);
    expect(verifier.keyStats).toMatchObject({ keySets: 0, fetches: 0 });
  }, 60_000);

  it.each([
    [
      'throws',
      () => {
        throw new Error('tenant database down');
      },
    ],
    ['rejects', () => Promise.reject(new Error('tenant database down'))],
    ['answers something other than a boolean', () => 'yes' as unknown as boolean],
    ['hangs', () => new Promise<boolean>(() => {})],
  ])(
    'E3: a function that %s answers 503 for that request, and is asked again next time',
    async (_name, fn) => {
      let calls = 0;
      const verifier = make({
        issuer: (iss) => {
          calls++;
          return (fn as (iss: string) => boolean | Promise<boolean>)(iss);
        },
        issuerCache: { timeout: 50 },
      });
      for (let i = 1; i <= 2; i++) {
        const error = await verifier.verify(tokenOf(keyA, a)).catch((e) => e);
        expect(error).toBeInstanceOf(IssuerUnavailableError);
        expect(calls).toBe(i);
      }
    },
  );

  it('E15: IssuerUnavailableError is an AuthError: 503, Retry-After, no challenge, no token data', async () => {
    const verifier = make({
      issuer: () => {
        throw new Error('secret tenant detail');
      },
    });
    const token = unsigned('https://tenant-"\\.test/');
    const error = (await verifier.verify(token).catch((e) => e)) as IssuerUnavailableError;
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({
      status: 503,
      code: undefined,
      reason: 'issuer_unavailable',
      retryAfter: 1,
    });
    expect(error.headers).toEqual({ 'retry-after': '1' });
    expect(error.wwwAuthenticate).toBeUndefined();
    expect(error.cause).toMatchObject({ message: 'secret tenant detail' });
    const response = errorResponse(error);
    expect(response.status).toBe(503);
    const sent = `${[...response.headers].join('\n')}\n${await response.text()}`;
    expect(sent).not.toMatch(/secret tenant detail|tenant-/);
    expect(sent).toContain('temporarily_unavailable');
    for (const value of Object.values(error.headers)) expect(value).not.toMatch(/["\\\r\n]/);
  });
});

/** The rejection of a refused issuer, checked cheaply (10,000 times). */
async function expectAuthErrorFast(promise: Promise<unknown>): Promise<void> {
  const error = await promise.catch((e) => e);
  if (!(error instanceof InvalidTokenError) || error.reason !== 'issuer')
    expect(error).toBe('an issuer error');
}
