import type { AuthInfo, Verifier } from '@gatehouse/core';
import { Hono, type MiddlewareHandler } from 'hono';
import { describe, expectTypeOf, it } from 'vitest';
import { type RequireAuthHandler, requireAuth, requireScope } from '../src/index.js';

declare const verifier: Verifier;

describe('@gatehouse/hono types', () => {
  it("types c.get('auth') through ContextVariableMap", () => {
    const app = new Hono();
    app.use(requireAuth({ verifier }));
    app.get('/orders/:id', requireScope('read:orders'), (c) => {
      expectTypeOf(c.get('auth')).toEqualTypeOf<AuthInfo | undefined>();
      expectTypeOf(c.get('auth')?.actor?.sub).toEqualTypeOf<string | undefined>();
      expectTypeOf(c.req.param('id')).toEqualTypeOf<string>();
      return c.json({ user: c.get('auth')?.subject });
    });
  });

  it('returns middleware carrying its verifier', () => {
    const auth = requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
    expectTypeOf(auth).toEqualTypeOf<RequireAuthHandler>();
    expectTypeOf(auth).toExtend<MiddlewareHandler>();
    expectTypeOf(auth.verifier).toEqualTypeOf<Verifier>();
    expectTypeOf(requireScope('a', { mode: 'any' })).toExtend<MiddlewareHandler>();
    expectTypeOf(
      auth.requireScope('a', { mode: 'any', allowDelegation: false }),
    ).toExtend<MiddlewareHandler>();
    expectTypeOf(auth.requireRole(['admin'], { mode: 'any' })).toExtend<MiddlewareHandler>();
  });

  it("types c.get('auth') after auth.requireScope()", () => {
    const auth = requireAuth({ verifier });
    new Hono().get('/orders', auth.requireScope('read:orders'), (c) => {
      expectTypeOf(c.get('auth')).toEqualTypeOf<AuthInfo | undefined>();
      return c.json({ user: c.get('auth')?.subject });
    });
  });
});
