import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { AuthError, createVerifier, resourceMetadataUrl, type Verifier } from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import express, { type ErrorRequestHandler, type Express } from 'express';
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

async function start(app: Express): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
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
  it('verifies the token and sets req.auth', async () => {
    const app = express();
    app.get('/me', requireAuth(verifierOptions()), (req, res) => {
      res.json({ sub: req.auth?.subject, scopes: req.auth?.scopes, token: req.auth?.token === undefined });
    });
    const url = await start(app);
    const res = await fetch(`${url}/me`, bearer(await issuer.sign({ sub: 'alice', scope: 'read:orders' })));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: 'alice', scopes: ['read:orders'], token: false });
  });

  it('answers an AuthError itself with status, WWW-Authenticate and a JSON body', async () => {
    const app = express();
    app.use(requireAuth(verifierOptions()));
    app.get('/me', (_req, res) => res.json({ reached: true }));
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.tokens.expired()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="api", error="invalid_token"/);
    expect(await res.json()).toEqual({
      error: 'invalid_token',
      error_description: 'The access token has expired',
    });
  });

  it('lets anonymous requests through in optional mode, leaving req.auth undefined', async () => {
    const app = express();
    app.get('/feed', requireAuth({ ...verifierOptions(), optional: true }), (req, res) => {
      res.json({ anonymous: req.auth === undefined });
    });
    const url = await start(app);
    expect(await (await fetch(`${url}/feed`)).json()).toEqual({ anonymous: true });
    expect((await fetch(`${url}/feed`, bearer('not.a.jwt'))).status).toBe(401);
  });

  it('refuses delegated tokens when allowDelegation is false', async () => {
    const app = express();
    app.get('/admin', requireAuth({ ...verifierOptions(), allowDelegation: false }), (_req, res) =>
      res.json({}),
    );
    const res = await fetch(`${await start(app)}/admin`, bearer(await issuer.impersonation('agent-7')));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'access_denied' });
  });

  it('shares one verifier, and so one key cache, across middleware', async () => {
    const verifier = createVerifier(verifierOptions());
    const a = requireAuth({ verifier });
    const b = requireAuth({ verifier, optional: true });
    expect(a.verifier).toBe(verifier);
    expect(b.verifier).toBe(verifier);
    const app = express();
    app.get('/a', a, (_req, res) => res.json({}));
    app.get('/b', b, (_req, res) => res.json({}));
    const url = await start(app);
    const before = fetches;
    expect((await fetch(`${url}/a`, bearer(await issuer.sign()))).status).toBe(200);
    expect((await fetch(`${url}/b`, bearer(await issuer.sign({ sub: 'bob' })))).status).toBe(200);
    expect(fetches - before).toBe(1); // the JWKS, once for both
  });

  it('reads form-body tokens when enabled, with a body parser in front', async () => {
    const app = express();
    app.post(
      '/form',
      express.urlencoded({ extended: false }),
      requireAuth({ ...verifierOptions(), tokenSources: { body: true } }),
      (req, res) => {
        res.json({ sub: req.auth?.subject });
      },
    );
    const res = await fetch(`${await start(app)}/form`, {
      method: 'POST',
      body: new URLSearchParams({ access_token: await issuer.sign({ sub: 'carol' }) }),
    });
    expect(await res.json()).toEqual({ sub: 'carol' });
  });
});

describe('error takeover (handleErrors: false)', () => {
  it('passes the AuthError, with status and headers, to the application error handler', async () => {
    const seen: unknown[] = [];
    const app = express();
    app.get(
      '/orders',
      requireAuth({ ...verifierOptions(), handleErrors: false }),
      requireScope('write:orders'),
      (_req, res) => res.json({}),
    );
    const format: ErrorRequestHandler = (err, _req, res, _next) => {
      seen.push(err);
      res.status(err.status).set(err.headers).json({ problem: err.reason });
    };
    app.use(format);
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

  it("keeps status and WWW-Authenticate through Express's default error handler", async () => {
    const app = express();
    app.get('/me', requireAuth({ ...verifierOptions(), handleErrors: false }), (_req, res) => res.json({}));
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.tokens.wrongAudience()));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('passes errors that are not AuthErrors on even when handling errors', async () => {
    const real = createVerifier(verifierOptions());
    const broken: Verifier = { ...real, authenticate: () => Promise.reject(new Error('boom')) } as Verifier;
    const app = express();
    app.get('/me', requireAuth({ verifier: broken }), (_req, res) => res.json({}));
    app.use(((err, _req, res, _next) =>
      res.status(500).json({ message: err.message })) as ErrorRequestHandler);
    const res = await fetch(`${await start(app)}/me`, bearer(await issuer.sign()));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: 'boom' });
  });
});

describe('requireScope', () => {
  it('checks all or any of the scopes, and answers 401 for an anonymous request', async () => {
    const auth = requireAuth({ ...verifierOptions(), optional: true });
    const app = express();
    app.get('/all', auth, requireScope('a b'), (_req, res) => res.json({}));
    app.get('/any', auth, requireScope(['a', 'b'], { mode: 'any' }), (_req, res) => res.json({}));
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
    const app = express();
    app.get('/x', requireScope('a'), (_req, res) => res.json({}));
    app.use(((err, _req, res, _next) =>
      res.status(500).json({ message: err.message })) as ErrorRequestHandler);
    const res = await fetch(`${await start(app)}/x`, bearer(await issuer.sign({ scope: 'a' })));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      message: 'requireScope() must run after requireAuth() on the same route',
    });
  });
});

describe('RFC 9728 metadata', () => {
  const resourceMetadata = { scopesSupported: ['read:orders'] };
  const path = '/.well-known/oauth-protected-resource';

  it('is served by app-level requireAuth, without a token, and named in challenges', async () => {
    const app = express();
    app.use(requireAuth({ ...verifierOptions(), resourceMetadata }));
    app.get('/me', (_req, res) => res.json({}));
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

  it('is served by the .metadata handler when requireAuth guards single routes', async () => {
    const verifier = createVerifier({
      ...verifierOptions(),
      resourceMetadata: resourceMetadataUrl(AUDIENCE),
    });
    const auth = requireAuth({ verifier, resourceMetadata });
    const app = express();
    app.use(auth.metadata);
    app.get('/me', auth, (_req, res) => res.json({}));
    app.get('/public', (_req, res) => res.json({ public: true }));
    const url = await start(app);
    expect((await fetch(`${url}${path}`)).status).toBe(200);
    expect(await (await fetch(`${url}/public`)).json()).toEqual({ public: true });
    expect((await fetch(`${url}/me`)).status).toBe(401);
  });

  it('is not served without resourceMetadata', async () => {
    const auth = requireAuth(verifierOptions());
    const app = express();
    app.use(auth.metadata);
    app.use(auth);
    expect((await fetch(`${await start(app)}${path}`)).status).toBe(401);
  });
});

describe('the request URL passed to core (DPoP htu)', () => {
  it('is the Host or the origin option with the path and query; an absolute-form target gives only its path; none without a Host', async () => {
    const { verifier, urls } = recordingVerifier();
    const app = express();
    app.get('/me', requireAuth({ verifier }), (_req, res) => res.json({}));
    app.get('/pinned', requireAuth({ verifier, origin: 'https://api.example.test' }), (_req, res) =>
      res.json({}),
    );
    const url = await start(app);
    for (const [request] of RAW_REQUESTS) expect(await sendRaw(url, request)).toMatch(/^HTTP\/1\.1 401 /);
    expect(urls).toEqual(RAW_REQUESTS.map(([, expected]) => expected));
  });
});
