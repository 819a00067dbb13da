/**
 * Public types of `@gatehouse/express`, and the declaration merge that types `req.auth` on every
 * Express request once the package is imported.
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
import type { NextFunction, Request, Response } from 'express';

/**
 * Core's `AuthInfo` under a name no other package puts in the `Express` namespace: passport's types
 * declare `Express.AuthInfo`, which would otherwise shadow it inside the merge below.
 */
type GatehouseAuthInfo = AuthInfo;

declare global {
  namespace Express {
    interface Request {
      /** The verified access token, set by `requireAuth()`; `undefined` for an anonymous request in `optional` mode. */
      auth?: GatehouseAuthInfo;
    }
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
  /** Let a request without any token through as anonymous (`req.auth` undefined). A bad token is still refused. Default `false`. */
  optional?: boolean;
  /** Accept delegated (impersonation) tokens, those carrying `act`. `false` answers 403 `access_denied`. Default `true`. */
  allowDelegation?: boolean;
  /** Answer errors with RFC 6750 JSON. `false` passes the `AuthError` (with `status`, `headers`) to `next(err)`. Default `true`. */
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

/**
 * Express middleware that fits any route: it is generic over the request's types, so route parameters,
 * bodies and queries keep the types Express infers for the route it is used on.
 */
export type Middleware = <P, ResBody, ReqBody, ReqQuery, Locals extends Record<string, unknown>>(
  req: Request<P, ResBody, ReqBody, ReqQuery, Locals>,
  res: Response<ResBody, Locals>,
  next: NextFunction,
) => unknown;

/** The middleware returned by {@link requireAuth}, with the verifier it uses and a metadata route. */
export interface RequireAuthHandler extends Middleware {
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
