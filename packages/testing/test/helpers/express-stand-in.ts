/**
 * A few-line stand-in for `@gatehouse/express` (`requireAuth(options)`, `requireScope(scopes)`), built on
 * core's verifier, so the guide's examples run as real Express tests inside this package.
 */
import {
  type AuthInfo,
  createVerifier,
  InsufficientScopeError,
  isAuthError,
  type VerifierOptions,
} from '@gatehouse/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

type AuthedRequest = Request & { auth?: AuthInfo };

function fail(res: Response, error: unknown, next: NextFunction): void {
  if (!isAuthError(error)) {
    next(error);
    return;
  }
  res.status(error.status).set(error.headers).json(error.toJSON());
}

export function requireAuth(options: VerifierOptions): RequestHandler {
  const verifier = createVerifier(options);
  return (req, res, next) => {
    verifier.authenticate(req).then(
      (auth) => {
        (req as AuthedRequest).auth = auth;
        next();
      },
      (error: unknown) => fail(res, error, next),
    );
  };
}

export function requireScope(...scopes: string[]): RequestHandler {
  return (req, res, next) => {
    const auth = (req as AuthedRequest).auth;
    if (auth?.hasScope(...scopes)) next();
    else fail(res, new InsufficientScopeError(scopes, 'all'), next);
  };
}
