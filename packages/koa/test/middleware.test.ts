/**
 * What every adapter does alike (answers and challenges, anonymous and no-delegation routes, scopes,
 * RFC 9728 metadata, the request URL for DPoP) is proven once, on real servers, by the conformance
 * table in packages/adapter-conformance. This file keeps what is Koa's own: error takeover, a shared
 * verifier, hooks and mounting.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, createVerifier, type Verifier } from '@gatehouse/core';
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

describe('requireAuth', () => {
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
  const path = '/.well-known/oauth-protected-resource';

  it('is not served without resourceMetadata', async () => {
    const auth = requireAuth(verifierOptions());
    const app = new Koa();
    app.use(auth.metadata);
    app.use(auth);
    expect((await fetch(`${await start(app)}${path}`)).status).toBe(401);
  });
});
