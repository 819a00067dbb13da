/**
 * The verifier's introspection path (src/introspection/*) against a real loopback endpoint: what is
 * sent (client authentication, form), how answers become AuthInfo and pass the usual checks (E5),
 * caching and sharing (E6), outages (E7), where tokens may be sent and what errors hold (E8, E15),
 * and RFC 9701 JWT answers.
 */
import { jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createVerifier,
  type IntrospectionOptions,
  IntrospectionUnavailableError,
  type InvalidTokenError,
  type VerifierOptions,
} from '../../src/index.js';
import { expectAuthError, invalidToken } from '../helpers/assertions.js';
import { makeProof, thumbprintOf } from '../helpers/dpop.js';
import { AUDIENCE, b64url, claims, jwksOf, makeKey, rawSign, signToken } from '../helpers/fixtures.js';
import { refusedOrigin, startServer } from '../helpers/http-server.js';
import { type IntrospectionServer, startIntrospectionServer } from '../helpers/introspection-server.js';

const SECRET = 'orders-api-secret-0123456789:é+/';
const OPAQUE = 'opaque-Vk2sF9xQe1-token_value';
const key = makeKey('ES256', 'issuer-key');

let as: IntrospectionServer;
beforeAll(async () => {
  as = await startIntrospectionServer(jwksOf(key));
});
afterAll(() => as.close());
afterEach(() => {
  as.seen.length = 0;
  as.answer({ active: false });
  vi.restoreAllMocks();
});

const now = () => Math.floor(Date.now() / 1000);

/** An active answer for the test audience and issuer, merged with `extra`. */
const active = (extra: Record<string, unknown> = {}) => ({
  active: true,
  iss: as.issuer,
  sub: 'user-42',
  client_id: 'spa-1',
  aud: AUDIENCE,
  scope: 'read:orders write:orders',
  token_type: 'Bearer',
  iat: now(),
  exp: now() + 600,
  ...extra,
});

function verifierWith(
  introspection: Partial<IntrospectionOptions> = {},
  options: Partial<VerifierOptions> = {},
) {
  return createVerifier({
    issuer: as.issuer,
    audience: AUDIENCE,
    onWarning: false,
    introspection: { clientId: 'orders-api', clientSecret: SECRET, ...introspection },
    ...options,
  });
}

describe('E5: opaque tokens are introspected and become the same AuthInfo', () => {
  it('E5: POSTs the token with client_secret_basic to the discovered endpoint and maps the answer', async () => {
    const exp = now() + 600;
    as.answer(active({ exp, act: { sub: 'admin-1', client_id: 'console' } }));
    const info = await verifierWith().verify(OPAQUE, { scopes: 'read:orders' });
    expect(info).toMatchObject({
      token: OPAQUE,
      subject: 'user-42',
      clientId: 'spa-1',
      issuer: as.issuer,
      audience: [AUDIENCE],
      scopes: ['read:orders', 'write:orders'],
      actor: { sub: 'admin-1', client_id: 'console' },
      delegated: true,
      confirmation: undefined,
    });
    expect(info.expiresAt.getTime()).toBe(exp * 1000);
    expect(as.seen).toHaveLength(1);
    const [request] = as.seen;
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(request!.params)).toEqual({ token: OPAQUE, token_type_hint: 'access_token' });
    // RFC 6749 §2.3.1: id and secret form-urlencoded, then base64.
    const basic = Buffer.from(
      String(request!.headers.authorization).replace(/^Basic /, ''),
      'base64',
    ).toString();
    const [id, secret] = basic.split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
    expect([id, secret]).toEqual(['orders-api', SECRET]);
  });

  it('E5: active: false → 401 invalid_token (inactive)', async () => {
    as.answer({ active: false });
    await expectAuthError(verifierWith().verify(OPAQUE), invalidToken('inactive'));
  });

  it('E5: an active answer passes the same iss / aud / exp / nbf checks as a JWT', async () => {
    const verifier = verifierWith({ cacheMaxAge: 0 });
    const cases: Array<[Record<string, unknown>, Parameters<typeof invalidToken>[0]]> = [
      [{ iss: 'https://other.test/oidc' }, 'issuer'],
      [{ aud: 'https://api.test/other' }, 'audience'],
      [{ aud: undefined }, 'audience'],
      [{ exp: now() - 60 }, 'expired'],
      [{ exp: undefined }, 'claim'],
      [{ nbf: now() + 600 }, 'not_yet_valid'],
      [{ act: { sub: 42 } }, 'actor'],
      [{ cnf: { unknown: 'x' } }, 'claim'],
    ];
    for (const [extra, reason] of cases) {
      as.answer(active(extra));
      await expectAuthError(verifier.verify(OPAQUE), invalidToken(reason));
    }
  });

  it('E5: an answer without iss is taken as the issuer whose endpoint answered', async () => {
    as.answer(active({ iss: undefined }));
    await expect(verifierWith().verify(OPAQUE)).resolves.toMatchObject({ issuer: as.issuer });
  });

  it('E20: a refresh token, or a DPoP token without its key thumbprint, is never accepted as an access token', async () => {
    const verifier = verifierWith({ cacheMaxAge: 0 });
    for (const extra of [{ token_type: 'refresh_token' }, { token_type: 'DPoP' }, { token_type: 7 }]) {
      as.answer(active(extra));
      await expectAuthError(verifier.verify(OPAQUE), invalidToken('claim'));
    }
  });

  it('E5: required scopes are checked on introspected tokens (403 insufficient_scope)', async () => {
    as.answer(active({ scope: 'read:orders' }));
    await expect(verifierWith().verify(OPAQUE, { scopes: 'write:orders' })).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
    });
  });

  it('E5: a DPoP-bound opaque token (cnf.jkt) needs its proof: refused as Bearer, accepted with a valid proof', async () => {
    const dpopKey = makeKey('ES256', 'dpop-client');
    as.answer(active({ token_type: 'DPoP', cnf: { jkt: await thumbprintOf(dpopKey) } }));
    const verifier = verifierWith();
    await expectAuthError(
      verifier.authenticate({ headers: { authorization: `Bearer ${OPAQUE}` } }),
      invalidToken('bound_token'),
    );
    const url = 'https://api.test/orders';
    const proof = makeProof({ key: dpopKey, url, token: OPAQUE });
    const info = await verifier.authenticate({
      headers: { authorization: `DPoP ${OPAQUE}`, dpop: proof },
      method: 'GET',
      url,
    });
    expect(info.confirmation).toEqual({ jkt: await thumbprintOf(dpopKey) });
    const otherKey = makeKey('ES256', 'dpop-thief');
    await expect(
      verifier.authenticate({
        headers: { authorization: `DPoP ${OPAQUE}`, dpop: makeProof({ key: otherKey, url, token: OPAQUE }) },
        method: 'GET',
        url,
      }),
    ).rejects.toMatchObject({ status: 401, reason: 'dpop_binding' });
  });

  it("E5: mode 'opaque' verifies JWTs locally (no introspection); mode 'always' introspects them too", async () => {
    const jwt = signToken(key, claims({ iss: as.issuer }));
    as.answer(active());
    const local = await verifierWith().verify(jwt);
    expect(local.subject).toBe('user-42');
    expect(as.seen).toHaveLength(0);

    as.answer({ active: false });
    await expectAuthError(verifierWith({ mode: 'always' }).verify(jwt), invalidToken('inactive'));
    expect(as.seen).toHaveLength(1);
    expect(as.seen[0]!.params.get('token')).toBe(jwt);
  });

  it("E13: mode 'delegated' verifies JWTs locally and asks the issuer only about those with act, on every request", async () => {
    const verifier = verifierWith({ mode: 'delegated' });
    const plain = signToken(key, claims({ iss: as.issuer }));
    const delegated = signToken(
      key,
      claims({ iss: as.issuer, act: { sub: 'support-7' }, roles: ['viewer'] }),
    );
    as.answer(active({ act: { sub: 'support-7' } }));
    expect((await verifier.verify(plain)).subject).toBe('user-42');
    expect(as.seen).toHaveLength(0);
    // The local result stands (the JWT's own claims, roles included); the issuer only confirms it is active.
    const info = await verifier.verify(delegated, { roles: 'viewer' });
    expect(info).toMatchObject({ subject: 'user-42', delegated: true, actor: { sub: 'support-7' } });
    await verifier.verify(delegated);
    expect(as.seen.map((request) => request.params.get('token'))).toEqual([delegated, delegated]);
    // Ended at the issuer: refused at the next request, although its signature and exp are still good.
    as.answer({ active: false });
    await expectAuthError(verifier.verify(delegated), invalidToken('inactive'));
    expect((await verifier.verify(plain)).subject).toBe('user-42');
    // A bad JWT is refused by the local checks before anything is sent.
    as.seen.length = 0;
    await expectAuthError(verifier.verify(`${delegated.slice(0, -4)}AAAA`), invalidToken('signature'));
    expect(as.seen).toHaveLength(0);
    // An outage is a 503, not a pass.
    as.answer((_req, res) => res.writeHead(500).end());
    await expect(verifier.verify(delegated)).rejects.toBeInstanceOf(IntrospectionUnavailableError);
  });

  it("mode 'delegated' asks on every request: a cacheMaxAge other than 0 is refused", () => {
    expect(() => verifierWith({ mode: 'delegated', cacheMaxAge: 5_000 })).toThrow(
      /introspection\.cacheMaxAge.*must be 0 in "delegated" mode/,
    );
    expect(() => verifierWith({ mode: 'sometimes' as never })).toThrow(/"opaque", "always" or "delegated"/);
  });

  it('E5: clientAuth replaces client_secret_basic (here client_secret_post), called with server and client', async () => {
    const calls: unknown[] = [];
    as.answer(active());
    const verifier = verifierWith({
      clientSecret: undefined,
      clientAuth: (server, client, body, headers) => {
        calls.push({ server, client });
        body.set('client_id', client.client_id);
        body.set('client_secret', 'posted-secret');
        headers.set('x-test', '1');
      },
    });
    await verifier.verify(OPAQUE);
    expect(calls).toEqual([
      {
        server: { issuer: as.issuer, introspection_endpoint: as.endpoint },
        client: { client_id: 'orders-api' },
      },
    ]);
    const [request] = as.seen;
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.headers['x-test']).toBe('1');
    expect(request!.params.get('client_secret')).toBe('posted-secret');
  });
});

describe("oauth4webapi's client authentications fit clientAuth", () => {
  it('E5: PrivateKeyJwt sends a private_key_jwt assertion for the issuer, signed by the key', async () => {
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ]);
    as.answer(active());
    await verifierWith({ clientSecret: undefined, clientAuth: oauth.PrivateKeyJwt(pair.privateKey) }).verify(
      OPAQUE,
    );
    const [request] = as.seen;
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.params.get('client_assertion_type')).toBe(
      'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    );
    const { payload } = await jwtVerify(request!.params.get('client_assertion')!, pair.publicKey);
    expect(payload).toMatchObject({ iss: 'orders-api', sub: 'orders-api', aud: as.issuer });
  });

  it('E5: ClientSecretPost sends the id and secret in the form', async () => {
    as.answer(active());
    await verifierWith({ clientSecret: undefined, clientAuth: oauth.ClientSecretPost(SECRET) }).verify(
      OPAQUE,
    );
    const [request] = as.seen;
    expect(request!.params.get('client_id')).toBe('orders-api');
    expect(request!.params.get('client_secret')).toBe(SECRET);
  });
});

describe('E6: answers are cached no longer than exp nor cacheMaxAge, and shared', () => {
  it('E6: an active answer is reused within cacheMaxAge, then asked again', async () => {
    as.answer(active());
    const verifier = verifierWith({ cacheMaxAge: 10_000 });
    await verifier.verify(OPAQUE);
    await verifier.verify(OPAQUE);
    expect(as.seen).toHaveLength(1);
    const start = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => start + 11_000);
    await verifier.verify(OPAQUE);
    expect(as.seen).toHaveLength(2);
  });

  it("E6: never past the token's exp, even with a longer cacheMaxAge", async () => {
    as.answer(active({ exp: now() + 3 }));
    const verifier = verifierWith({ cacheMaxAge: 600_000 });
    await verifier.verify(OPAQUE);
    const start = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => start + 3_000 + 6_000); // exp + clock tolerance (5 s)
    await expectAuthError(verifier.verify(OPAQUE), invalidToken('expired'));
    expect(as.seen).toHaveLength(2);
  });

  it('E6: an inactive answer is never cached; cacheMaxAge 0 introspects every time', async () => {
    as.answer({ active: false });
    const verifier = verifierWith();
    await expectAuthError(verifier.verify(OPAQUE), invalidToken('inactive'));
    as.answer(active());
    await expect(verifier.verify(OPAQUE)).resolves.toMatchObject({ subject: 'user-42' });
    expect(as.seen).toHaveLength(2);

    const uncached = verifierWith({ cacheMaxAge: 0 });
    await uncached.verify(OPAQUE);
    await uncached.verify(OPAQUE);
    expect(as.seen).toHaveLength(4);
  });

  it("E6: 'always' mode reuses no answer unless cacheMaxAge is given", async () => {
    as.answer(active());
    const always = verifierWith({ mode: 'always' });
    await always.verify(OPAQUE);
    await always.verify(OPAQUE);
    expect(as.seen).toHaveLength(2);
    const cachedAlways = verifierWith({ mode: 'always', cacheMaxAge: 5_000 });
    await cachedAlways.verify(OPAQUE);
    await cachedAlways.verify(OPAQUE);
    expect(as.seen).toHaveLength(3);
  });

  it('E6: a token revoked after its answer was cached is refused once cacheMaxAge has passed', async () => {
    as.answer(active());
    const verifier = verifierWith({ cacheMaxAge: 2_000 });
    await verifier.verify(OPAQUE);
    as.answer({ active: false });
    await expect(verifier.verify(OPAQUE)).resolves.toBeDefined();
    const start = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => start + 2_500);
    await expectAuthError(verifier.verify(OPAQUE), invalidToken('inactive'));
  });

  it('E6: concurrent requests with one token share one introspection', async () => {
    as.answer((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(active()));
      }, 100);
    });
    const verifier = verifierWith();
    const results = await Promise.all(Array.from({ length: 20 }, () => verifier.verify(OPAQUE)));
    expect(new Set(results.map((r) => r.subject))).toEqual(new Set(['user-42']));
    expect(as.seen).toHaveLength(1);
    // Different tokens are not merged.
    await Promise.all([verifier.verify('token-a'), verifier.verify('token-b')]);
    expect(as.seen).toHaveLength(3);
  });
});

describe('E7: an unavailable introspection endpoint is a 503 with Retry-After', () => {
  const expect503 = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => expect.unreachable('resolved'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IntrospectionUnavailableError);
    const e = error as IntrospectionUnavailableError;
    expect(e.status).toBe(503);
    expect(e.headers).toEqual({ 'retry-after': '5' });
    expect(e.toJSON().error).toBe('temporarily_unavailable');
    return e;
  };

  it('E7: a 5xx, a 401 (our credentials refused), garbage, HTML, a JSON without active → 503', async () => {
    const verifier = verifierWith();
    const replies: Array<(res: import('node:http').ServerResponse) => void> = [
      (res) => res.writeHead(500).end(),
      (res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}'),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json'),
      (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>'),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"active":"true"}'),
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'),
      (res) => res.writeHead(302, { location: 'https://elsewhere.test/' }).end(),
    ];
    for (const reply of replies) {
      as.answer((_req, res) => reply(res));
      await expect503(verifier.verify(OPAQUE));
    }
  });

  it('E7: a slow endpoint (past the timeout) → 503, and the request does not hang', async () => {
    as.answer(() => {}); // never answers
    const verifier = verifierWith({ timeout: 200 });
    const started = Date.now();
    const error = await expect503(verifier.verify(OPAQUE));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(String((error as { cause?: unknown }).cause)).toMatch(/no response within 200 ms/);
  });

  it('E7: an endpoint nobody listens on → 503; the endpoint back → served again', async () => {
    const down = await refusedOrigin();
    await expect503(verifierWith({ endpoint: `${down}/introspect` }).verify(OPAQUE));
    as.answer(active());
    await expect(verifierWith({ endpoint: as.endpoint }).verify(OPAQUE)).resolves.toBeDefined();
  });

  it('E7: metadata that cannot be had → 503 (and no token is sent anywhere)', async () => {
    const empty = await startServer();
    try {
      const verifier = createVerifier({
        issuer: `${empty.origin}/oidc`,
        audience: AUDIENCE,
        onWarning: false,
        introspection: { clientId: 'orders-api', clientSecret: SECRET },
      });
      await expect503(verifier.verify(OPAQUE));
      // Answered at once from the failed state, without asking again before Retry-After.
      const hits = empty.total();
      await expect503(verifier.verify(OPAQUE));
      expect(empty.total()).toBe(hits);
    } finally {
      await empty.close();
    }
  });
});

describe('E8: tokens go only to a configured or trusted endpoint; credentials never leak', () => {
  it('E8: a discovered introspection_endpoint on another origin is refused and never called', async () => {
    const elsewhere = await startServer();
    try {
      as.metadata({ introspection_endpoint: `${elsewhere.origin}/oidc/token/introspection` });
      const error = await verifierWith()
        .verify(OPAQUE)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IntrospectionUnavailableError);
      expect(String((error as { cause?: unknown }).cause)).toMatch(/issuer's origin/);
      expect(elsewhere.total()).toBe(0);
      expect(as.seen).toHaveLength(0);
    } finally {
      as.metadata({ introspection_endpoint: as.endpoint });
      await elsewhere.close();
    }
  });

  it('E8: without the introspection option an opaque token is malformed, and nothing is requested', async () => {
    const verifier = createVerifier({ issuer: as.issuer, audience: AUDIENCE, onWarning: false });
    const before = as.server.total();
    await expectAuthError(verifier.verify(OPAQUE), invalidToken('malformed'));
    expect(as.server.total()).toBe(before);
  });

  it('E8: the secret and the token appear in no error, cause, header or serialized form', async () => {
    const leaks = (error: unknown) => {
      const e = error as IntrospectionUnavailableError | InvalidTokenError;
      const text = [
        e.message,
        e.stack,
        JSON.stringify(e),
        JSON.stringify(e.headers),
        String((e as { cause?: unknown }).cause),
        (e as { cause?: { stack?: string } }).cause?.stack,
      ].join('\n');
      return text.includes(SECRET) || text.includes(OPAQUE) || text.includes(encodeURIComponent(SECRET));
    };
    const replies = [
      (res: import('node:http').ServerResponse) => res.writeHead(500).end(OPAQUE + SECRET),
      (res: import('node:http').ServerResponse) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"token":"${OPAQUE}"`),
      (res: import('node:http').ServerResponse) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ active: false })),
    ];
    for (const reply of replies) {
      as.answer((_req, res) => reply(res));
      const error = await verifierWith()
        .verify(OPAQUE)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(leaks(error)).toBe(false);
    }
    const throwing = verifierWith({
      clientSecret: undefined,
      clientAuth: () => {
        throw new Error(`cannot sign with ${SECRET}`);
      },
    });
    const error = await throwing.verify(OPAQUE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntrospectionUnavailableError);
    expect(leaks(error)).toBe(false);
    // The resolved options hold no secret either.
    expect(JSON.stringify(verifierWith().options)).not.toContain(SECRET);
  });
});

describe('E15: the new errors carry nothing of the token', () => {
  it('E15: an inactive or unavailable answer for a token full of quotes and line breaks has clean headers', async () => {
    const nasty = 'tok"en\\with\r\nheader: injected';
    const verifier = verifierWith();
    as.answer({ active: false });
    const inactive = await expectAuthError(verifier.verify(nasty), invalidToken('inactive'));
    as.answer((_req, res) => res.writeHead(503).end());
    const down = await verifier.verify(nasty).catch((e: unknown) => e as IntrospectionUnavailableError);
    for (const error of [inactive, down as IntrospectionUnavailableError]) {
      for (const value of Object.values(error.headers)) {
        expect(value).not.toMatch(/[\r\n\\]|tok"en|injected/);
        expect(value.replace(/="[^"]*"/g, '')).not.toContain('"');
      }
    }
    expect(as.seen.at(-1)!.params.get('token')).toBe(nasty);
  });
});

describe('RFC 9701: JWT introspection answers, verified with the issuer keys', () => {
  const signAnswer = (
    payload: Record<string, unknown>,
    header: Record<string, unknown> = {},
    signer = key,
  ) => {
    const h = b64url(
      JSON.stringify({ alg: signer.alg, kid: signer.kid, typ: 'token-introspection+jwt', ...header }),
    );
    const input = `${h}.${b64url(JSON.stringify(payload))}`;
    return `${input}.${b64url(rawSign(signer.alg, signer.privateKey, input))}`;
  };
  const replyJwt = (jwt: string) =>
    as.answer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/token-introspection+jwt; charset=utf-8' }).end(jwt);
    });
  const envelope = (extra: Record<string, unknown> = {}) => ({
    iss: as.issuer,
    aud: 'orders-api',
    iat: now(),
    token_introspection: active(),
    ...extra,
  });

  beforeAll(() => as.metadata({ introspection_signing_alg_values_supported: ['ES256'] }));
  afterAll(() => as.metadata({ introspection_signing_alg_values_supported: undefined }));

  it('E19: asks for a JWT when the issuer offers it, and accepts a signed answer', async () => {
    replyJwt(signAnswer(envelope()));
    const info = await verifierWith().verify(OPAQUE);
    expect(info.subject).toBe('user-42');
    expect(as.seen[0]!.headers.accept).toMatch(/^application\/token-introspection\+jwt/);
  });

  it('E19: a JWT answer signed by another key, for another client, from another issuer or of another typ → 503', async () => {
    const forged = makeKey('ES256', 'not-the-issuer');
    const bad = [
      signAnswer(envelope(), {}, { ...forged, kid: key.kid }), // the issuer's kid, another key
      signAnswer(envelope({ aud: 'someone-else' })),
      signAnswer(envelope({ iss: 'https://evil.test' })),
      signAnswer(envelope(), { typ: 'JWT' }),
      signAnswer(envelope({ token_introspection: 'yes' })),
      `${signAnswer(envelope()).slice(0, -4)}AAAA`,
    ];
    const verifier = verifierWith({ cacheMaxAge: 0 });
    for (const jwt of bad) {
      replyJwt(jwt);
      const error = await verifier.verify(OPAQUE).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IntrospectionUnavailableError);
    }
  });

  it('E19: a JWT answer signed with a key the issuer does not publish → 503 saying so', async () => {
    replyJwt(signAnswer(envelope(), {}, makeKey('ES256', 'unpublished')));
    const error = await verifierWith()
      .verify(OPAQUE)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntrospectionUnavailableError);
    expect(String((error as { cause?: unknown }).cause)).toMatch(/no key of the issuer matches/);
  });

  it('E19: an inactive JWT answer → 401 inactive', async () => {
    replyJwt(signAnswer(envelope({ token_introspection: { active: false } })));
    await expectAuthError(verifierWith().verify(OPAQUE), invalidToken('inactive'));
  });
});

describe('options', () => {
  const make =
    (introspection: unknown, extra: Record<string, unknown> = {}) =>
    () =>
      createVerifier({
        issuer: 'https://id.example.com/oidc',
        audience: AUDIENCE,
        introspection,
        ...extra,
      } as VerifierOptions);

  it('refuses unknown keys with a did-you-mean, and bad values naming the option', () => {
    expect(make({ clientId: 'a', clientSecret: 'b', mdoe: 'always' })).toThrow(
      /introspection\.mdoe.*introspection\.mode/,
    );
    expect(make({ clientSecret: 'b' })).toThrow(/"introspection.clientId" option/);
    expect(make({ clientId: 'a' })).toThrow(/exactly one of "clientSecret" and "clientAuth"/);
    expect(make({ clientId: 'a', clientSecret: 'b', clientAuth: () => {} })).toThrow(/exactly one/);
    expect(make({ clientId: 'a', clientAuth: 'private_key_jwt' })).toThrow(
      /"introspection.clientAuth" option/,
    );
    expect(make({ clientId: 'a', clientSecret: 'b', mode: 'sometimes' })).toThrow(
      /"introspection.mode" option/,
    );
    expect(make({ clientId: 'a', clientSecret: 'b', cacheMaxAge: -1 })).toThrow(
      /"introspection.cacheMaxAge"/,
    );
    expect(make({ clientId: 'a', clientSecret: 'b', timeout: 0 })).toThrow(/"introspection.timeout"/);
    expect(make({ clientId: 'a', clientSecret: 'b', endpoint: 'http://id.example.com/introspect' })).toThrow(
      /"introspection.endpoint" option must use https:/,
    );
    expect(make('yes')).toThrow(/"introspection" option must be an object/);
    expect(
      make(
        { clientId: 'a', clientSecret: 'b' },
        { issuer: ['https://a.test', 'https://b.test'], jwksUri: 'https://a.test/jwks' },
      ),
    ).toThrow(/"introspection.endpoint" option is required when several issuers/);
  });

  it('never echoes the secret in a validation error', () => {
    expect(make({ clientId: 'a', clientSecret: SECRET, mode: 'x' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(SECRET) }),
    );
  });
});
