import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { AuthError, createVerifier, resourceMetadataUrl, type Verifier } from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import Router from '@koa/router';
import Koa from 'koa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth, requireScope } from '../src/index.js';

const AUDIENCE = 'https://api.gatehouse.test';
let issuer: TestIssuer;
let fetches = 0;
const servers: Server[] = [];

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
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

async function start(app: Koa): Promise<string> {
  app.silent = true;
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

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

describe('requireAuth', () => {
  it('verifies the token and sets ctx.state.auth', async () => {
    const app = new Koa();
    app.use(requireAuth(verifierOptions()));
    app.use((ctx) => {
      ctx.body = { sub: ctx.state.auth?.subject, scopes: ctx.state.auth?.scopes };
    });
    const res = await fetch(
      `${await start(app)}/me`,
      bearer(await issuer.sign({ sub: 'alice', scope: 'read:orders' })),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: 'alice', scopes: ['read:orders'] });
  });

  it('answers an AuthError itself and stops the chain', async () => {
    let reached = false;
    const app = new Koa();
    app.use(requireAuth(verifierOptions()));
    app.use(() => {
      reached = true;
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

  it('lets anonymous requests through in optional mode and refuses delegated tokens where asked', async () => {
    const verifier = createVerifier(verifierOptions());
    const router = new Router();
    router.get('/feed', requireAuth({ verifier, optional: true }), (ctx) => {
      ctx.body = { anonymous: ctx.state.auth === undefined };
    });
    router.get('/admin', requireAuth({ verifier, allowDelegation: false }), (ctx) => {
      ctx.body = {};
    });
    const app = new Koa();
    app.use(router.routes());
    const url = await start(app);
    expect(await (await fetch(`${url}/feed`)).json()).toEqual({ anonymous: true });
    expect((await fetch(`${url}/feed`, bearer('not.a.jwt'))).status).toBe(401);
    const admin = await fetch(`${url}/admin`, bearer(await issuer.impersonation('agent-7')));
    expect(admin.status).toBe(403);
    expect(await admin.json()).toMatchObject({ error: 'access_denied' });
  });

  it('does not treat errors thrown downstream as authentication errors', async () => {
    const app = new Koa();
    app.use(requireAuth(verifierOptions()));
    app.use(() => {
      throw Object.assign(new Error('conflict'), { status: 409, expose: true });
    });
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign()));
    expect(res.status).toBe(409);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('shares one verifier, and so one key cache, across middleware', async () => {
    const verifier = createVerifier(verifierOptions());
    const a = requireAuth({ verifier });
    const b = requireAuth({ verifier, optional: true });
    expect(a.verifier).toBe(verifier);
    expect(b.verifier).toBe(verifier);
    const router = new Router();
    router.get('/a', a, (ctx) => {
      ctx.body = {};
    });
    router.get('/b', b, (ctx) => {
      ctx.body = {};
    });
    const app = new Koa();
    app.use(router.routes());
    const url = await start(app);
    const before = fetches;
    expect((await fetch(`${url}/a`, bearer(await issuer.sign()))).status).toBe(200);
    expect((await fetch(`${url}/b`, bearer(await issuer.sign({ sub: 'bob' })))).status).toBe(200);
    expect(fetches - before).toBe(1); // the JWKS, once for both
  });
});

describe('error takeover (handleErrors: false)', () => {
  it('throws the AuthError, with status, headers and expose, to upstream middleware', async () => {
    const seen: unknown[] = [];
    const app = new Koa();
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        seen.push(err);
        const e = err as AuthError;
        ctx.status = e.status;
        ctx.set(e.headers);
        ctx.body = { problem: e.reason, expose: e.expose };
      }
    });
    app.use(requireAuth({ ...verifierOptions(), handleErrors: false }));
    app.use(requireScope('write:orders'));
    app.use((ctx) => {
      ctx.body = {};
    });
    const url = await start(app);

    const missing = await fetch(`${url}/orders`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"',
    );
    expect(await missing.json()).toEqual({ problem: 'missing_token', expose: true });

    const scope = await fetch(`${url}/orders`, bearer(await issuer.sign({ scope: 'read:orders' })));
    expect(scope.status).toBe(403);
    expect(scope.headers.get('www-authenticate')).toContain('scope="write:orders"');
    expect(await scope.json()).toEqual({ problem: 'insufficient_scope', expose: true });
    expect(seen.every((err) => err instanceof AuthError)).toBe(true);
  });

  it("keeps status, WWW-Authenticate and the exposed message through Koa's default error handling", async () => {
    const app = new Koa();
    app.use(requireAuth({ ...verifierOptions(), handleErrors: false }));
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.tokens.wrongAudience()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await res.text()).toBe('The access token is not intended for this resource');
  });

  it('rethrows errors that are not AuthErrors even when handling errors', async () => {
    const real = createVerifier(verifierOptions());
    const broken: Verifier = { ...real, authenticate: () => Promise.reject(new Error('boom')) } as Verifier;
    const app = new Koa();
    app.use(requireAuth({ verifier: broken }));
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.sign()));
    expect(res.status).toBe(500);
  });
});

describe('requireScope', () => {
  it('checks all or any of the scopes, and answers 401 for an anonymous request', async () => {
    const auth = requireAuth({ ...verifierOptions(), optional: true });
    const router = new Router();
    const ok = (ctx: Koa.Context) => {
      ctx.body = {};
    };
    router.get('/all', auth, requireScope('a b'), ok);
    router.get('/any', auth, requireScope(['a', 'b'], { mode: 'any' }), ok);
    const app = new Koa();
    app.use(router.routes());
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

  it('is a server error when no requireAuth ran before it', async () => {
    const errors: Error[] = [];
    const app = new Koa();
    app.on('error', (err: Error) => errors.push(err));
    app.use(requireScope('a'));
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign({ scope: 'a' })));
    expect(res.status).toBe(500);
    expect(errors.map((e) => e.message)).toEqual([
      'requireScope() must run after requireAuth() on the same route',
    ]);
  });
});

describe('RFC 9728 metadata', () => {
  const resourceMetadata = { scopesSupported: ['read:orders'] };
  const path = '/.well-known/oauth-protected-resource';

  it('is served by app-level requireAuth, without a token, and named in challenges', async () => {
    const app = new Koa();
    app.use(requireAuth({ ...verifierOptions(), resourceMetadata }));
    app.use((ctx) => {
      ctx.body = {};
    });
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
    expect((await fetch(`${url}${path}`, { method: 'POST' })).status).toBe(401);

    const challenge = (await fetch(`${url}/me`)).headers.get('www-authenticate');
    expect(challenge).toBe(
      `Bearer realm="api", resource_metadata="${resourceMetadataUrl(AUDIENCE)}", DPoP realm="api", algs="ES256 EdDSA RS256 PS256", resource_metadata="${resourceMetadataUrl(AUDIENCE)}"`,
    );
  });

  it('is served by the .metadata middleware when requireAuth guards single routes', async () => {
    const verifier = createVerifier({
      ...verifierOptions(),
      resourceMetadata: resourceMetadataUrl(AUDIENCE),
    });
    const auth = requireAuth({ verifier, resourceMetadata });
    const router = new Router();
    router.get('/me', auth, (ctx) => {
      ctx.body = {};
    });
    router.get('/public', (ctx) => {
      ctx.body = { public: true };
    });
    const app = new Koa();
    app.use(auth.metadata);
    app.use(router.routes());
    const url = await start(app);
    expect((await fetch(`${url}${path}`)).status).toBe(200);
    expect(await (await fetch(`${url}/public`)).json()).toEqual({ public: true });
    expect((await fetch(`${url}/me`)).status).toBe(401);
  });

  it('is not served without resourceMetadata', async () => {
    const auth = requireAuth(verifierOptions());
    const app = new Koa();
    app.use(auth.metadata);
    app.use(auth);
    expect((await fetch(`${await start(app)}${path}`)).status).toBe(401);
  });
});

describe('the request URL passed to core (DPoP htu)', () => {
  it('is the Host or the origin option with the path and query; an absolute-form target gives only its path; none without a Host', async () => {
    const { verifier, urls } = recordingVerifier();
    const router = new Router();
    router.get('/me', requireAuth({ verifier }), (ctx) => {
      ctx.body = {};
    });
    router.get('/pinned', requireAuth({ verifier, origin: 'https://api.example.test' }), (ctx) => {
      ctx.body = {};
    });
    const app = new Koa();
    app.use(router.routes());
    const url = await start(app);
    for (const [request] of RAW_REQUESTS) expect(await sendRaw(url, request)).toMatch(/^HTTP\/1\.1 401 /);
    expect(urls).toEqual(RAW_REQUESTS.map(([, expected]) => expected));
  });
});
