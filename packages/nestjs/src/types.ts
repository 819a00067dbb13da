/**
 * Public types of `@gatehouse/nestjs`: the module's options (sync and async), the options of
 * `@RequireScope()`, and the request as the guard leaves it.
 *
 * @module
 */
import type {
  AuthInfo,
  ProtectedResourceOptions,
  RoleRequirementOptions,
  ScopeMode,
  StepUpOptions,
} from '@gatehouse/core';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';

/**
 * How the guard treats requests and errors. Defaults are in {@link DEFAULTS}.
 *
 * @example
 * ```ts
 * const switches: AdapterOptions = { origin: 'https://api.example.com', allowDelegation: false };
 * ```
 */
export interface AdapterOptions {
  /**
   * Fetch the signing keys while the application initializes, so a misconfiguration fails
   * `app.init()` / `app.listen()` with a `KeySetError`. Default `false`.
   */
  warmUp?: boolean;
  /**
   * The API's public origin (`https://api.example.com`): DPoP proofs must name it in `htu`. Set it
   * behind a proxy; otherwise the origin is the one the platform reports (its trust-proxy setting decides).
   */
  origin?: string;
  /**
   * Let a request without any token through as anonymous on every route, as `@Public()` does on one.
   * A bad token is still refused. Default `false`.
   */
  optional?: boolean;
  /** Accept delegated (impersonation) tokens, those carrying `act`. `false` answers 403 `access_denied`. Default `true`. */
  allowDelegation?: boolean;
  /**
   * Put the error's headers (`WWW-Authenticate`, `DPoP-Nonce`, `Retry-After`) on the response before
   * throwing the {@link GatehouseException}, so Nest's default exception filter sends the full RFC 6750
   * answer. `false` leaves the response alone: an exception filter of the app sends the exception's
   * `headers` itself. Default `true`.
   */
  handleErrors?: boolean;
}

/**
 * Options that shape the module itself rather than a request.
 *
 * @example
 * ```ts
 * GatehouseModule.forRoot({ verifier, globalGuard: false });
 * ```
 */
export interface ModuleSwitches {
  /**
   * Guard every route of the application (`APP_GUARD`); routes opt out with `@Public()`. `false`
   * guards only what `@UseGuards(GatehouseGuard)` names. Default `true`: protection is the safe default.
   */
  globalGuard?: boolean;
}

/**
 * What `useFactory` of {@link GatehouseModuleAsyncOptions} returns: verifier options (or `{ verifier }`
 * to share one key cache), optional RFC 9728 `resourceMetadata`, and the {@link AdapterOptions}.
 *
 * @example
 * ```ts
 * const options: GatehouseOptions = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };
 * ```
 */
export type GatehouseOptions = ProtectedResourceOptions & AdapterOptions;

/**
 * Options of `GatehouseModule.forRoot()`: the {@link GatehouseOptions} and the {@link ModuleSwitches}.
 *
 * @example
 * ```ts
 * GatehouseModule.forRoot({ issuer: 'https://id.example.com', audience: 'https://api.example.com', globalGuard: false });
 * ```
 */
export type GatehouseModuleOptions = GatehouseOptions & ModuleSwitches;

/**
 * Options of `GatehouseModule.forRootAsync()`: a factory for the {@link GatehouseOptions}, the
 * providers it needs, and the {@link ModuleSwitches} (which must be known before any provider runs).
 *
 * @example
 * ```ts
 * GatehouseModule.forRootAsync({
 *   imports: [ConfigModule],
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ issuer: config.get('ISSUER'), audience: config.get('AUDIENCE') }),
 * });
 * ```
 */
export interface GatehouseModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'>, ModuleSwitches {
  /** Builds the options; it is called once, with the providers named in `inject` (typed by the caller). */
  useFactory: (...providers: never[]) => GatehouseOptions | Promise<GatehouseOptions>;
  /** Providers handed to `useFactory`, in order. */
  inject?: (InjectionToken | OptionalFactoryDependency)[];
}

/**
 * Options of `@RequireScope()`, given after the scopes.
 *
 * @example
 * ```ts
 * @RequireScope('orders:admin', 'orders:write', { mode: 'any', allowDelegation: false })
 * ```
 */
export interface RequireScopeOptions extends StepUpOptions {
  /** `all` (default): every listed scope is needed; `any`: one is enough. */
  mode?: ScopeMode;
  /** `false` refuses delegated (impersonation) tokens on this route with 403. Default `true`. */
  allowDelegation?: boolean;
}

/**
 * Options of `@RequireRole()`, given after the roles: `mode` (`all`, the default, or `any`) and
 * `allowDelegation`, as for `@RequireScope()`.
 *
 * @example
 * ```ts
 * @RequireRole('admin', 'order-desk', { mode: 'any', allowDelegation: false })
 * ```
 */
export type RequireRoleOptions = RoleRequirementOptions;

/**
 * A request the guard has run on (an Express or a Fastify request): `auth` is the verified token, or
 * `undefined` for an anonymous request on a `@Public()` route.
 *
 * @example
 * ```ts
 * const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
 * request.auth?.subject;
 * ```
 */
export interface AuthenticatedRequest {
  auth?: AuthInfo | undefined;
}
