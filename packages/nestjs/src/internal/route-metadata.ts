/**
 * What the decorators record on a controller class or a route handler, and the merged requirements of
 * one route as the guard reads them. Kept in WeakMaps keyed by the class and the handler function (the
 * targets Nest's own `SetMetadata` uses), so nothing depends on `reflect-metadata` and a route's
 * requirements are merged once, at its first request.
 *
 * Class and handler requirements add up: a handler can never loosen what its controller requires, and
 * a controller inherits what the classes it extends require.
 *
 * @module
 */
import type { VerifyOptions } from '@gatehouse/core';

/** What the decorators of one class or handler say. */
interface Marks {
  public: boolean;
  noDelegation: boolean;
  scopes: VerifyOptions[];
  roles: VerifyOptions[];
}

/** The merged requirements of one route (class and handler). */
export interface RouteRequirements {
  /** `@Public()` on the class or the handler: anonymous requests pass; a token is still verified. */
  readonly public: boolean;
  /** `@NoDelegation()` on the class or the handler: delegated tokens are refused. */
  readonly noDelegation: boolean;
  /** Every `@RequireScope()` of the class, then of the handler; each must be met. */
  readonly scopes: readonly VerifyOptions[];
  /**
   * Every `@RequireRole()` of the class, then of the handler; each must be met, checked after the
   * scopes whatever the order of the decorators (as `requireScope()` before `requireRole()` elsewhere).
   */
  readonly roles: readonly VerifyOptions[];
}

const marks = new WeakMap<object, Marks>();
const routes = new WeakMap<object, WeakMap<object, RouteRequirements>>();

/** Record a decorator's requirement on a class or a handler. */
export function mark(target: object, change: (marks: Marks) => void): void {
  let current = marks.get(target);
  if (current === undefined) {
    current = { public: false, noDelegation: false, scopes: [], roles: [] };
    marks.set(target, current);
  }
  change(current);
}

/** The decorator target: the handler function of a method, else the class. */
export const targetOf = (target: object, descriptor: PropertyDescriptor | undefined): object =>
  (descriptor?.value as object | undefined) ?? target;

/** The requirements of the route served by `handler` of controller `controller`. */
export function requirementsOf(controller: object, handler: object): RouteRequirements {
  let byHandler = routes.get(controller);
  if (byHandler === undefined) routes.set(controller, (byHandler = new WeakMap()));
  let route = byHandler.get(handler);
  if (route === undefined) {
    const found: Marks[] = [];
    // Base classes first, so their scopes are checked first.
    for (
      let c: object | null = controller;
      c !== null && c !== Function.prototype;
      c = Object.getPrototypeOf(c)
    )
      if (marks.has(c)) found.unshift(marks.get(c)!);
    if (marks.has(handler)) found.push(marks.get(handler)!);
    route = Object.freeze({
      public: found.some((m) => m.public),
      noDelegation: found.some((m) => m.noDelegation),
      scopes: Object.freeze(found.flatMap((m) => m.scopes)),
      roles: Object.freeze(found.flatMap((m) => m.roles)),
    });
    byHandler.set(handler, route);
  }
  return route;
}
