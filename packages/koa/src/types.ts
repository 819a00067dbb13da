/**
 * Public types of `@gatehouse/koa`, and the declaration merge that types `ctx.state.auth` in every Koa
 * middleware once the package is imported.
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
import type { Middleware } from 'koa';

declare module 'koa' {
  interface DefaultState {
    /** The verified access token, set by `requireAuth()`; `undefined` for an anonymous request in `optional` mode. */
    auth?: AuthInfo;
  }
}

/** How the middleware treats requests and errors. Defaults are in {@link DEFAULTS}. */
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
  /** Let a request without any token through as anonymous (`ctx.state.auth` undefined). A bad token is still refused. Default `false`. */
  optional?: boolean;
  /** Accept delegated (impersonation) tokens, those carrying `act`. `false` answers 403 `access_denied`. Default `true`. */
  allowDelegation?: boolean;
  /** Answer errors with RFC 6750 JSON. `false` throws the `AuthError` (`status`, `headers`, `expose`) to upstream middleware and `app.on('error')`. Default `true`. */
  handleErrors?: boolean;
}

/**
 * Options of {@link requireAuth}: verifier options (or `{ verifier }` to share one key cache across the app),
 * optional RFC 9728 `resourceMetadata`, and the {@link AdapterOptions}.
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

/** The middleware returned by {@link requireAuth}, with the verifier it uses and a metadata middleware. */
export interface RequireAuthMiddleware extends Middleware {
  /** The verifier, to share with other code (`requireAuth({ verifier })`, WebSocket upgrades, …). */
  readonly verifier: Verifier;
  /** Serves the RFC 9728 document on its well-known path and passes every other request on. */
  readonly metadata: Middleware;
  /**
   * Fetch the signing keys now; rejects with a `KeySetError` explaining a misconfiguration.
   * `await auth.ready()` before `app.listen()` makes a misconfigured API fail at start-up.
   */
  ready(): Promise<void>;
}
