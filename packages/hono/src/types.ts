/**
 * Public types of `@gatehouse/hono`, and the declaration merge that types `c.get('auth')` in every
 * Hono app once the package is imported.
 *
 * @module
 */
import type {
  AuthInfo,
  ProtectedResourceOptions,
  RoleRequirementOptions,
  ScopeMode,
  StepUpOptions,
  Verifier,
} from '@gatehouse/core';
import type { MiddlewareHandler } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    /** The verified access token, set by `requireAuth()`; `undefined` for an anonymous request in `optional` mode. */
    auth: AuthInfo | undefined;
  }
}

/** How the middleware treats requests and errors. Defaults are in {@link DEFAULTS}. */
export interface AdapterOptions {
  /** Fetch the signing keys when the middleware is created; `await auth.ready()` to fail at start-up. Default `false`. */
  warmUp?: boolean;
  /**
   * The API's public origin (`https://api.example.com`): DPoP proofs must name it in `htu`. Set it
   * behind a proxy; otherwise the origin of the request URL the runtime reports counts.
   */
  origin?: string;
  /** Let a request without any token through as anonymous (`c.get('auth')` undefined). A bad token is still refused. Default `false`. */
  optional?: boolean;
  /** Accept delegated (impersonation) tokens, those carrying `act`. `false` answers 403 `access_denied`. Default `true`. */
  allowDelegation?: boolean;
  /**
   * Throw errors as Hono `HTTPException`s whose `getResponse()` is the RFC 6750 answer (what Hono
   * sends unless `app.onError` decides otherwise). `false` throws the core `AuthError` itself to
   * `app.onError`. Default `true`.
   */
  handleErrors?: boolean;
}

/**
 * Options of {@link requireAuth}: verifier options (or `{ verifier }` to share one key cache across the
 * app), optional RFC 9728 `resourceMetadata`, and the {@link AdapterOptions}.
 *
 * @example
 * ```ts
 * const options: RequireAuthOptions = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };
 * ```
 */
export type RequireAuthOptions = ProtectedResourceOptions & AdapterOptions;

/** Options of {@link requireScope}. */
export interface RequireScopeOptions extends StepUpOptions {
  /** `all` (default): every listed scope is needed; `any`: one is enough. */
  mode?: ScopeMode;
  /** `false` refuses delegated (impersonation) tokens on this route with 403. Default `true`. */
  allowDelegation?: boolean;
}

/**
 * Options of {@link requireRole}: `mode` (`all`, the default, or `any`) and `allowDelegation`
 * (`false` refuses delegated tokens on the route with 403), as for `requireScope`.
 *
 * @example
 * ```ts
 * const options: RequireRoleOptions = { mode: 'any', allowDelegation: false };
 * ```
 */
export type RequireRoleOptions = RoleRequirementOptions;

/** The middleware returned by {@link requireAuth}, with the verifier it uses. */
export interface RequireAuthHandler extends MiddlewareHandler {
  /** The verifier, to share with other code (`requireAuth({ verifier })`, WebSocket upgrades, …). */
  readonly verifier: Verifier;
  /** Serves the RFC 9728 document on its well-known path and passes every other request on. */
  readonly metadata: MiddlewareHandler;
  /** Fetch the signing keys now; rejects with a `KeySetError` explaining a misconfiguration. */
  ready(): Promise<void>;
  /**
   * This `requireAuth()` and `requireScope(scopes, options)` in one middleware, for a route that does
   * not also pass through this `requireAuth()`: the same answers, one layer of Hono's middleware chain
   * instead of two. The route always needs a token (`optional` does not apply); delegated tokens pass
   * only when both this `requireAuth()` and `options` allow them. Metadata is not served here (mount
   * `auth.metadata` for that).
   *
   * @example
   * ```ts
   * const auth = requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' });
   * app.get('/orders', auth.requireScope('read:orders'), (c) => c.json({ user: c.get('auth')?.subject }));
   * app.post('/refunds', auth.requireScope('refunds:create', { allowDelegation: false }), handler);
   * ```
   */
  requireScope(scopes: string | readonly string[], options?: RequireScopeOptions): MiddlewareHandler;
  /**
   * This `requireAuth()` and `requireRole(roles, options)` in one middleware, as {@link requireScope}.
   *
   * @example
   * ```ts
   * app.get('/reports', auth.requireRole('auditor'), handler);
   * ```
   */
  requireRole(roles: string | readonly string[], options?: RequireRoleOptions): MiddlewareHandler;
}
