/**
 * The requests the guard has run on, and what it found, so `@Auth()` can tell an anonymous request
 * (the guard ran on a `@Public()` route) from a route the guard never protected (a wiring mistake
 * that must fail loudly rather than look anonymous).
 *
 * @module
 */
import type { AuthInfo } from '@gatehouse/core';
import type { AuthenticatedRequest } from '../types.js';

/**
 * The record `@Auth()` reads: a symbol-keyed property of the request, present (its value `undefined`
 * for an anonymous request) once the guard ran. Not a `WeakMap` keyed by the request: an entry per
 * request costs more than a property (in the profile of a cached request, the `WeakMap.set` took a
 * third of the guard's time, and its ephemerons add to every garbage collection).
 */
const SEEN = Symbol('gatehouse.auth');
type Seen = { [SEEN]?: AuthInfo | undefined };

/** Attach the guard's result to the request: `request.auth`, and the record `@Auth()` reads. */
export function attach(request: AuthenticatedRequest, auth: AuthInfo | undefined): void {
  (request as Seen)[SEEN] = auth;
  request.auth = auth;
}

/** Whether the guard has already run on `request` (it is named twice: globally and by `@UseGuards`). */
export const attached = (request: object): boolean => SEEN in request;

/** The token the guard verified for `request`; throws when no guard ran on it. */
export function authOf(request: object): AuthInfo | undefined {
  if (!(SEEN in request))
    throw new Error('@Auth() needs GatehouseGuard on the route (global, or @UseGuards(GatehouseGuard))');
  return (request as Seen)[SEEN];
}
