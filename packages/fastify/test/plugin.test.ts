import { connect } from 'node:net';
import { AuthError, createVerifier, resourceMetadataUrl, type Verifier } from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import gatehouse, { type GatehouseOptions } from '../src/index.js';

const AUDIENCE = 'https://api.gatehouse.test';
let issuer: TestIssuer;
let fetches = 0;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function verifierOptions() {
  return {
    ...issuer.verifierOptions(),
    fetch: ((input, init) => {
      fetches++;
      return issuer.fetch(input, init);
    }) as typeof fetch,
  };
}

async function build(options: GatehouseOptions = verifierOptions()): Promise<FastifyInstance> {
  const app = Fastify();
  apps.push(app);
  await app.register(gatehouse, options);
  return app;
}

const start = (app: FastifyInstance) => app.listen({ host: '127.0.0.1', port: 0 });
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

/** Send raw request bytes (an absolute-form target, HTTP/1.0 without Host) and read until the server closes. */
function sendRaw(base: string, request: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** A shared verifier that records the `url` of every request an adapter hands it. */
function recordingVerifier(): { verifier: Verifier; urls: (string | undefined)[] } {
  const shared = createVerifier(verifierOptions());
  const urls: (string | undefined)[] = [];
  const authenticate = ((request, options) => {
    urls.push(request.url);
    return shared.authenticate(request, options);
  }) as Verifier['authenticate'];
  return { verifier: { ...shared, authenticate }, urls };
}

/** Raw requests, and the URL core must get for each: Host or origin, then the target's path and query. */
const RAW_REQUESTS = [
  ['GET /me?x=1 HTTP/1.1\r\nHost: h.test:8080\r\nConnection: close\r\n\r\n', 'http://h.test:8080/me?x=1'],
  // absolute-form (RFC 9112 §3.2.2): only its path and query count
  [
    'GET http://evil.test:9/me?x=1 HTTP/1.1\r\nHost: h.test\r\nConnection: close\r\n\r\n',
    'http://h.test/me?x=1',
  ],
  // HTTP/1.0 without Host: no origin is known, so no URL (never "http://undefined/me" or "http:///me")
  ['GET /me HTTP/1.0\r\n\r\n', undefined],
  ['GET http://evil.test/pinned?y=2 HTTP/1.0\r\n\r\n', 'https://api.example.test/pinned?y=2'],
  ['GET /pinned HTTP/1.0\r\n\r\n', 'https://api.example.test/pinned'],
] as const;

describe('gatehouse plugin', () => {
  it('verifies the token in an onRequest hook and sets request.auth', async () => {
    const app = await build();
    app.get('/me', { onRequest: app.requireAuth }, async (request) => ({
      sub: request.auth?.subject,
      scopes: request.auth?.scopes,
    }));
    const res = await fetch(
      `${await start(app)}/me`,
      bearer(await issuer.sign({ sub: 'alice', scope: 'read:orders' })),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: 'alice', scopes: ['read:orders'] });
  });

  it('answers an AuthError through the reply with status, WWW-Authenticate and a JSON body', async () => {
    let reached = false;
    const app = await build();
    app.get('/me', { onRequest: app.requireAuth }, async () => {
      reached = true;
      return {};
    });
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.tokens.expired()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="api", error="invalid_token"/);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token has expired',
    });
    expect(reached).toBe(false);
  });

  it('works as a preHandler hook, after the body is parsed', async () => {
    const app = await build({ ...verifierOptions(), tokenSources: { body: true } });
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );
    app.post('/form', { preHandler: app.requireAuth }, async (request) => ({ sub: request.auth?.subject }));
    const res = await fetch(`${await start(app)}/form`, {
      method: 'POST',
      body: new URLSearchParams({ access_token: await issuer.sign({ sub: 'carol' }) }),
    });
    expect(await res.json()).toEqual({ sub: 'carol' });
  });

  it('lets anonymous requests through optionalAuth and refuses delegated tokens where asked', async () => {
    const app = await build();
    app.get('/feed', { onRequest: app.optionalAuth }, async (request) => ({
      anonymous: request.auth === undefined,
    }));
    app.get('/admin', { onRequest: [app.requireAuth, app.refuseDelegation] }, async () => ({}));
    const url = await start(app);
    expect(await (await fetch(`${url}/feed`)).json()).toEqual({ anonymous: true });
    expect((await fetch(`${url}/feed`, bearer('not.a.jwt'))).status).toBe(401);
    const admin = await fetch(`${url}/admin`, bearer(await issuer.impersonation('agent-7')));
    expect(admin.status).toBe(403);
    expect(await admin.json()).toMatchObject({ error: 'access_denied' });
  });

  it('refuses delegated tokens everywhere with allowDelegation: false', async () => {
    const app = await build({ ...verifierOptions(), allowDelegation: false });
    app.get('/me', { onRequest: app.requireAuth }, async () => ({}));
    expect(
      (await fetch(`${await start(app)}/me`, bearer(await issuer.impersonation('agent-7')))).status,
    ).toBe(403);
  });

  it('shares a verifier given as { verifier } and exposes it as app.gatehouseVerifier', async () => {
    const verifier = createVerifier(verifierOptions());
    const app = await build({ verifier });
    expect(app.gatehouseVerifier).toBe(verifier);
    app.get('/a', { onRequest: app.requireAuth }, async () => ({}));
    app.get('/b', { onRequest: app.optionalAuth }, async () => ({}));
    const url = await start(app);
    const before = fetches;
    expect((await fetch(`${url}/a`, bearer(await issuer.sign()))).status).toBe(200);
    expect((await fetch(`${url}/b`, bearer(await issuer.sign({ sub: 'bob' })))).status).toBe(200);
    expect(fetches - before).toBe(1); // the JWKS, once for both
  });

  it('fails registration with a TypeError naming a bad option', async () => {
    const app = Fastify();
    apps.push(app);
    await expect(
      app.register(gatehouse, { ...verifierOptions(), handleErrors: 'no' } as never),
    ).rejects.toThrow('"handleErrors" option must be a boolean');
  });
});

describe('error takeover (handleErrors: false)', () => {
  it("throws the AuthError to the application's setErrorHandler", async () => {
    const seen: unknown[] = [];
    const app = await build({ ...verifierOptions(), handleErrors: false });
    app.setErrorHandler((err: AuthError, _request, reply) => {
      seen.push(err);
      return reply.code(err.status).headers(err.headers).send({ problem: err.reason });
    });
    app.get('/orders', { onRequest: [app.requireAuth, app.requireScope('write:orders')] }, async () => ({}));
    const url = await start(app);

    const missing = await fetch(`${url}/orders`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"',
    );
    expect(await missing.json()).toEqual({ problem: 'missing_token' });

    const scope = await fetch(`${url}/orders`, bearer(await issuer.sign({ scope: 'read:orders' })));
    expect(scope.status).toBe(403);
    expect(scope.headers.get('www-authenticate')).toContain('scope="write:orders"');
    expect(await scope.json()).toEqual({ problem: 'insufficient_scope' });
    expect(seen.every((err) => err instanceof AuthError)).toBe(true);
  });

  it("keeps status and WWW-Authenticate through Fastify's default error handler", async () => {
    const app = await build({ ...verifierOptions(), handleErrors: false });
    app.get('/me', { onRequest: app.requireAuth }, async () => ({}));
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.tokens.wrongAudience()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({
      statusCode: 401,
      message: 'The access token is not intended for this resource',
    });
  });

  it('rethrows errors that are not AuthErrors even when handling errors', async () => {
    const real = createVerifier(verifierOptions());
    const broken: Verifier = { ...real, authenticate: () => Promise.reject(new Error('boom')) } as Verifier;
    const app = await build({ verifier: broken });
    app.get('/me', { onRequest: app.requireAuth }, async () => ({}));
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.sign()));
    expect(res.status).toBe(500);
  });
});

describe('requireScope', () => {
  it('checks all or any of the scopes, and answers 401 for an anonymous request', async () => {
    const app = await build();
    app.get('/all', { onRequest: [app.optionalAuth, app.requireScope('a b')] }, async () => ({}));
    app.get(
      '/any',
      { preHandler: [app.optionalAuth, app.requireScope(['a', 'b'], { mode: 'any' })] },
      async () => ({}),
    );
    const url = await start(app);
    const onlyA = bearer(await issuer.sign({ scope: 'a' }));
    expect((await fetch(`${url}/all`, onlyA)).status).toBe(403);
    expect((await fetch(`${url}/any`, onlyA)).status).toBe(200);
    const anonymous = await fetch(`${url}/any`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"',
    );
  });

  it('throws a TypeError for bad arguments when the hook is created', async () => {
    const app = await build();
    expect(() => app.requireScope('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
  });

  it('is a server error when no requireAuth ran before it', async () => {
    const app = await build();
    app.get('/x', { onRequest: app.requireScope('a') }, async () => ({}));
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign({ scope: 'a' })));
    expect(res.status).toBe(500);
  });
});

describe('RFC 9728 metadata', () => {
  const resourceMetadata = { scopesSupported: ['read:orders'] };
  const path = '/.well-known/oauth-protected-resource';

  it('is served without a token, even under a global auth hook, and named in challenges', async () => {
    const app = await build({ ...verifierOptions(), resourceMetadata });
    app.addHook('onRequest', app.requireAuth);
    app.addHook('onRequest', app.requireScope('read:orders'));
    app.get('/me', async () => ({}));
    const url = await start(app);

    const doc = await fetch(`${url}${path}`);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('access-control-allow-origin')).toBe('*');
    expect(await doc.json()).toEqual({
      resource: AUDIENCE,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
      scopes_supported: ['read:orders'],
    });
    expect((await fetch(`${url}${path}?x=1`, { method: 'HEAD' })).status).toBe(200);

    const challenge = (await fetch(`${url}/me`)).headers.get('www-authenticate');
    expect(challenge).toBe(
      `Bearer realm="api", resource_metadata="${resourceMetadataUrl(AUDIENCE)}", DPoP realm="api", algs="ES256 EdDSA RS256 PS256", resource_metadata="${resourceMetadataUrl(AUDIENCE)}"`,
    );
  });

  it('works with a shared verifier created with the metadata URL', async () => {
    const verifier = createVerifier({
      ...verifierOptions(),
      resourceMetadata: resourceMetadataUrl(AUDIENCE),
    });
    const app = await build({ verifier, resourceMetadata });
    expect((await fetch(`${await start(app)}${path}`)).status).toBe(200);
  });

  it('is not served without resourceMetadata, and global hooks still guard every path', async () => {
    const app = await build();
    app.addHook('onRequest', app.requireAuth);
    expect((await fetch(`${await start(app)}${path}`)).status).toBe(401);
  });
});

describe('the request URL passed to core (DPoP htu)', () => {
  it('is the Host or the origin option with the path and query; an absolute-form target gives only its path; none without a Host', async () => {
    const { verifier, urls } = recordingVerifier();
    const app = await build({ verifier });
    app.get('/me', { onRequest: app.requireAuth }, async () => ({}));
    const pinned = Fastify();
    apps.push(pinned);
    await pinned.register(gatehouse, { verifier, origin: 'https://api.example.test' });
    pinned.get('/pinned', { onRequest: pinned.requireAuth }, async () => ({}));
    const url = await start(app);
    const pinnedUrl = await start(pinned);
    for (const [request] of RAW_REQUESTS)
      expect(await sendRaw(request.includes('pinned') ? pinnedUrl : url, request)).toMatch(
        /^HTTP\/1\.1 401 /,
      );
    expect(urls).toEqual(RAW_REQUESTS.map(([, expected]) => expected));
  });
});
