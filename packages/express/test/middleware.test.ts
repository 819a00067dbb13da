/**
 * What every adapter does alike (answers and challenges, anonymous and no-delegation routes, scopes,
 * RFC 9728 metadata, the request URL for DPoP) is proven once, on real servers, by the conformance
 * table in packages/adapter-conformance. This file keeps what is Express's own: error takeover, a shared
 * verifier, hooks and mounting.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, createVerifier, type Verifier } from '@gatehouse/core';
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

describe('requireAuth', () => {
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
  const path = '/.well-known/oauth-protected-resource';

  it('is not served without resourceMetadata', async () => {
    const auth = requireAuth(verifierOptions());
    const app = express();
    app.use(auth.metadata);
    app.use(auth);
    expect((await fetch(`${await start(app)}${path}`)).status).toBe(401);
  });
});
