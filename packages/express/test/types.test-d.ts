import type { AuthInfo, Verifier } from '@gatehouse/core';
import express, { type RequestHandler } from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import { type Middleware, type RequireAuthHandler, requireAuth, requireScope } from '../src/index.js';

declare const verifier: Verifier;

describe('@gatehouse/express types', () => {
  it('types req.auth on every Express request through declaration merging', () => {
    const app = express();
    app.get('/orders', requireAuth({ verifier }), requireScope('read:orders'), (req, res) => {
      expectTypeOf(req.auth).toEqualTypeOf<AuthInfo | undefined>();
      expectTypeOf(req.auth!.subject).toEqualTypeOf<string | undefined>();
      res.json({ user: req.auth?.subject });
    });
    app.get('/orders/:id', requireAuth({ verifier }), (req) => {
      expectTypeOf(req.params.id).toEqualTypeOf<string>();
      expectTypeOf(req.auth?.actor?.sub).toEqualTypeOf<string | undefined>();
    });
    const handler: RequestHandler = (req) => {
      expectTypeOf(req.auth).toEqualTypeOf<AuthInfo | undefined>();
    };
    expectTypeOf(handler).toBeFunction();
  });

  it('returns middleware carrying its verifier and a metadata handler', () => {
    const auth = requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
    expectTypeOf(auth).toEqualTypeOf<RequireAuthHandler>();
    expectTypeOf(auth).toExtend<RequestHandler>();
    expectTypeOf(auth).toExtend<RequestHandler<{ id: string }, { ok: boolean }, { note: string }>>();
    expectTypeOf(auth.verifier).toEqualTypeOf<Verifier>();
    expectTypeOf(auth.metadata).toEqualTypeOf<Middleware>();
    expectTypeOf(requireScope('a')).toEqualTypeOf<Middleware>();
    expectTypeOf(requireScope('a')).toExtend<RequestHandler>();
  });

  it('rejects invalid options at compile time', () => {
    // @ts-expect-error a shared verifier cannot be mixed with verifier options
    requireAuth({ verifier, issuer: 'https://id.example.com' });
    // @ts-expect-error issuer and audience are required without a shared verifier
    requireAuth({ optional: true });
    // @ts-expect-error a shared verifier's metadata URL is set on the verifier
    requireAuth({ verifier, resourceMetadata: 'https://api.example.com/meta' });
    // @ts-expect-error mode is 'all' or 'any'
    requireScope('a', { mode: 'some' });
  });
});
