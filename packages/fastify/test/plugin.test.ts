/**
 * What every adapter does alike (answers and challenges, anonymous and no-delegation routes, scopes,
 * RFC 9728 metadata, the request URL for DPoP) is proven once, on real servers, by the conformance
 * table in packages/adapter-conformance. This file keeps what is Fastify's own: error takeover, a shared
 * verifier, hooks and mounting.
 */
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

describe('gatehouse plugin', () => {
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
