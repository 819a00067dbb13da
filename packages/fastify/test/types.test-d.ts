import type { AuthInfo, Verifier } from '@gatehouse/core';
import Fastify from 'fastify';
import { describe, expectTypeOf, it } from 'vitest';
import gatehouse, { type GatehouseHook } from '../src/index.js';

declare const verifier: Verifier;

describe('@gatehouse/fastify types', () => {
  it('types request.auth and the instance decorators through declaration merging', async () => {
    const app = Fastify();
    await app.register(gatehouse, { verifier });
    expectTypeOf(app.requireAuth).toEqualTypeOf<GatehouseHook>();
    expectTypeOf(app.optionalAuth).toEqualTypeOf<GatehouseHook>();
    expectTypeOf(app.requireScope('a', { mode: 'any' })).toEqualTypeOf<GatehouseHook>();
    expectTypeOf(app.gatehouseVerifier).toEqualTypeOf<Verifier>();

    app.get('/orders', { onRequest: [app.requireAuth, app.requireScope('read:orders')] }, async (request) => {
      expectTypeOf(request.auth).toEqualTypeOf<AuthInfo | undefined>();
      return { user: request.auth?.subject };
    });
    app.get<{ Querystring: { page: string } }>('/typed', { preHandler: app.requireAuth }, async (request) => {
      expectTypeOf(request.query.page).toEqualTypeOf<string>();
      expectTypeOf(request.auth).toEqualTypeOf<AuthInfo | undefined>();
      return {};
    });
    app.addHook('onRequest', app.requireAuth);
  });

  it('rejects invalid options at compile time', async () => {
    const app = Fastify();
    // @ts-expect-error a shared verifier cannot be mixed with verifier options
    await app.register(gatehouse, { verifier, issuer: 'https://id.example.com' });
    // @ts-expect-error issuer and audience are required without a shared verifier
    await app.register(gatehouse, { handleErrors: false });
    // @ts-expect-error mode is 'all' or 'any'
    app.requireScope('a', { mode: 'some' });
  });
});
