/**
 * The twin of node-request.ts in the build for every runtime but Node (same exports): there is no
 * IncomingMessage view here, so the middleware reads the standard `Request` (as on Bun, Deno and
 * workerd) even when an app runs `@hono/node-server` on a runtime that is not Node.
 *
 * @module
 */
import type { RequestLike } from '@gatehouse/core';

/**
 * Always `undefined`: read `c.req.raw`.
 *
 * @example
 * ```ts
 * const request = nodeRequest(c.env.incoming, { origin }) ?? c.req.raw;
 * ```
 */
export function nodeRequest(_incoming: unknown, _options: unknown): RequestLike | undefined {
  return undefined;
}
