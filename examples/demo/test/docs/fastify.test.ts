/**
 * The Fastify samples of README.md and docs/adapters.md, answering real requests (`app.inject`).
 */
import { createVerifier, isAuthError } from '@gatehouse/core';
import gatehouse from '@gatehouse/fastify';
import Fastify, { type RouteHandlerMethod } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer();

// README.md and docs/adapters.md, at the top level as in a real module:
const app = Fastify();
await app.register(gatehouse, { issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });

app.get('/orders', { onRequest: [app.requireAuth, app.requireScope('read:orders')] }, async (request) => {
  return { orders: [], for: request.auth?.subject }; // request.auth: the verified token
});
afterAll(() => app.close());

const verifier = createVerifier({
  issuer: 'https://id.example.com/oidc',
  audience: 'https://api.example.com',
});

async function ownErrors() {
  const app = Fastify();
  await app.register(gatehouse, { verifier, handleErrors: false });
  app.setErrorHandler((err, _request, reply) => {
    if (!isAuthError(err)) return reply.send(err);
    return reply.code(err.status).headers(err.headers).send({ code: err.reason, message: err.description });
  });
  app.get('/orders', { onRequest: app.requireAuth }, async () => []);
  return app;
}

const handler: RouteHandlerMethod = async (_request, reply) => reply.code(201).send({ ok: true });

async function payouts() {
  const app = Fastify();
  await app.register(gatehouse, { verifier });
  app.post(
    '/payouts',
    { onRequest: [app.requireAuth, app.requireScope('payouts:create', { allowDelegation: false })] },
    handler,
  );
  return app;
}

describe('Fastify samples', () => {
  it('protect a route: 200 with read:orders, 403 without it, 401 without a token', async () => {
    const ok = await app.inject({
      url: '/orders',
      headers: bearer(await issuer.sign({ sub: 'customer-42', scope: 'read:orders' })),
    });
    expect([ok.statusCode, ok.json()]).toEqual([200, { orders: [], for: 'customer-42' }]);
    const denied = await app.inject({
      url: '/orders',
      headers: bearer(await issuer.sign({ scope: 'profile' })),
    });
    expect([denied.statusCode, denied.json().error]).toEqual([403, 'insufficient_scope']);
    expect((await app.inject({ url: '/orders' })).statusCode).toBe(401);
  });

  it('taking over error formatting: setErrorHandler writes the answer', async () => {
    const app = await ownErrors();
    const res = await app.inject({ url: '/orders', headers: bearer(await issuer.tokens.expired()) });
    expect([res.statusCode, res.json().code]).toEqual([401, 'expired']);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    await app.close();
  });

  it('refuses impersonation tokens on payouts with 403 access_denied', async () => {
    const app = await payouts();
    const own = await issuer.sign({ scope: 'payouts:create' });
    const acting = await issuer.impersonation('support-7', { scope: 'payouts:create' });
    expect((await app.inject({ method: 'POST', url: '/payouts', headers: bearer(own) })).statusCode).toBe(
      201,
    );
    const refused = await app.inject({ method: 'POST', url: '/payouts', headers: bearer(acting) });
    expect([refused.statusCode, refused.json().error]).toEqual([403, 'access_denied']);
    await app.close();
  });
});
