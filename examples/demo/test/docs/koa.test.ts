/**
 * The Koa samples of README.md and docs/adapters.md, answering real requests (supertest).
 */

import { createVerifier, isAuthError } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/koa';
import Router from '@koa/router';
import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer, useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer();

function quickstart() {
  const app = new Koa();
  app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));
  app.use(requireScope('read:orders'));
  app.use((ctx) => {
    ctx.body = { orders: [], for: ctx.state.auth?.subject }; // ctx.state.auth: the verified token
  });
  return app;
}

const verifier = createVerifier({
  issuer: 'https://id.example.com/oidc',
  audience: 'https://api.example.com',
});

function ownErrors() {
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!isAuthError(err)) throw err;
      ctx.status = err.status;
      ctx.set(err.headers);
      ctx.body = { code: err.reason, message: err.description };
    }
  });
  app.use(requireAuth({ verifier, handleErrors: false }));
  app.use((ctx) => {
    ctx.body = [];
  });
  return app;
}

const handler: Koa.Middleware = (ctx) => {
  ctx.status = 201;
  ctx.body = { ok: true };
};

function payouts() {
  const app = new Koa();
  const router = new Router();
  const auth = requireAuth({ verifier });
  router.post('/payouts', auth, requireScope('payouts:create', { allowDelegation: false }), handler);
  app.use(router.routes());
  return app;
}

describe('Koa samples', () => {
  it('protect a route: 200 with read:orders, 403 without it, 401 without a token', async () => {
    const app = quickstart().callback();
    await request(app)
      .get('/orders')
      .set(bearer(await issuer.sign({ sub: 'customer-42', scope: 'read:orders' })))
      .expect(200, { orders: [], for: 'customer-42' });
    const denied = await request(app)
      .get('/orders')
      .set(bearer(await issuer.sign({ scope: 'profile' })));
    expect([denied.status, denied.body.error]).toEqual([403, 'insufficient_scope']);
    await request(app).get('/orders').expect(401);
  });

  it('taking over error formatting: the try/catch middleware writes the answer', async () => {
    const res = await request(ownErrors().callback())
      .get('/orders')
      .set(bearer(await issuer.tokens.expired()));
    expect([res.status, res.body.code]).toEqual([401, 'expired']);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('refuses impersonation tokens on payouts with 403 access_denied', async () => {
    const app = payouts().callback();
    await request(app)
      .post('/payouts')
      .set(bearer(await issuer.sign({ scope: 'payouts:create' })))
      .expect(201);
    const acting = await issuer.impersonation('support-7', { scope: 'payouts:create' });
    const res = await request(app).post('/payouts').set(bearer(acting));
    expect([res.status, res.body.error]).toEqual([403, 'access_denied']);
  });
});
