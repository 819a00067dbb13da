/**
 * Express 5 middleware: `requireAuth()` builds a `RequestLike`, calls the core verifier and sets
 * `req.auth`; `requireScope()` and `requireRole()` check the verified token against a route's scopes
 * and roles. Every failure is
 * an `AuthError` from core, answered with its status, headers and JSON body, or passed to `next(err)`.
 *
 * @module
 */

import {
  callOptions,
  isAuthError,
  MissingTokenError,
  type RequestLike,
  resolveAdapterOptions,
  resolveRoleRequirement,
  resolveScopeRequirement,
  type Verifier,
  type VerifyOptions,
} from '@gatehouse/core';
import { nodeRequestLike } from '@gatehouse/core/node';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type {
  Middleware,
  RequireAuthHandler,
  RequireAuthOptions,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';

/** What `requireScope()` and `requireRole()` need from the `requireAuth()` that ran before it on the same request. */
interface Guard {
  readonly verifier: Verifier;
  readonly handleErrors: boolean;
}

const guards = new WeakMap<Request, Guard>();

/** The request as core sees it (core's Node view; Express 5's `protocol` and `host` follow "trust proxy"). */
const toRequestLike = (req: Request, origin: string | undefined): RequestLike =>
  nodeRequestLike(req, {
    origin,
    query: req.query,
    body: req.body,
    location: () => ({ protocol: req.protocol, host: req.host, target: req.originalUrl }),
  });

function reject(err: unknown, guard: Guard, res: Response, next: NextFunction): void {
  if (!guard.handleErrors || !isAuthError(err)) {
    next(err);
    return;
  }
  res.status(err.status).set(err.headers).json(err.toJSON());
}

/**
 * Protect routes with a bearer access token. Sets `req.auth` to the verified {@link AuthInfo}.
 * Mounted with `app.use()`, it also serves the RFC 9728 document when `resourceMetadata` is set.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { requireAuth, requireScope } from '@gatehouse/express';
 *
 * const app = express();
 * const auth = requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
 * app.get('/orders', auth, requireScope('read:orders'), (req, res) => {
 *   res.json({ user: req.auth?.subject });
 * });
 * ```
 */
export function requireAuth(options: RequireAuthOptions): RequireAuthHandler {
  const { verifier, metadata, optional, allowDelegation, handleErrors, origin, warmUp } =
    resolveAdapterOptions(options);
  // Failures are reported through the verifier's onWarning; `await auth.ready()` to fail the boot.
  if (warmUp) verifier.warmUp().catch(() => {});
  const guard: Guard = Object.freeze({ verifier, handleErrors });

  const serveMetadata: RequestHandler = (req, res, next) => {
    if (metadata === undefined || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    if (req.originalUrl.split('?', 1)[0] !== metadata.path) return next();
    res.set(metadata.headers).json(metadata.document);
  };

  const call = callOptions({ optional, allowDelegation });
  const authenticate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    guards.set(req, guard);
    try {
      req.auth = await verifier.authenticate(toRequestLike(req, origin), call);
    } catch (err) {
      return reject(err, guard, res, next);
    }
    next();
  };

  // Without metadata to serve, requests go straight to authenticate(): no per-request wrapper.
  const handler: RequestHandler =
    metadata === undefined
      ? authenticate
      : (req, res, next) => serveMetadata(req, res, () => authenticate(req, res, next));
  return Object.assign(handler as Middleware, {
    verifier,
    metadata: serveMetadata as Middleware,
    ready: () => verifier.warmUp(),
  });
}

/**
 * Require scopes of the token verified by a preceding {@link requireAuth}: 403 `insufficient_scope`
 * when they are not granted, 401 for an anonymous request.
 *
 * @example
 * ```ts
 * app.delete('/orders/:id', auth, requireScope(['orders:admin', 'orders:write'], { mode: 'any' }), handler);
 * app.post('/refunds', auth, requireScope('refunds:create', { allowDelegation: false }), handler);
 * ```
 */
export function requireScope(scopes: string | readonly string[], options?: RequireScopeOptions): Middleware {
  return authorizeRoute(resolveScopeRequirement(scopes, options), 'requireScope');
}

/**
 * Require roles (the token's `roles` claim) of the token verified by a preceding {@link requireAuth}:
 * 403 `insufficient_scope` (reason `insufficient_role`) when they are not held, 401 for an anonymous
 * request. A string is one role name; `mode: 'any'` needs one of the listed roles.
 *
 * @example
 * ```ts
 * app.get('/reports', auth, requireRole('auditor'), handler);
 * app.delete('/orders/:id', auth, requireRole(['admin', 'order-desk'], { mode: 'any' }), handler);
 * ```
 */
export function requireRole(roles: string | readonly string[], options?: RequireRoleOptions): Middleware {
  return authorizeRoute(resolveRoleRequirement(roles, options), 'requireRole');
}

/** The middleware of `requireScope()` and `requireRole()`: `call` checked against `req.auth`. */
function authorizeRoute(call: VerifyOptions, name: string): Middleware {
  const handler: RequestHandler = (req, res, next) => {
    const guard = guards.get(req);
    if (guard === undefined) {
      next(new Error(`${name}() must run after requireAuth() on the same route`));
      return;
    }
    try {
      if (req.auth === undefined) throw new MissingTokenError(guard.verifier.context);
      guard.verifier.authorize(req.auth, call);
    } catch (err) {
      return reject(err, guard, res, next);
    }
    next();
  };
  return handler as Middleware;
}
