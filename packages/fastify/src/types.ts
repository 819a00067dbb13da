/**
 * Public types of `@gatehouse/fastify`, and the declaration merge that types `request.auth` and the
 * instance decorators once the package is imported.
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
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A hook that authenticates or authorizes a request, usable as `onRequest` or `preHandler`
 * (use `preHandler` when tokens may come in a form body).
 */
export type GatehouseHook = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified access token, set by `app.requireAuth`; `undefined` when anonymous (`app.optionalAuth`) or not authenticated. */
    auth: AuthInfo | undefined;
  }
  interface FastifyInstance {
    /** Hook: refuse requests without a valid access token; sets `request.auth`. */
    requireAuth: GatehouseHook;
    /** Hook: like `requireAuth`, but a request without any token passes as anonymous. A bad token is still refused. */
    optionalAuth: GatehouseHook;
    /** Hook factory: require scopes of the token verified by `requireAuth` / `optionalAuth` before it. */
    requireScope(scopes: string | readonly string[], options?: RequireScopeOptions): GatehouseHook;
    /**
     * Hook factory: require roles (the token's `roles` claim) of the token verified before it: 403
     * `insufficient_scope` (reason `insufficient_role`) when they are not held. A string is one role.
     */
    requireRole(roles: string | readonly string[], options?: RequireRoleOptions): GatehouseHook;
    /** Hook: refuse delegated (impersonation) tokens with 403 on a route that needs no scope; after `requireAuth`. */
    refuseDelegation: GatehouseHook;
    /** The verifier the plugin uses, to share with other code. */
    readonly gatehouseVerifier: Verifier;
  }
}

/** How the plugin treats requests and errors. Defaults are in {@link DEFAULTS}. */
export interface AdapterOptions {
  /**
   * Fetch the signing keys when the middleware is created, so a misconfiguration shows at start-up
   * (Fastify: registration fails with a `KeySetError`). Default `false`.
   */
  warmUp?: boolean;
  /**
   * The API's public origin (`https://api.example.com`): DPoP proofs must name it in `htu`. Set it
   * behind a proxy; otherwise the origin is the one the framework reports (its trust-proxy setting decides).
   */
  origin?: string;
  /** Accept delegated (impersonation) tokens, those carrying `act`. `false` answers 403 `access_denied`. Default `true`. */
  allowDelegation?: boolean;
  /** Answer errors with RFC 6750 JSON. `false` throws the `AuthError` (with `statusCode`, `headers`) to `setErrorHandler`. Default `true`. */
  handleErrors?: boolean;
}

/**
 * Options of the {@link gatehouse} plugin: verifier options (or `{ verifier }` to share one key cache across
 * the app), optional RFC 9728 `resourceMetadata`, and the {@link AdapterOptions}.
 *
 * @example
 * ```ts
 * const options: GatehouseOptions = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };
 * ```
 */
export type GatehouseOptions = ProtectedResourceOptions & AdapterOptions;

/** Options of `app.requireScope()`. */
export interface RequireScopeOptions extends StepUpOptions {
  /** `all` (default): every listed scope is needed; `any`: one is enough. */
  mode?: ScopeMode;
  /** `false` refuses delegated (impersonation) tokens on this route with 403. Default `true`. */
  allowDelegation?: boolean;
}

/**
 * Options of `app.requireRole()`: `mode` (`all`, the default, or `any`) and `allowDelegation`
 * (`false` refuses delegated tokens on the route with 403), as for `app.requireScope()`.
 *
 * @example
 * ```ts
 * app.get('/reports', { onRequest: [app.requireAuth, app.requireRole(['admin', 'auditor'], { mode: 'any' })] }, handler);
 * ```
 */
export type RequireRoleOptions = RoleRequirementOptions;
