/**
 * `@gatehouse/hono` on a real Hono app served by `@hono/node-server` on loopback: extraction, core
 * call, `c.get('auth')`, scopes, anonymous and no-delegation routes, RFC 9728 metadata, DPoP passed
 * through, and errors as `HTTPException`s whose response is core's `errorResponse()`. The full table
 * runs against Hono on Node, Bun and workerd in adapter-conformance.
 */
import type { AddressInfo } from 'node:net';
import {
  type AuthError,
  errorResponse,
  InsufficientScopeError,
  isAuthError,
  MissingTokenError,
  resourceMetadataUrl,
} from '@gatehouse/core';
import { createDpopProof, createTestIssuer, generateDpopKey, type TestIssuer } from '@gatehouse/testing';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireAuth, requireScope } from '../src/index.js';

const AUDIENCE = 'https://api.gatehouse.test';
let issuer: TestIssuer;
const servers: ServerType[] = [];

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const options = () => ({ ...issuer.verifierOptions(), fetch: issuer.fetch });

function start(app: Hono): Promise<string> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
    servers.push(server);
  });
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

function ordersApp(auth = requireAuth(options())): Hono {
  const app = new Hono();
  app.use('/orders/*', auth);
  app.get('/orders/mine', (c) =>
    c.json({ subject: c.get('auth')?.subject, actor: c.get('auth')?.actor?.sub }),
  );
  app.get('/orders/scoped', requireScope('read:orders'), (c) => c.json({ ok: true }));
  app.get('/orders/any', requireScope(['admin', 'read:orders'], { mode: 'any' }), (c) =>
    c.json({ ok: true }),
  );
  app.get('/orders/direct', requireScope('read:orders', { allowDelegation: false }), (c) =>
    c.json({ ok: true }),
  );
  return app;
}

describe('requireAuth', () => {
  it('sets c.get("auth") for a valid token', async () => {
    const base = await start(ordersApp());
    const token = await issuer.sign({ sub: 'user-1', act: { sub: 'support-7' } });
    const res = await fetch(`${base}/orders/mine`, bearer(token));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ subject: 'user-1', actor: 'support-7' });
  });

  it('answers a request without a token with exactly core’s errorResponse()', async () => {
    const auth = requireAuth(options());
    const base = await start(ordersApp(auth));
    const res = await fetch(`${base}/orders/mine`);
    const expected = errorResponse(new MissingTokenError(auth.verifier.context));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(expected.headers.get('www-authenticate'));
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(await expected.text());
  });

  it('refuses a bad token with invalid_token, never a 500', async () => {
    const base = await start(ordersApp());
    const res = await fetch(`${base}/orders/mine`, bearer(await issuer.tokens.expired()));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('optional: lets an anonymous request through, still refuses a bad token', async () => {
    const app = new Hono();
    app.use(requireAuth({ ...options(), optional: true }));
    app.get('/', (c) => c.json({ anonymous: c.get('auth') === undefined }));
    const base = await start(app);
    expect(await (await fetch(base)).json()).toEqual({ anonymous: true });
    expect((await fetch(base, bearer('not-a-jwt'))).status).toBe(401);
  });

  it('allowDelegation: false refuses an impersonation token with 403 access_denied', async () => {
    const app = new Hono();
    app.use(requireAuth({ ...options(), allowDelegation: false }));
    app.get('/', (c) => c.json({ ok: true }));
    const base = await start(app);
    const res = await fetch(base, bearer(await issuer.sign({ act: { sub: 'support-7' } })));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'access_denied' });
    expect((await fetch(base, bearer(await issuer.sign()))).status).toBe(200);
  });

  it('serves the RFC 9728 document without a token when resourceMetadata is set', async () => {
    const app = new Hono();
    const verifierOptions = { ...options(), resourceMetadata: resourceMetadataUrl(AUDIENCE) };
    app.use(requireAuth({ ...verifierOptions, resourceMetadata: { resourceName: 'Orders' } }));
    app.get('/orders', (c) => c.json({ ok: true }));
    const base = await start(app);
    const res = await fetch(`${base}${new URL(resourceMetadataUrl(AUDIENCE)).pathname}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toMatchObject({ resource: AUDIENCE, resource_name: 'Orders' });
    const challenge = (await fetch(`${base}/orders`)).headers.get('www-authenticate');
    expect(challenge).toContain(`resource_metadata="${resourceMetadataUrl(AUDIENCE)}"`);
  });

  it('passes DPoP through: a bound token with a proof for the request URL is accepted', async () => {
    const key = await generateDpopKey();
    const base = await start(ordersApp());
    const token = await issuer.sign({ sub: 'user-1' }, { dpop: key });
    const url = `${base}/orders/mine`;
    const proof = createDpopProof({ key, method: 'GET', url, accessToken: token });
    const res = await fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    expect(res.status).toBe(200);
    const asBearer = await fetch(url, bearer(token));
    expect(asBearer.status).toBe(401);
    expect(await asBearer.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('throws HTTPException (cause: the AuthError) so app.onError can format it', async () => {
    const app = ordersApp();
    const seen: unknown[] = [];
    app.onError((err, c) => {
      seen.push(err);
      const cause = err instanceof HTTPException ? err.cause : undefined;
      return c.json(
        { custom: isAuthError(cause) ? cause.reason : 'other' },
        err instanceof HTTPException ? err.status : 500,
      );
    });
    const base = await start(app);
    const res = await fetch(`${base}/orders/mine`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ custom: 'missing_token' });
    expect(seen[0]).toBeInstanceOf(HTTPException);
  });

  it('handleErrors: false throws the AuthError itself to app.onError', async () => {
    const app = ordersApp(requireAuth({ ...options(), handleErrors: false }));
    let seen: AuthError | undefined;
    app.onError((err, c) => {
      seen = isAuthError(err) ? err : undefined;
      return c.text('handled', 418);
    });
    const base = await start(app);
    expect((await fetch(`${base}/orders/mine`)).status).toBe(418);
    expect(seen?.reason).toBe('missing_token');
  });
});

describe('requireScope', () => {
  it('403 insufficient_scope when a scope is missing; any-mode needs one', async () => {
    const auth = requireAuth(options());
    const base = await start(ordersApp(auth));
    const reader = await issuer.sign({ scope: 'read:orders' });
    const nobody = await issuer.sign({ scope: 'profile' });
    expect((await fetch(`${base}/orders/scoped`, bearer(reader))).status).toBe(200);
    expect((await fetch(`${base}/orders/any`, bearer(reader))).status).toBe(200);
    const res = await fetch(`${base}/orders/scoped`, bearer(nobody));
    const expected = new InsufficientScopeError(['read:orders'], 'all', auth.verifier.context);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(expected.wwwAuthenticate);
    expect(await res.json()).toEqual(expected.toJSON());
  });

  it('allowDelegation: false on the route refuses an impersonation token', async () => {
    const base = await start(ordersApp());
    const token = await issuer.sign({ scope: 'read:orders', act: { sub: 'support-7' } });
    expect((await fetch(`${base}/orders/direct`, bearer(token))).status).toBe(403);
  });

  it('without requireAuth before it, fails loudly (a programming error, not a 401)', async () => {
    const app = new Hono();
    app.get('/', requireScope('read:orders'), (c) => c.json({ ok: true }));
    let message = '';
    app.onError((err, c) => {
      message = err.message;
      return c.text('misconfigured', 500);
    });
    const base = await start(app);
    expect((await fetch(base)).status).toBe(500);
    expect(message).toMatch(/must run after requireAuth/);
  });

  it('validates its arguments at creation', () => {
    expect(() => requireScope('read:orders', { mode: 'some' as never })).toThrow(TypeError);
    expect(() => requireAuth({ ...options(), optinal: true } as never)).toThrow(/did you mean "optional"/);
  });
});

describe('auth.requireScope() and auth.requireRole(): requireAuth and the requirement in one middleware', () => {
  it('answers as requireAuth followed by requireScope: 200, 403 insufficient_scope, 401 without a token', async () => {
    const auth = requireAuth(options());
    const app = new Hono();
    app.get('/orders', auth.requireScope('read:orders'), (c) => c.json({ subject: c.get('auth')?.subject }));
    app.get('/any', auth.requireScope(['admin', 'read:orders'], { mode: 'any' }), (c) => c.json({}));
    app.get('/reports', auth.requireRole('auditor'), (c) => c.json({ roles: c.get('auth')?.roles }));
    const base = await start(app);
    const reader = await issuer.sign({ sub: 'u-1', scope: 'read:orders', roles: ['auditor'] });
    const nobody = await issuer.sign({ scope: 'profile' });
    expect(await (await fetch(`${base}/orders`, bearer(reader))).json()).toEqual({ subject: 'u-1' });
    expect((await fetch(`${base}/any`, bearer(reader))).status).toBe(200);
    expect(await (await fetch(`${base}/reports`, bearer(reader))).json()).toEqual({ roles: ['auditor'] });

    const refused = await fetch(`${base}/orders`, bearer(nobody));
    const expected = new InsufficientScopeError(['read:orders'], 'all', auth.verifier.context);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(expected.wwwAuthenticate);
    expect(await refused.json()).toEqual(expected.toJSON());
    expect((await fetch(`${base}/reports`, bearer(nobody))).status).toBe(403);

    const anonymous = await fetch(`${base}/orders`);
    const missing = new MissingTokenError(auth.verifier.context);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(missing.wwwAuthenticate);
  });

  it('needs a token even when requireAuth is optional, as requireScope after it does', async () => {
    const auth = requireAuth({ ...options(), optional: true });
    const app = new Hono();
    app.get('/open', auth, (c) => c.json({ anonymous: c.get('auth') === undefined }));
    app.get('/scoped', auth.requireScope('read:orders'), (c) => c.json({ ok: true }));
    const base = await start(app);
    expect(await (await fetch(`${base}/open`)).json()).toEqual({ anonymous: true });
    expect((await fetch(`${base}/scoped`)).status).toBe(401);
  });

  it('lets a delegated token through only when requireAuth and the route both allow it', async () => {
    const strict = requireAuth({ ...options(), allowDelegation: false });
    const lenient = requireAuth(options());
    const app = new Hono();
    app.get('/strict', strict.requireScope('read:orders', { allowDelegation: true }), (c) => c.json({}));
    app.get('/route', lenient.requireScope('read:orders', { allowDelegation: false }), (c) => c.json({}));
    app.get('/open', lenient.requireScope('read:orders'), (c) => c.json({}));
    const base = await start(app);
    const delegated = await issuer.sign({ scope: 'read:orders', act: { sub: 'support-7' } });
    for (const path of ['/strict', '/route']) {
      const res = await fetch(`${base}${path}`, bearer(delegated));
      const body = (await res.json()) as { error?: string };
      expect([path, res.status, body.error]).toEqual([path, 403, 'access_denied']);
    }
    expect((await fetch(`${base}/open`, bearer(delegated))).status).toBe(200);
  });

  it('does not serve the metadata document (auth.metadata does), and validates its arguments at creation', async () => {
    const verifierOptions = { ...options(), resourceMetadata: resourceMetadataUrl(AUDIENCE) };
    const auth = requireAuth({ ...verifierOptions, resourceMetadata: { resourceName: 'Orders' } });
    const path = new URL(resourceMetadataUrl(AUDIENCE)).pathname;
    const app = new Hono();
    app.get(path, auth.requireScope('read:orders'), (c) => c.json({ handler: true }));
    const res = await fetch(`${await start(app)}${path}`);
    expect(res.status).toBe(401);
    expect(() => auth.requireScope('read:orders', { mode: 'some' as never })).toThrow(TypeError);
    expect(() => auth.requireScope('')).toThrow(TypeError);
    expect(() => auth.requireRole([])).toThrow(TypeError);
    expect(() => auth.requireScope('read:orders', { alowDelegation: false } as never)).toThrow(
      /did you mean "allowDelegation"/,
    );
  });

  it('with handleErrors: false, throws the AuthError itself to app.onError', async () => {
    const auth = requireAuth({ ...options(), handleErrors: false });
    const app = new Hono();
    app.onError((err, c) => c.json({ scope: err instanceof InsufficientScopeError }, 418));
    app.get('/orders', auth.requireScope('read:orders'), (c) => c.json({}));
    const res = await fetch(`${await start(app)}/orders`, bearer(await issuer.sign({ scope: 'profile' })));
    expect([res.status, await res.json()]).toEqual([418, { scope: true }]);
  });
});
