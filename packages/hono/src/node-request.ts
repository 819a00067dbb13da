/**
 * On `@hono/node-server`, the request as the other Node adapters read theirs: core's view of the
 * IncomingMessage (`nodeRequestLike`). Touching `c.req.raw`'s headers makes `@hono/node-server` build a
 * WHATWG `Headers` (and more), which costs more than verifying a cached token. A form POST goes through
 * the `Request`, whose body Hono can read (`undefined` here).
 *
 * Node build only: the build for every other runtime replaces this module with node-request-web.ts,
 * so no Node-only code of core is in its import graph.
 *
 * @module
 */
import type { RequestLike } from '@gatehouse/core';
import { type NodeIncoming, type NodeRequestOptions, nodeRequestLike } from '@gatehouse/core/node';

const FORM = /^\s*application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * Core's view of `incoming` (`options`: the adapter's `origin`), or `undefined` for a form POST (read
 * through the `Request`).
 *
 * @example
 * ```ts
 * const request = nodeRequest(c.env.incoming, { origin }) ?? c.req.raw;
 * ```
 */
export function nodeRequest(incoming: NodeIncoming, options: NodeRequestOptions): RequestLike | undefined {
  const { method } = incoming;
  const type = incoming.headers['content-type'];
  if (method !== 'GET' && method !== 'HEAD' && typeof type === 'string' && FORM.test(type)) return undefined;
  return nodeRequestLike(incoming, options);
}
