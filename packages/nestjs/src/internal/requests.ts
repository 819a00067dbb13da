/**
 * The requests the guard has run on, and what it found, so `@Auth()` can tell an anonymous request
 * (the guard ran on a `@Public()` route) from a route the guard never protected (a wiring mistake
 * that must fail loudly rather than look anonymous).
 *
 * @module
 */
import type { AuthInfo } from '@gatehouse/core';
import type { AuthenticatedRequest } from '../types.js';

const seen = new WeakMap<object, AuthInfo | undefined>();

/** Attach the guard's result to the request: `request.auth`, and the record `@Auth()` reads. */
export function attach(request: AuthenticatedRequest, auth: AuthInfo | undefined): void {
  seen.set(request, auth);
  request.auth = auth;
}

/** Whether the guard has already run on `request` (it is named twice: globally and by `@UseGuards`). */
export const attached = (request: object): boolean => seen.has(request);

/** The token the guard verified for `request`; throws when no guard ran on it. */
export function authOf(request: object): AuthInfo | undefined {
  if (!seen.has(request))
    throw new Error('@Auth() needs GatehouseGuard on the route (global, or @UseGuards(GatehouseGuard))');
  return seen.get(request);
}
