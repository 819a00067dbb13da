/**
 * With passport's types in the same program (`@types/passport` declares `Express.AuthInfo` and
 * `Express.User`), `req.auth` is still core's `AuthInfo`, not passport's: found by the interop suite
 * (packages/interop/test/passport.test.ts), where an app uses both.
 */
import type { AuthInfo, Verifier } from '@gatehouse/core';
import express from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import { requireAuth } from '../src/index.js';

declare global {
  namespace Express {
    // What @types/passport declares.
    interface AuthInfo {
      readonly fromPassport?: true;
    }
  }
}

declare const verifier: Verifier;

describe('@gatehouse/express beside passport', () => {
  it("types req.auth as core's AuthInfo, not passport's Express.AuthInfo", () => {
    express().get('/orders', requireAuth({ verifier }), (req) => {
      expectTypeOf(req.auth).toEqualTypeOf<AuthInfo | undefined>();
      expectTypeOf(req.auth!.subject).toEqualTypeOf<string | undefined>();
    });
  });
});
