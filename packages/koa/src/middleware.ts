/**
 * Koa 3 middleware: `requireAuth()` builds a `RequestLike`, calls the core verifier and sets
 * `ctx.state.auth`; `requireScope()` checks the verified token against a route's scopes. Every failure
 * is an `AuthError` from core, answered with its status, headers and JSON body, or thrown.
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
import type { Context, Middleware } from 'koa';
import type {
  RequireAuthMiddleware,
  RequireAuthOptions,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';

/** What `requireScope()` and `requireRole()` need from the `requireAuth()` that ran before it on the same request. */
interface Guard {
  readonly verifier: Verifier;
  readonly handleErrors: boolean;
}

const guards = new WeakMap<Context, Guard>();

/** The request as core sees it (core's Node view; Koa's `protocol` and `host` follow `app.proxy`). */
const toRequestLike = (ctx: Context, origin: string | undefined): RequestLike =>
  nodeRequestLike(ctx.req, {
    origin,
    query: ctx.query,
    body: (ctx.request as { body?: unknown }).body,
    location: () => ({ protocol: ctx.protocol, host: ctx.host, target: ctx.originalUrl }),
  });

function reject(err: unknown, guard: Guard, ctx: Context): void {
  if (!guard.handleErrors || !isAuthError(err)) throw err;
  ctx.status = err.status;
  ctx.set(err.headers);
  ctx.body = err.toJSON();
}

/**
 * Protect routes with a bearer access token. Sets `ctx.state.auth` to the verified {@link AuthInfo}.
 * Mounted with `app.use()`, it also serves the RFC 9728 document when `resourceMetadata` is set.
 *
 * @example
 * ```ts
 * import Koa from 'koa';
 * import { requireAuth, requireScope } from '@gatehouse/koa';
 *
 * const app = new Koa();
 * app.use(requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' }));
 * app.use(requireScope('read:orders'));
 * app.use((ctx) => {
 *   ctx.body = { user: ctx.state.auth?.subject };
 * });
 * ```
 */
export function requireAuth(options: RequireAuthOptions): RequireAuthMiddleware {
  const { verifier, metadata, optional, allowDelegation, handleErrors, origin, warmUp } =
    resolveAdapterOptions(options);
  // Failures are reported through the verifier's onWarning; `await auth.ready()` to fail the boot.
  if (warmUp) verifier.warmUp().catch(() => {});
  const guard: Guard = Object.freeze({ verifier, handleErrors });

  const serveMetadata: Middleware = async (ctx, next) => {
    if (metadata === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    if (ctx.originalUrl.split('?', 1)[0] !== metadata.path) return next();
    ctx.set(metadata.headers);
    ctx.body = metadata.document;
  };

  const call = callOptions({ optional, allowDelegation });
  const protect: Middleware = async (ctx, next) => {
    guards.set(ctx, guard);
    try {
      ctx.state.auth = await verifier.authenticate(toRequestLike(ctx, origin), call);
    } catch (err) {
      return reject(err, guard, ctx);
    }
    await next();
  };

  // Without metadata to serve, requests go straight to protect(): no per-request wrapper.
  const middleware: Middleware =
    metadata === undefined ? protect : (ctx, next) => serveMetadata(ctx, () => protect(ctx, next));
  return Object.assign(middleware, {
    verifier,
    metadata: serveMetadata,
    ready: () => verifier.warmUp(),
  });
}

/**
 * Require scopes of the token verified by a preceding {@link requireAuth}: 403 `insufficient_scope`
 * when they are not granted, 401 for an anonymous request.
 *
 * @example
 * ```ts
 * router.delete('/orders/:id', auth, requireScope(['orders:admin', 'orders:write'], { mode: 'any' }), handler);
 * router.post('/refunds', auth, requireScope('refunds:create', { allowDelegation: false }), handler);
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
 * router.get('/reports', auth, requireRole('auditor'), handler);
 * router.delete('/orders/:id', auth, requireRole(['admin', 'order-desk'], { mode: 'any' }), handler);
 * ```
 */
export function requireRole(roles: string | readonly string[], options?: RequireRoleOptions): Middleware {
  return authorizeRoute(resolveRoleRequirement(roles, options), 'requireRole');
}

/** The middleware of `requireScope()` and `requireRole()`: `call` checked against `ctx.state.auth`. */
function authorizeRoute(call: VerifyOptions, name: string): Middleware {
  return async (ctx, next) => {
    const guard = guards.get(ctx);
    if (guard === undefined) throw new Error(`${name}() must run after requireAuth() on the same route`);
    try {
      if (ctx.state.auth === undefined) throw new MissingTokenError(guard.verifier.context);
      guard.verifier.authorize(ctx.state.auth, call);
    } catch (err) {
      return reject(err, guard, ctx);
    }
    await next();
  };
}
