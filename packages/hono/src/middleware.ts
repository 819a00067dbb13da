/**
 * Hono 4 middleware: `requireAuth()` hands the standard `Request` to the core verifier and sets
 * `c.get('auth')`; `requireScope()` checks the verified token against a route's scopes, and
 * `auth.requireScope()` does both in one middleware (one layer of Hono's chain). Every failure
 * is an `AuthError` from core, thrown as an `HTTPException` whose response is core's `errorResponse()`.
 * Runs on every runtime Hono runs on; on Node (`@hono/node-server`) the request is read from its
 * IncomingMessage as the other Node adapters read theirs (with the TLS client certificate of the
 * connection, for certificate-bound tokens).
 *
 * @module
 */
import {
  type AuthError,
  callOptions,
  errorResponse,
  isAuthError,
  MissingTokenError,
  peerCertificate,
  resolveAdapterOptions,
  resolveRoleRequirement,
  resolveScopeRequirement,
  type Verifier,
  type VerifyOptions,
} from '@gatehouse/core';
import type { NodeIncoming } from '@gatehouse/core/node';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { nodeRequest } from './node-request.js';
import type {
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

/**
 * Where `requireAuth()` leaves its guard on the request's Context: a symbol-keyed property, which costs
 * less per request than a `WeakMap` entry (no ephemeron for the garbage collector to trace).
 */
const GUARD = Symbol('gatehouse.guard');
type Guarded = Context & { [GUARD]?: Guard };

/**
 * An `AuthError` as Hono sees errors, as a rejection: an `HTTPException` answering with the RFC 6750
 * response. Anything else (or every error, without `handleErrors`) is passed on as it is.
 */
function refuse(err: unknown, guard: Guard): Promise<never> {
  if (!guard.handleErrors || !isAuthError(err)) return Promise.reject(err);
  const error: AuthError = err;
  return Promise.reject(
    new HTTPException(error.status as ConstructorParameters<typeof HTTPException>[0], {
      res: errorResponse(error),
      message: error.message,
      cause: error,
    }),
  );
}

/** The IncomingMessage when the app runs on `@hono/node-server` (duck-typed: no Node import here). */
function incomingOf(c: Context): NodeIncoming | undefined {
  const incoming = (c.env as { incoming?: Partial<NodeIncoming> } | undefined)?.incoming;
  return incoming !== undefined && Array.isArray(incoming.rawHeaders) && typeof incoming.headers === 'object'
    ? (incoming as NodeIncoming)
    : undefined;
}

/**
 * Protect routes with an access token. Sets `c.get('auth')` to the verified {@link AuthInfo}. Mounted
 * with `app.use()`, it also serves the RFC 9728 document when `resourceMetadata` is set. Its
 * `requireScope()` and `requireRole()` methods check a route's requirement in the same middleware
 * (one layer of Hono's middleware chain instead of two).
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { requireAuth, requireScope } from '@gatehouse/hono';
 *
 * const app = new Hono();
 * app.use('/orders/*', requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' }));
 * app.get('/orders', requireScope('read:orders'), (c) => c.json({ user: c.get('auth')?.subject }));
 *
 * // or, one middleware per route:
 * const auth = requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
 * app.get('/refunds', auth.requireScope('refunds:read'), (c) => c.json({ user: c.get('auth')?.subject }));
 * ```
 */
export function requireAuth(options: RequireAuthOptions): RequireAuthHandler {
  const { verifier, metadata, optional, allowDelegation, handleErrors, origin, warmUp } =
    resolveAdapterOptions(options);
  // Failures are reported through the verifier's onWarning; `await auth.ready()` to fail the boot.
  if (warmUp) verifier.warmUp().catch(() => {});
  const guard: Guard = Object.freeze({ verifier, handleErrors });
  const call: VerifyOptions = callOptions({ optional, allowDelegation });
  const view = Object.freeze({ origin });

  const serveMetadata = (c: Context): Response | undefined => {
    if (metadata === undefined || (c.req.method !== 'GET' && c.req.method !== 'HEAD')) return undefined;
    if (c.req.path !== metadata.path) return undefined;
    return new Response(JSON.stringify(metadata.document), {
      headers: { ...metadata.headers, 'content-type': 'application/json; charset=utf-8' },
    });
  };

  /**
   * The middleware authenticating with `checks` (the verifier's per-call options), serving the metadata
   * document first when `serve` is set. Not `async`: with a cached token the verifier answers now, and
   * the chain goes on without a promise of its own (a Hono app on Node answers a cached request in the
   * time of a bare one). Nothing is allocated per request but what the request itself needs.
   */
  const authenticateWith = (checks: VerifyOptions, serve: boolean): MiddlewareHandler => {
    const web = callOptions({ ...checks, origin });
    return (c, next) => {
      if (serve) {
        const served = serveMetadata(c);
        if (served !== undefined) return Promise.resolve(served);
      }
      (c as Guarded)[GUARD] = guard;
      let result: ReturnType<Verifier['authenticateNow']>;
      try {
        const incoming = incomingOf(c);
        if (incoming === undefined) result = verifier.authenticateNow(c.req.raw, web);
        else {
          const node = nodeRequest(incoming, view);
          result =
            node === undefined
              ? verifier.authenticateNow(c.req.raw, {
                  ...web,
                  clientCertificate: peerCertificate(incoming.socket),
                })
              : verifier.authenticateNow(node, checks);
        }
      } catch (err) {
        return refuse(err, guard);
      }
      if (result instanceof Promise)
        return result.then(
          (auth) => {
            c.set('auth', auth);
            return next();
          },
          (err: unknown) => refuse(err, guard),
        );
      c.set('auth', result);
      return next();
    };
  };

  /**
   * `requireAuth()` and a route requirement in one middleware: a route requirement needs a token (an
   * anonymous request is refused with 401, as `requireScope()` refuses it after an `optional`
   * `requireAuth()`), and delegated tokens pass only when both allow them.
   */
  const authorizeWith = (requirement: VerifyOptions): MiddlewareHandler =>
    authenticateWith(
      callOptions({
        ...requirement,
        optional: false,
        allowDelegation: allowDelegation && requirement.allowDelegation !== false,
      }),
      false,
    );

  const metadataOnly: MiddlewareHandler = async (c, next) => serveMetadata(c) ?? (await next());
  return Object.assign(authenticateWith(call, true), {
    verifier,
    metadata: metadataOnly,
    ready: () => verifier.warmUp(),
    requireScope: (scopes: string | readonly string[], options?: RequireScopeOptions) =>
      authorizeWith(resolveScopeRequirement(scopes, options)),
    requireRole: (roles: string | readonly string[], options?: RequireRoleOptions) =>
      authorizeWith(resolveRoleRequirement(roles, options)),
  });
}

/**
 * Require scopes of the token verified by a preceding {@link requireAuth}: 403 `insufficient_scope`
 * when they are not granted, 401 for an anonymous request.
 *
 * @example
 * ```ts
 * app.delete('/orders/:id', requireScope(['orders:admin', 'orders:write'], { mode: 'any' }), handler);
 * app.post('/refunds', requireScope('refunds:create', { allowDelegation: false }), handler);
 * ```
 */
export function requireScope(
  scopes: string | readonly string[],
  options?: RequireScopeOptions,
): MiddlewareHandler {
  return authorizeRoute(resolveScopeRequirement(scopes, options), 'requireScope');
}

/**
 * Require roles (the token's `roles` claim) of the token verified by a preceding {@link requireAuth}:
 * 403 `insufficient_scope` (reason `insufficient_role`) when they are not held, 401 for an anonymous
 * request. A string is one role name; `mode: 'any'` needs one of the listed roles.
 *
 * @example
 * ```ts
 * app.get('/reports', requireRole('auditor'), handler);
 * app.delete('/orders/:id', requireRole(['admin', 'order-desk'], { mode: 'any' }), handler);
 * ```
 */
export function requireRole(
  roles: string | readonly string[],
  options?: RequireRoleOptions,
): MiddlewareHandler {
  return authorizeRoute(resolveRoleRequirement(roles, options), 'requireRole');
}

/** The middleware of `requireScope()` and `requireRole()`: `call` checked against `c.get('auth')`. */
function authorizeRoute(call: VerifyOptions, name: string): MiddlewareHandler {
  return (c, next) => {
    const guard = (c as Guarded)[GUARD];
    if (guard === undefined)
      return Promise.reject(new Error(`${name}() must run after requireAuth() on the same route`));
    try {
      const auth = c.get('auth');
      if (auth === undefined) throw new MissingTokenError(guard.verifier.context);
      guard.verifier.authorize(auth, call);
    } catch (err) {
      return refuse(err, guard);
    }
    return next();
  };
}
