/**
 * The route decorators — `@RequireScope()`, `@RequireRole()`, `@Public()`, `@NoDelegation()` on a controller or a
 * handler — and the `@Auth()` parameter decorator. Scope requirements are validated by core when the
 * decorator runs, so a bad one fails at class definition, never at request time.
 *
 * @module
 */
import { type AuthInfo, resolveRoleRequirement, resolveScopeRequirement } from '@gatehouse/core';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { authOf } from './internal/requests.js';
import { mark, targetOf } from './internal/route-metadata.js';
import type { RequireRoleOptions, RequireScopeOptions } from './types.js';

/**
 * A decorator for a controller class or one of its route handlers.
 *
 * @example
 * ```ts
 * const adminOnly: RouteDecorator = RequireScope('orders:admin');
 * ```
 */
export type RouteDecorator = ClassDecorator & MethodDecorator;

/**
 * Arguments of {@link RequireScope}: scopes, then optionally the options. A spread list fits
 * (`...SCOPES`); naming no scope at all is refused when the decorator runs.
 *
 * @example
 * ```ts
 * const args: RequireScopeArgs = ['read:orders', 'write:orders', { mode: 'any' }];
 * ```
 */
export type RequireScopeArgs = [...scopes: string[]] | [...scopes: string[], options: RequireScopeOptions];

function routeDecorator(change: Parameters<typeof mark>[1]): RouteDecorator {
  return ((target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    mark(targetOf(target, descriptor), change);
  }) as RouteDecorator;
}

/**
 * Require scopes of the verified token: 403 `insufficient_scope` when they are not granted, 401 for an
 * anonymous request. Each argument is a scope (one argument may be a space-separated list); options
 * come last. On a controller it applies to every route; requirements of the class and the handler add up.
 *
 * @example
 * ```ts
 * @Controller('orders')
 * @RequireScope('read:orders')
 * class OrdersController {
 *   @Delete(':id')
 *   @RequireScope('orders:admin', 'orders:write', { mode: 'any', allowDelegation: false })
 *   remove() {}
 * }
 * ```
 */
export function RequireScope(...args: RequireScopeArgs): RouteDecorator {
  const last: unknown = args.at(-1);
  const hasOptions = last !== null && typeof last === 'object';
  const scopes = (hasOptions ? args.slice(0, -1) : args) as string[];
  const requirement = resolveScopeRequirement(
    scopes.length === 1 ? scopes[0]! : scopes,
    hasOptions ? (last as RequireScopeOptions) : undefined,
  );
  return routeDecorator((marks) => marks.scopes.push(requirement));
}

/**
 * Arguments of {@link RequireRole}: role names, then optionally the options. Each argument is one
 * role (role names may hold spaces); naming no role at all is refused when the decorator runs.
 *
 * @example
 * ```ts
 * const args: RequireRoleArgs = ['admin', 'auditor', { mode: 'any' }];
 * ```
 */
export type RequireRoleArgs = [...roles: string[]] | [...roles: string[], options: RequireRoleOptions];

/**
 * Require roles (the token's `roles` claim) of the verified token: 403 `insufficient_scope` (reason
 * `insufficient_role`) when they are not held, 401 for an anonymous request. Options come last. On a
 * controller it applies to every route; requirements of the class and the handler (and any
 * `@RequireScope()`) add up.
 *
 * @example
 * ```ts
 * @Controller('reports')
 * @RequireRole('auditor')
 * class ReportsController {
 *   @Delete(':id')
 *   @RequireRole('admin', 'order-desk', { mode: 'any', allowDelegation: false })
 *   remove() {}
 * }
 * ```
 */
export function RequireRole(...args: RequireRoleArgs): RouteDecorator {
  const last: unknown = args.at(-1);
  const hasOptions = last !== null && typeof last === 'object';
  const roles = (hasOptions ? args.slice(0, -1) : args) as string[];
  const requirement = resolveRoleRequirement(roles, hasOptions ? (last as RequireRoleOptions) : undefined);
  return routeDecorator((marks) => marks.roles.push(requirement));
}

/**
 * Let anonymous requests through (`@Auth()` is then `undefined`). A request that sends a token still
 * has it verified, and a bad one is refused: the route is anonymous-friendly, not unauthenticated.
 *
 * @example
 * ```ts
 * @Get('catalogue')
 * @Public()
 * list(@Auth() auth: AuthInfo | undefined) {
 *   return auth === undefined ? publicItems() : itemsFor(auth.subject);
 * }
 * ```
 */
export function Public(): RouteDecorator {
  return routeDecorator((marks) => {
    marks.public = true;
  });
}

/**
 * Refuse delegated (impersonation) tokens, those carrying `act`, with 403 `access_denied`: for
 * actions nobody may take on someone else's behalf.
 *
 * @example
 * ```ts
 * @Post('password')
 * @NoDelegation()
 * changePassword() {}
 * ```
 */
export function NoDelegation(): RouteDecorator {
  return routeDecorator((marks) => {
    marks.noDelegation = true;
  });
}

/**
 * The members of {@link AuthInfo} `@Auth()` can give: its data, not its methods.
 *
 * @example
 * ```ts
 * const member: AuthProperty = 'subject';
 * ```
 */
export type AuthProperty = {
  [K in keyof AuthInfo]: AuthInfo[K] extends (...args: never[]) => unknown ? never : K;
}[keyof AuthInfo];

/**
 * The verified token of the request ({@link AuthInfo}), or one of its members: `@Auth('subject')`.
 * `undefined` for an anonymous request on a `@Public()` route. Throws (a 500) on a route the guard
 * does not protect, so a wiring mistake never passes for an anonymous request.
 *
 * @example
 * ```ts
 * @Get()
 * @RequireScope('read:orders')
 * list(@Auth() auth: AuthInfo, @Auth('subject') subject: string | undefined) {
 *   return this.orders.list(subject);
 * }
 * ```
 */
export const Auth: (property?: AuthProperty) => ParameterDecorator = createParamDecorator(
  (property: AuthProperty | undefined, context: ExecutionContext) => {
    const auth = authOf(context.switchToHttp().getRequest<object>());
    return property === undefined ? auth : auth?.[property];
  },
);
