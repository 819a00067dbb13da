import type { AuthInfo, Verifier } from '@gatehouse/core';
import Router from '@koa/router';
import Koa, { type DefaultState, type Middleware } from 'koa';
import { describe, expectTypeOf, it } from 'vitest';
import { type RequireAuthMiddleware, requireAuth, requireScope } from '../src/index.js';

declare const verifier: Verifier;

describe('@gatehouse/koa types', () => {
  it('types ctx.state.auth through declaration merging', () => {
    const app = new Koa();
    app.use(requireAuth({ verifier }));
    app.use((ctx) => {
      expectTypeOf(ctx.state.auth).toEqualTypeOf<AuthInfo | undefined>();
      expectTypeOf(ctx.state.auth!.scopes).toEqualTypeOf<readonly string[]>();
      ctx.body = { user: ctx.state.auth?.subject };
    });
    // An app with its own state type includes DefaultState to keep `auth`.
    const typed = new Koa<DefaultState & { tenant: string }>();
    typed.use(requireAuth({ verifier }));
    typed.use((ctx) => {
      expectTypeOf(ctx.state.tenant).toEqualTypeOf<string>();
      expectTypeOf(ctx.state.auth).toEqualTypeOf<AuthInfo | undefined>();
    });
    const router = new Router();
    router.get('/orders', requireAuth({ verifier }), requireScope('read:orders'), (ctx) => {
      expectTypeOf(ctx.state.auth).toEqualTypeOf<AuthInfo | undefined>();
    });
  });

  it('returns middleware carrying its verifier and a metadata middleware', () => {
    const auth = requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
    expectTypeOf(auth).toEqualTypeOf<RequireAuthMiddleware>();
    expectTypeOf(auth).toExtend<Middleware>();
    expectTypeOf(auth.verifier).toEqualTypeOf<Verifier>();
    expectTypeOf(auth.metadata).toEqualTypeOf<Middleware>();
    expectTypeOf(requireScope('a')).toEqualTypeOf<Middleware>();
  });

  it('rejects invalid options at compile time', () => {
    // @ts-expect-error a shared verifier cannot be mixed with verifier options
    requireAuth({ verifier, audience: 'https://api.example.com' });
    // @ts-expect-error issuer and audience are required without a shared verifier
    requireAuth({ optional: true });
    // @ts-expect-error mode is 'all' or 'any'
    requireScope('a', { mode: 'some' });
  });
});
