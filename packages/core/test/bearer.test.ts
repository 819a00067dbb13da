/**
 * RFC 6750 token extraction (src/bearer.ts): extractBearerToken as a unit, and security catalogue A
 * cases 1–7 through `authenticate()` behind a real loopback HTTP server, for every main algorithm.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ExtractOptions,
  extractBearerToken,
  type RequestLike,
  type VerifierOptions,
} from '../src/index.js';
import {
  type ExpectedError,
  expectError,
  invalidRequest,
  invalidToken,
  missingToken,
} from './helpers/assertions.js';
import { claims, jwksOf, MAIN_ALGS, makeKey, signToken } from './helpers/fixtures.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { type AppResponse, startApp } from './helpers/http-app.js';

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

function extract(req: Partial<RequestLike>, options?: ExtractOptions): string | undefined {
  return extractBearerToken({ headers: {}, ...req }, options);
}

function extractError(req: Partial<RequestLike>, options?: ExtractOptions): unknown {
  try {
    extract(req, options);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('extractBearerToken', () => {
  const MULTIPLE = invalidRequest('multiple_tokens');
  const SYNTAX = invalidRequest('bad_syntax');

  it('returns the b64token of an Authorization: Bearer header', () => {
    expect(extract({ headers: { authorization: `Bearer ${TOKEN}` } })).toBe(TOKEN);
    expect(extract({ headers: { authorization: 'Bearer a-b_c.d~e+f/g==' } })).toBe('a-b_c.d~e+f/g==');
  });

  it('returns undefined when there is no Authorization header', () => {
    expect(extract({})).toBeUndefined();
    expect(extract({ headers: { authorization: undefined } })).toBeUndefined();
  });

  it.each([
    'Basic dXNlcjpwYXNz',
    'Digest username="x"',
    'Token abc',
    'DPoP abc',
    'Bearer',
    'Bearer   ',
    'Bearer\t',
    'Bearertoken',
    '',
  ])('treats %j as carrying no bearer token', (authorization) => {
    expect(extract({ headers: { authorization } })).toBeUndefined();
  });

  it.each(['bearer', 'BEARER', 'Bearer', 'bEaReR'])('accepts the scheme spelled %s', (scheme) => {
    expect(extract({ headers: { authorization: `${scheme} ${TOKEN}` } })).toBe(TOKEN);
  });

  it('accepts several spaces after the scheme and optional whitespace around the value', () => {
    expect(extract({ headers: { authorization: `Bearer    ${TOKEN}` } })).toBe(TOKEN);
    expect(extract({ headers: { authorization: ` \tBearer ${TOKEN} \t` } })).toBe(TOKEN);
  });

  it.each([
    'Bearer a b',
    `Bearer ${TOKEN} extra`,
    'Bearer a,b',
    'Bearer a;b',
    'Bearer =abc',
    'Bearer a=b',
    'Bearer "abc"',
    'Bearer a\u0001b',
    'Bearer abc\u0000',
    'Bearer abc\u007f',
    'Bearer abc\u000b',
    'Bearer abc\u000c',
    'Bearer abc\r\nX-Injected: 1',
    'Bearer a\tb',
    'Bearer\tabc',
    'Bearer\u0001abc',
    'Bearer,abc',
    'Bearer ä',
    'Bearer abc\u00a0',
    'Bearer abc\u2028',
  ])('refuses %j with 400 invalid_request', (authorization) => {
    expectError(extractError({ headers: { authorization } }), SYNTAX);
  });

  it('refuses two Authorization headers (rawHeaders) with 400 invalid_request', () => {
    const rawHeaders = ['Authorization', `Bearer ${TOKEN}`, 'Host', 'x', 'authorization', `Bearer ${TOKEN}`];
    expectError(extractError({ headers: { authorization: `Bearer ${TOKEN}` }, rawHeaders }), MULTIPLE);
    expectError(
      extractError({
        headers: { authorization: 'Basic x' },
        rawHeaders: ['AUTHORIZATION', 'Basic x', 'Authorization', 'x'],
      }),
      MULTIPLE,
    );
    expect(
      extract({
        headers: { authorization: `Bearer ${TOKEN}` },
        rawHeaders: ['Authorization', `Bearer ${TOKEN}`],
      }),
    ).toBe(TOKEN);
  });

  it('treats a header array of two values as two headers, and of one value as that value', () => {
    expectError(
      extractError({ headers: { authorization: [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`] } }),
      MULTIPLE,
    );
    expect(extract({ headers: { authorization: [`Bearer ${TOKEN}`] } })).toBe(TOKEN);
  });

  it('ignores an Authorization value that is not a string', () => {
    expect(extract({ headers: { authorization: 42 as unknown as string } })).toBeUndefined();
  });

  describe('several sources → 400 invalid_request, whether or not the extra source is enabled', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases: Array<[string, Partial<RequestLike>]> = [
      [
        'header + query object',
        { headers: { authorization: `Bearer ${TOKEN}` }, query: { access_token: TOKEN } },
      ],
      [
        'header + URLSearchParams',
        {
          headers: { authorization: `Bearer ${TOKEN}` },
          query: new URLSearchParams({ access_token: TOKEN }),
        },
      ],
      [
        'header + form body',
        {
          headers: { authorization: `Bearer ${TOKEN}`, ...form },
          method: 'POST',
          body: { access_token: TOKEN },
        },
      ],
      [
        'query + form body',
        { headers: form, method: 'POST', query: { access_token: TOKEN }, body: { access_token: TOKEN } },
      ],
      ['query repeated (array)', { query: { access_token: [TOKEN, TOKEN] } }],
      [
        'query repeated (URLSearchParams)',
        {
          query: new URLSearchParams([
            ['access_token', TOKEN],
            ['access_token', TOKEN],
          ]),
        },
      ],
      [
        'form body repeated (array)',
        { headers: form, method: 'POST', body: { access_token: [TOKEN, TOKEN] } },
      ],
    ];
    it.each(cases.map(([name]) => name))('%s', (name) => {
      const req = cases.find(([n]) => n === name)![1];
      for (const options of [{}, { query: true }, { body: true }, { query: true, body: true }]) {
        expectError(extractError(req, options), MULTIPLE);
      }
    });
  });

  it('reads ?access_token= only when the query source is enabled', () => {
    for (const query of [{ access_token: TOKEN }, new URLSearchParams({ access_token: TOKEN })]) {
      expect(extract({ query })).toBeUndefined();
      expect(extract({ query }, { body: true })).toBeUndefined();
      expect(extract({ query }, { query: true })).toBe(TOKEN);
    }
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { access_token: TOKEN });
    expect(extract({ query: nullProto }, { query: true })).toBe(TOKEN);
    expect(
      extract({ query: Object.create({ access_token: TOKEN }) as Record<string, unknown> }, { query: true }),
    ).toBeUndefined();
  });

  it('reads a form-body access_token only when enabled, not for GET and not for other content types', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' };
    const body = { access_token: TOKEN };
    expect(extract({ headers: form, method: 'POST', body })).toBeUndefined();
    expect(extract({ headers: form, method: 'POST', body }, { query: true })).toBeUndefined();
    expect(extract({ headers: form, method: 'POST', body }, { body: true })).toBe(TOKEN);
    expect(extract({ headers: form, method: 'GET', body }, { body: true })).toBeUndefined();
    expect(
      extract({ headers: { 'content-type': 'application/json' }, method: 'POST', body }, { body: true }),
    ).toBeUndefined();
    expect(
      extract({ headers: form, method: 'POST', body: 'access_token=x' }, { body: true }),
    ).toBeUndefined();
  });

  it('an empty access_token counts as absent and does not hide a token in the other enabled source', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect(extract({ query: { access_token: '' } }, { query: true })).toBeUndefined();
    expect(
      extract(
        { headers: form, method: 'POST', query: { access_token: '' }, body: { access_token: TOKEN } },
        { query: true, body: true },
      ),
    ).toBe(TOKEN);
    expect(extract({ headers: { authorization: `Bearer ${TOKEN}` }, query: { access_token: '' } })).toBe(
      TOKEN,
    );
  });

  it('refuses a query or body token that is not a b64token when its source is enabled', () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expectError(extractError({ query: { access_token: 'a b' } }, { query: true }), SYNTAX);
    expectError(extractError({ query: { access_token: { nested: 'x' } } }, { query: true }), SYNTAX);
    expectError(
      extractError({ headers: form, method: 'POST', body: { access_token: 'a\nb' } }, { body: true }),
      SYNTAX,
    );
  });

  it('puts the given context in the challenge of its errors', () => {
    const error = extractError(
      { headers: { authorization: 'Bearer a b' } },
      { context: { realm: 'orders' } },
    );
    expect((error as { headers: Record<string, string> }).headers['www-authenticate']).toMatch(
      /^Bearer realm="orders", error="invalid_request"/,
    );
  });
});

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(jwksOf(...MAIN_ALGS.map((alg) => makeKey(alg))));
});
afterAll(() => harness.close());

/** Run one request against a fresh verifier behind a real HTTP server; returns the response and JWKS fetches. */
async function call(
  request: { path?: string; method?: string; headers?: Record<string, string | string[]>; body?: string },
  options: Partial<VerifierOptions> = {},
): Promise<AppResponse & { fetches: number }> {
  const verifier = harness.verifier(options);
  const app = await startApp(verifier);
  const before = harness.server.jwksHits();
  try {
    const response = await app.request(request.path ?? '/', request);
    return { ...response, fetches: harness.server.jwksHits() - before };
  } finally {
    await app.close();
  }
}

function expectResponse(response: AppResponse, expected: ExpectedError): void {
  expect(response.status).toBe(expected.status);
  const challenge = response.headers['www-authenticate'];
  const dpop = 'DPoP realm="api", algs="ES256 EdDSA RS256 PS256"';
  if (expected.code === undefined) {
    expect(challenge).toBe(`Bearer realm="api", ${dpop}`);
  } else {
    expect(challenge).toMatch(
      new RegExp(`^Bearer realm="api", error="${expected.code}", error_description="[^"]+", ${dpop}$`),
    );
    expect(response.body.error).toBe(expected.code);
  }
}

describe.each(MAIN_ALGS)('%s over a real HTTP server', (alg) => {
  const key = makeKey(alg);
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it('A1: no Authorization header → bare 401, no JWKS fetch', async () => {
    const response = await call({});
    expectResponse(response, missingToken);
    expect(response.fetches).toBe(0);
  });

  it.each(['Basic dXNlcjpwYXNz', 'Digest username="u", realm="r"', 'Token abc', 'Bearer', 'Bearer    '])(
    'A2: Authorization %j → bare 401, no JWKS fetch',
    async (authorization) => {
      const response = await call({ headers: { authorization } });
      expectResponse(response, missingToken);
      expect(response.fetches).toBe(0);
    },
  );

  it.each(['bearer', 'BEARER', 'BeArEr'])('A3: scheme %s with a valid token → 200', async (scheme) => {
    const response = await call({ headers: { authorization: `${scheme} ${signToken(key)}` } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ sub: 'user-42' });
  });

  describe('A4: more than one token → 400 invalid_request, no JWKS fetch', () => {
    it('two Authorization headers', async () => {
      const token = signToken(key);
      for (const second of [`Bearer ${token}`, 'Basic dXNlcjpwYXNz']) {
        const response = await call({ headers: { authorization: [`Bearer ${token}`, second] } });
        expectResponse(response, invalidRequest('multiple_tokens'));
        expect(response.fetches).toBe(0);
      }
    });

    it.each([{}, { query: true }])('header and ?access_token= (token sources %j)', async (tokenSources) => {
      const token = signToken(key);
      const response = await call(
        { path: `/?access_token=${token}`, headers: { authorization: `Bearer ${token}` } },
        { tokenSources },
      );
      expectResponse(response, invalidRequest('multiple_tokens'));
      expect(response.fetches).toBe(0);
    });

    it.each([{}, { body: true }])(
      'header and a form-body access_token (token sources %j)',
      async (tokenSources) => {
        const token = signToken(key);
        const response = await call(
          {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, ...form },
            body: `access_token=${token}`,
          },
          { tokenSources },
        );
        expectResponse(response, invalidRequest('multiple_tokens'));
        expect(response.fetches).toBe(0);
      },
    );

    it('?access_token= twice with the query source enabled', async () => {
      const token = signToken(key);
      const response = await call(
        { path: `/?access_token=${token}&access_token=${token}` },
        { tokenSources: { query: true } },
      );
      expectResponse(response, invalidRequest('multiple_tokens'));
    });
  });

  describe('A5: query and body tokens are ignored unless enabled', () => {
    it('?access_token= only → bare 401 (no fetch); 200 when enabled', async () => {
      const path = `/?access_token=${signToken(key)}`;
      const ignored = await call({ path });
      expectResponse(ignored, missingToken);
      expect(ignored.fetches).toBe(0);
      expectResponse(await call({ path }, { tokenSources: { body: true } }), missingToken);
      expect((await call({ path }, { tokenSources: { query: true } })).status).toBe(200);
    });

    it('form-body access_token only → bare 401 (no fetch); 200 when enabled; never for GET', async () => {
      const request = { method: 'POST', headers: form, body: `access_token=${signToken(key)}` };
      const ignored = await call(request);
      expectResponse(ignored, missingToken);
      expect(ignored.fetches).toBe(0);
      expect((await call(request, { tokenSources: { body: true } })).status).toBe(200);
      expectResponse(
        await call({ ...request, method: 'GET' }, { tokenSources: { body: true } }),
        missingToken,
      );
    });

    it('an invalid token from an enabled query source → 401 invalid_token', async () => {
      const forged = signToken(makeKey(alg, 'forger'), claims(), { header: { kid: key.kid } });
      expectResponse(
        await call({ path: `/?access_token=${forged}` }, { tokenSources: { query: true } }),
        invalidToken('signature'),
      );
    });
  });

  it.each(['Bearer a b', 'Bearer TOKEN extra', 'Bearer a,b', 'Bearer "TOKEN"', 'Bearer TOKEN\tx'])(
    'A6: %j → 400 invalid_request, no JWKS fetch',
    async (template) => {
      const response = await call({ headers: { authorization: template.replace('TOKEN', signToken(key)) } });
      expectResponse(response, invalidRequest('bad_syntax'));
      expect(response.fetches).toBe(0);
    },
  );

  describe('A7: oversized tokens', () => {
    it('a 100 KB token → invalid_token (token_too_large) before decoding, no JWKS fetch', async () => {
      const valid = signToken(key, claims({ pad: 'x'.repeat(100_000) }));
      expect(valid.length).toBeGreaterThan(100_000);
      await harness.rejectsWithoutFetch(valid, invalidToken('token_too_large'));
      // Not even a JWT: the size is refused before any parsing would call it malformed.
      await harness.rejectsWithoutFetch('!'.repeat(100 * 1024), invalidToken('token_too_large'));
    });

    it('the cap is configurable: maxTokenLength is inclusive', async () => {
      const token = signToken(key);
      await harness.rejectsWithoutFetch(token, invalidToken('token_too_large'), {
        maxTokenLength: token.length - 1,
      });
      await expect(harness.verifier({ maxTokenLength: token.length }).verify(token)).resolves.toBeDefined();
      const big = signToken(key, claims({ pad: 'x'.repeat(9_000) }));
      await harness.rejectsWithoutFetch(big, invalidToken('token_too_large'));
      await expect(harness.verifier({ maxTokenLength: 16_384 }).verify(big)).resolves.toBeDefined();
    });

    it('a 10 KB token in the Authorization header → 401 invalid_token, no JWKS fetch', async () => {
      const token = signToken(key, claims({ pad: 'x'.repeat(10_000) }));
      const response = await call({ headers: { authorization: `Bearer ${token}` } });
      expectResponse(response, invalidToken('token_too_large'));
      expect(response.fetches).toBe(0);
    });

    it('an Authorization header over 16 KiB → Node answers 431 before the verifier runs', async () => {
      const token = signToken(key, claims({ pad: 'x'.repeat(20_000) }));
      const response = await call({ headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(431);
      expect(response.fetches).toBe(0);
    });
  });
});
