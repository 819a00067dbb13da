/**
 * `@gatehouse/hono`: protect Hono 4 routes with OAuth 2.0 access tokens, on Node, Bun, Deno and
 * Cloudflare Workers.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { requireAuth, requireScope } from '@gatehouse/hono';
 *
 * const app = new Hono();
 * app.use(requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' }));
 * app.get('/orders', requireScope('read:orders'), (c) => c.json({ user: c.get('auth')?.subject }));
 * ```
 *
 * @module
 */

export { requireAuth, requireRole, requireScope } from './middleware.js';
export { DEFAULTS } from './options.js';
export type {
  AdapterOptions,
  RequireAuthHandler,
  RequireAuthOptions,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';
