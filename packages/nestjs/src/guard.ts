/**
 * `GatehouseGuard`: builds core's `RequestLike` from the platform request, calls the verifier with the
 * route's requirements (from the decorators), attaches the result, and maps an `AuthError` to a
 * {@link GatehouseException}. No validation logic lives here.
 *
 * @module
 */
import {
  type AuthenticateOptions,
  type AuthInfo,
  callOptions,
  isAuthError,
  MissingTokenError,
  type ResolvedAdapterOptions,
} from '@gatehouse/core';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GatehouseException } from './errors.js';
import { attach, attached } from './internal/requests.js';
import { type RouteRequirements, requirementsOf } from './internal/route-metadata.js';
import { requestBuilder, type ToRequestLike } from './request.js';
import { GATEHOUSE } from './tokens.js';
import type { AuthenticatedRequest } from './types.js';

/**
 * The guard. `GatehouseModule` registers it for every route (`globalGuard: true`, the default); with
 * `globalGuard: false`, name it with `@UseGuards(GatehouseGuard)` on a controller or handler. It
 * refuses a request without a valid token unless the route is `@Public()`, checks `@RequireScope()`,
 * `@RequireRole()` and `@NoDelegation()`, and sets `request.auth` (read it with `@Auth()`). It guards HTTP routes only:
 * a WebSocket or microservice handler is refused unless it is `@Public()`.
 *
 * @example
 * ```ts
 * @Controller('orders')
 * @UseGuards(GatehouseGuard)
 * class OrdersController {
 *   @Get()
 *   @RequireScope('read:orders')
 *   list(@Auth() auth: AuthInfo) {}
 * }
 * ```
 */
@Injectable()
export class GatehouseGuard implements CanActivate {
  // TypeScript `private`, not `#` fields: with the legacy decorators Nest needs, esbuild lowers `#`
  // fields to a WeakMap lookup per read, a dozen of them per request on this path.
  private readonly gatehouse: ResolvedAdapterOptions;
  private readonly host: HttpAdapterHost;
  private toRequestLike: ToRequestLike | undefined;
  /** The verifier's call options by [optional][allowDelegation], checked once (see `callOptions`). */
  private readonly calls: readonly (readonly AuthenticateOptions[])[] = [false, true].map((optional) =>
    [false, true].map((allowDelegation) => callOptions({ optional, allowDelegation })),
  );

  constructor(
    @Inject(GATEHOUSE) gatehouse: ResolvedAdapterOptions,
    @Inject(HttpAdapterHost) host: HttpAdapterHost,
  ) {
    this.gatehouse = gatehouse;
    this.host = host;
  }

  /**
   * `true` now when the verifier answers now (a cached token): Nest goes on without awaiting a promise
   * (it awaits any other result, one more turn of the microtask queue per request). Otherwise a promise;
   * a refusal is always a rejection.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const route = requirementsOf(context.getClass(), context.getHandler());
    if (context.getType() !== 'http') {
      if (route.public) return Promise.resolve(true);
      return Promise.reject(
        new Error(
          'GatehouseGuard protects HTTP routes only: mark this handler @Public() or guard it otherwise',
        ),
      );
    }
    const { verifier, optional, allowDelegation, origin } = this.gatehouse;
    // The request and response by index: `switchToHttp()` builds three closures on every call.
    const request = context.getArgByIndex<AuthenticatedRequest>(0);
    // Named twice on a route (globally and by @UseGuards), the guard checks it once: a second check would
    // find the same requirements, and would refuse a DPoP proof as replayed.
    if (attached(request)) return true;
    try {
      this.toRequestLike ??= requestBuilder(this.host.httpAdapter.getType());
      const call =
        this.calls[optional || route.public ? 1 : 0]![allowDelegation && !route.noDelegation ? 1 : 0]!;
      const result = verifier.authenticateNow(this.toRequestLike(request as never, origin), call);
      if (!(result instanceof Promise)) return this.admit(request, route, result);
      return result
        .then((auth) => this.admit(request, route, auth))
        .catch((err: unknown) => Promise.reject(this.reject(err, context.getArgByIndex(1))));
    } catch (err) {
      return Promise.reject(this.reject(err, context.getArgByIndex(1)));
    }
  }

  /** Attach the verified token to the request, then check the route's scopes and roles; throws an `AuthError`. */
  private admit(request: AuthenticatedRequest, route: RouteRequirements, auth: AuthInfo | undefined): true {
    attach(request, auth);
    if (route.scopes.length > 0 || route.roles.length > 0) {
      const { verifier } = this.gatehouse;
      if (auth === undefined) throw new MissingTokenError(verifier.context);
      for (const requirement of route.scopes) verifier.authorize(auth, requirement);
      for (const requirement of route.roles) verifier.authorize(auth, requirement);
    }
    return true;
  }

  /** Turn an `AuthError` into the exception Nest answers with; anything else stays as it is. */
  private reject(err: unknown, response: unknown): unknown {
    if (!isAuthError(err)) return err;
    if (this.gatehouse.handleErrors) {
      const adapter = this.host.httpAdapter;
      for (const [name, value] of Object.entries(err.headers)) adapter.setHeader(response, name, value);
    }
    return new GatehouseException(err);
  }
}
