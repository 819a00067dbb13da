/**
 * The DPoP proof checks of src/dpop-proof.ts on their own (RFC 9449 §4.3), with RFC 9449's published
 * proofs as test vectors. The verifier-level behaviour (challenges, binding, replay, over HTTP) is in
 * sender-constraint.test.ts.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveDpopOptions } from '../src/dpop-options.js';
import { DpopProofChecker, htuMatches, readProof } from '../src/dpop-proof.js';
import { AuthError, InvalidDpopProofError, UseDpopNonceError } from '../src/index.js';
import { athOf, makeProof, publicJwk, thumbprintOf } from './helpers/dpop.js';
import { b64url, MAIN_ALGS, makeKey, type TestKey } from './helpers/fixtures.js';

/** RFC 9449 §4.1 Figure 3 (a proof sent to a token endpoint) and §7.1 Figure 13 (a resource request). */
const RFC = {
  header:
    'eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19',
  tokenProofRest:
    'eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg',
  resourceProofRest:
    'eyJqdGkiOiJlMWozVl9iS2ljOC1MQUVCIiwiaHRtIjoiR0VUIiwiaHR1IjoiaHR0cHM6Ly9yZXNvdXJjZS5leGFtcGxlLm9yZy9wcm90ZWN0ZWRyZXNvdXJjZSIsImlhdCI6MTU2MjI2MjYxOCwiYXRoIjoiZlVIeU8ycjJaM0RaNTNFc05yV0JiMHhXWG9hTnk1OUlpS0NBcWtzbVFFbyJ9.2oW9RP35yRqzhrtNP86L-Ey71EOptxRimPPToA1plemAgR6pxHF8y6-yqyVnmcw6Fy1dqd-jfxSYoMxhAJpLjA',
  accessToken: 'Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU',
  /** §6.1 Figure 9: the thumbprint of the example key. */
  jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I',
};

const URL_ = 'https://api.test/orders';
const now = () => Math.floor(Date.now() / 1000);
const checker = (options: Parameters<typeof resolveDpopOptions>[0] = {}) =>
  new DpopProofChecker(resolveDpopOptions(options), {});

/** The proof check is synchronous on Node and a promise on WebCrypto: both are awaited. */
async function expectProofError(run: () => unknown, reason: string): Promise<void> {
  let error: unknown;
  try {
    await run();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InvalidDpopProofError);
  expect((error as InvalidDpopProofError).reason).toBe(reason);
  expect((error as InvalidDpopProofError).status).toBe(401);
  expect((error as InvalidDpopProofError).code).toBe('invalid_dpop_proof');
}

describe('RFC 9449 test vectors', () => {
  it('the token-request proof of §4.1 verifies at its own iat, and its key has the thumbprint of §6.1', async () => {
    const proof = `${RFC.header}.${RFC.tokenProofRest}`;
    const checked = await checker().check(
      proof,
      'POST',
      'https://server.example.com/token',
      undefined,
      1562262616,
    );
    expect(checked.jkt).toBe(RFC.jkt);
  });

  it('the resource-request proof of §7.1 verifies with the ath of its access token', async () => {
    const proof = `${RFC.header}.${RFC.resourceProofRest}`;
    const url = 'https://resource.example.org/protectedresource';
    const ath = athOf(RFC.accessToken);
    expect(ath).toBe('fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo');
    expect((await checker().check(proof, 'GET', url, ath, 1562262618)).jkt).toBe(RFC.jkt);
    // The same proof is refused for another method, another URI, another token, or much later.
    await expectProofError(() => checker().check(proof, 'POST', url, ath, 1562262618), 'dpop_htm');
    await expectProofError(() => checker().check(proof, 'GET', `${url}x`, ath, 1562262618), 'dpop_htu');
    await expectProofError(() => checker().check(proof, 'GET', url, athOf('other'), 1562262618), 'dpop_ath');
    await expectProofError(() => checker().check(proof, 'GET', url, ath, 1562262618 + 301), 'dpop_iat');
  });
});

describe('readProof', () => {
  const read = (headers: Record<string, unknown>, rawHeaders?: string[]) =>
    readProof({ headers: headers as never, rawHeaders }, 8192, {});

  it('returns the one proof, without surrounding whitespace', async () => {
    expect(read({ dpop: ' a.b.c ' })).toBe('a.b.c');
    expect(read({ dpop: ['a.b.c'] })).toBe('a.b.c');
  });

  it.each([
    ['no DPoP header', {}, undefined, 'dpop_missing'],
    ['an empty DPoP header', { dpop: '' }, undefined, 'dpop_missing'],
    ['two DPoP header lines', { dpop: 'a.b.c' }, ['DPoP', 'a.b.c', 'dpop', 'd.e.f'], 'dpop_multiple'],
    ['an array of two values', { dpop: ['a.b.c', 'd.e.f'] }, undefined, 'dpop_multiple'],
    ['two proofs joined by a comma', { dpop: 'a.b.c, d.e.f' }, undefined, 'dpop_multiple'],
    ['a header over the size cap', { dpop: 'a'.repeat(8193) }, undefined, 'dpop_too_large'],
  ])('D2/D20: %s → invalid_dpop_proof', async (_name, headers, raw, reason) => {
    await expectProofError(() => read(headers, raw), reason);
  });
});

describe('htuMatches (D8)', () => {
  it.each([
    ['identical', 'https://api.test/orders', 'https://api.test/orders'],
    ['query and fragment ignored', 'https://api.test/orders?x=1#f', 'https://api.test/orders?y=2'],
    ['scheme and host case-insensitive', 'HTTPS://API.Test/orders', 'https://api.test/orders'],
    ['default port normalised', 'https://api.test:443/orders', 'https://api.test/orders'],
    ['http default port normalised', 'http://127.0.0.1:80/a', 'http://127.0.0.1/a'],
    ['percent-encoded unreserved characters decoded', 'https://api.test/%6Frders', 'https://api.test/orders'],
    ['percent-encoding hex case', 'https://api.test/a%2fb', 'https://api.test/a%2Fb'],
  ])('%s → match', (_name, htu, uri) => {
    expect(htuMatches(htu, uri)).toBe(true);
  });

  it.each([
    ['another scheme', 'http://api.test/orders'],
    ['another host', 'https://evil.test/orders'],
    ['another port', 'https://api.test:8443/orders'],
    ['another path', 'https://api.test/orders/1'],
    ['a path with different case', 'https://api.test/Orders'],
    ['a trailing slash', 'https://api.test/orders/'],
    ['a relative URI', '/orders'],
    ['not a URI', 'not a uri'],
  ])('%s → no match', (_name, htu) => {
    expect(htuMatches(htu, URL_)).toBe(false);
  });
});

describe('DpopProofChecker', () => {
  const key = makeKey('ES256', 'dpop-es256');
  const token = 'an-access-token';
  const ath = athOf(token);
  const check = (proof: string, options: Parameters<typeof resolveDpopOptions>[0] = {}) =>
    checker(options).check(proof, 'GET', URL_, ath, now());

  for (const alg of MAIN_ALGS) {
    it(`accepts a valid ${alg} proof and reports its key thumbprint`, async () => {
      const k = makeKey(alg, `dpop-${alg}`);
      const checked = await check(makeProof({ key: k, token }));
      expect(checked.jkt).toBe(await thumbprintOf(k));
      expect(checked.replayId.startsWith(checked.jkt)).toBe(true);
      expect(checked.replayId.length).toBeGreaterThan(43);
    });
  }

  it('D3: typ absent, JWT, at+jwt or in another case → dpop_typ', async () => {
    for (const typ of [undefined, 'JWT', 'at+jwt', 'DPOP+JWT'])
      await expectProofError(() => check(makeProof({ key, token, header: { typ } })), 'dpop_typ');
  });

  it('D4: alg none, HS256, or outside the allow-list → dpop_algorithm', async () => {
    for (const alg of ['none', 'HS256', 'ES384', 'RS512'])
      await expectProofError(() => check(makeProof({ key, token, header: { alg } })), 'dpop_algorithm');
    const rsa = makeKey('RS256', 'dpop-rs');
    await expectProofError(
      () => check(makeProof({ key: rsa, token }), { algorithms: ['ES256'] }),
      'dpop_algorithm',
    );
  });

  it('D5: a jwk with private members, a symmetric jwk, no jwk, or one not matching alg → dpop_key', async () => {
    const jwk = publicJwk(key);
    const d = key.privateKey.export({ format: 'jwk' }).d;
    const cases: Record<string, unknown>[] = [
      { jwk: { ...jwk, d } },
      { jwk: { ...jwk, p: 'AQAB' } },
      { jwk: { kty: 'oct', k: b64url('secret-secret-secret-secret-1234') } },
      { jwk: undefined },
      { jwk: 'not an object' },
      { jwk: [jwk] },
      { jwk: { ...jwk, alg: 'ES384' } },
      { jwk: publicJwk(makeKey('RS256', 'dpop-rs')) },
      { jwk: publicJwk(makeKey('EdDSA', 'dpop-ed')) },
      { jwk: { ...jwk, x: 'AAAA' } },
    ];
    for (const header of cases)
      await expectProofError(() => check(makeProof({ key, token, header })), 'dpop_key');
  });

  it('D6: a signature not made by the header key → dpop_signature', async () => {
    const other = makeKey('ES256', 'dpop-other');
    await expectProofError(() => check(makeProof({ key, token, signer: other })), 'dpop_signature');
    const proof = makeProof({ key, token });
    const flipped = `${proof.slice(0, -2)}${proof.endsWith('AA') ? 'AQ' : 'AA'}`;
    await expectProofError(() => check(flipped), 'dpop_signature');
  });

  it('D7: htm other than the request method, case-sensitive → dpop_htm', async () => {
    for (const method of ['get', 'POST', undefined])
      await expectProofError(() => check(makeProof({ key, token, claims: { htm: method } })), 'dpop_htm');
  });

  it('D8: htu for another scheme, host, port or path → dpop_htu; query and fragment ignored', async () => {
    for (const htu of ['http://api.test/orders', 'https://evil.test/orders', 'https://api.test:444/orders'])
      await expectProofError(() => check(makeProof({ key, token, url: htu })), 'dpop_htu');
    await expectProofError(() => check(makeProof({ key, token, claims: { htu: 42 } })), 'dpop_htu');
    expect((await check(makeProof({ key, token, url: `${URL_}?page=2#top` }))).jkt).toBeDefined();
  });

  it('D10: iat too old, too far ahead, or not a number → dpop_iat; within the windows → accepted', async () => {
    const t = now();
    for (const iat of [t - 310, t + 40, String(t), null, undefined])
      await expectProofError(() => check(makeProof({ key, token, claims: { iat } })), 'dpop_iat');
    const huge = `{"jti":"j","htm":"GET","htu":"${URL_}","iat":1e400,"ath":"${ath}"}`;
    await expectProofError(() => check(makeProof({ key, token, payloadText: huge })), 'dpop_iat');
    expect((await check(makeProof({ key, token, iat: t - 290 }))).jkt).toBeDefined();
    expect((await check(makeProof({ key, token, iat: t + 20 }))).jkt).toBeDefined();
    await expectProofError(
      () => check(makeProof({ key, token, iat: t - 70 }), { iatWindow: 60 }),
      'dpop_iat',
    );
    await expectProofError(() => check(makeProof({ key, token, iat: t + 10 }), { iatLeeway: 0 }), 'dpop_iat');
  });

  it('D11: jti missing, not a string, empty or over 256 characters → dpop_jti', async () => {
    for (const jti of [undefined, 42, '', 'j'.repeat(257)])
      await expectProofError(() => check(makeProof({ key, token, claims: { jti } })), 'dpop_jti');
    expect((await check(makeProof({ key, token, jti: 'j'.repeat(256) }))).jkt).toBeDefined();
  });

  it('D14: ath missing or not the hash of this access token → dpop_ath', async () => {
    await expectProofError(() => check(makeProof({ key })), 'dpop_ath');
    await expectProofError(() => check(makeProof({ key, token: 'another-token' })), 'dpop_ath');
  });

  it('expires at iat + iatWindow, and scopes the replay id to the key', async () => {
    const iat = now() - 10;
    const jti = 'same-jti';
    const a = await check(makeProof({ key, token, iat, jti }));
    expect(a.expiresAt).toBe((iat + 300) * 1000);
    const b = await check(makeProof({ key: makeKey('ES256', 'dpop-b'), token, iat, jti }));
    expect(b.replayId).not.toBe(a.replayId);
  });

  it('malformed proofs → dpop_malformed', async () => {
    const good = makeProof({ key, token });
    const [h, p, s] = good.split('.');
    for (const bad of [
      `${h}.${p}`,
      `${h}.${p}.${s}.x`,
      `${h}.${p}.`,
      `${h}.${b64url('[1,2]')}.${s}`,
      `${h}.${b64url('{"jti":"a","jti":"b"}')}.${s}`,
      `${b64url('{"typ":"dpop+jwt","typ":"dpop+jwt"}')}.${p}.${s}`,
      `${h}==.${p}.${s}`,
    ])
      await expectProofError(() => check(bad), 'dpop_malformed');
    for (const extra of [{ crit: ['exp'] }, { b64: false }, { zip: 'DEF' }, { enc: 'A128GCM' }])
      await expectProofError(() => check(makeProof({ key, token, header: extra })), 'dpop_malformed');
  });

  it('D21: an RSA key under 2048 bits, an Ed448 key or a secp256k1 key → dpop_key', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const weakKey: TestKey = {
      alg: 'RS256',
      kid: 'weak',
      privateKey: weak.privateKey,
      publicKey: weak.publicKey,
      jwk: weak.publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
    };
    await expectProofError(() => check(makeProof({ key: weakKey, token })), 'dpop_key');
    const ed448 = generateKeyPairSync('ed448').publicKey.export({ format: 'jwk' });
    await expectProofError(
      () => check(makeProof({ key: makeKey('EdDSA', 'dpop-ed'), token, header: { jwk: ed448 } })),
      'dpop_key',
    );
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'jwk' });
    await expectProofError(() => check(makeProof({ key, token, header: { jwk: k1 } })), 'dpop_key');
  });

  it('D16: with nonces on, a proof without a current nonce → use_dpop_nonce with a fresh one', async () => {
    const c = checker({ nonce: { secret: 'n'.repeat(32) } });
    const t = now();
    let error: unknown;
    try {
      await c.check(makeProof({ key, token }), 'GET', URL_, ath, t);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UseDpopNonceError);
    const nonce = (error as UseDpopNonceError).nonce;
    expect(nonce).toBe(c.nonce(t));
    expect((error as UseDpopNonceError).headers['dpop-nonce']).toBe(nonce);
    expect((await c.check(makeProof({ key, token, nonce }), 'GET', URL_, ath, t)).jkt).toBeDefined();
    await expect(
      (async () => c.check(makeProof({ key, token, nonce: `${nonce}x` }), 'GET', URL_, ath, t))(),
    ).rejects.toThrow(UseDpopNonceError);
  });

  it('D20: property: random and mutated proofs only ever yield an AuthError', async () => {
    const c = checker();
    const good = makeProof({ key, token });
    // Awaited: on the WebCrypto build a refusal may come as a rejected promise instead of a throw.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc
            .tuple(fc.nat(good.length - 1), fc.string({ minLength: 1, maxLength: 3 }))
            .map(([at, s]) => good.slice(0, at) + s + good.slice(at + 1)),
          fc
            .jsonValue()
            .map((v) => `${b64url(JSON.stringify(v))}.${b64url(JSON.stringify(v))}.${b64url('sig')}`),
        ),
        async (proof) => {
          try {
            await c.check(proof, 'GET', URL_, ath, now());
          } catch (error) {
            expect(error).toBeInstanceOf(AuthError);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('D20: a proof with 10,000 JSON members is refused promptly', async () => {
    const members = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`m${i}`, i]));
    const proof = makeProof({ key, token, claims: members });
    const started = performance.now();
    await expectProofError(() => readProof({ headers: { dpop: proof } }, 8192, {}), 'dpop_too_large');
    await expectProofError(
      () => checker({ maxProofLength: 1_000_000 }).check(proof, 'POST', URL_, ath, now()),
      'dpop_htm',
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
