/**
 * `@gatehouse/koa`: protect Koa 3 routes with OAuth 2.0 JWT access tokens.
 *
 * @example
 * ```ts
 * import Koa from 'koa';
 * import { requireAuth, requireScope } from '@gatehouse/koa';
 *
 * const app = new Koa();
 * app.use(requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' }));
 * app.use(requireScope('read:orders'));
 * app.use((ctx) => {
 *   ctx.body = { user: ctx.state.auth?.subject };
 * });
 * ```
 *
 * @module
 */
export { requireAuth, requireRole, requireScope } from './middleware.js';
export { DEFAULTS } from './options.js';
export type {
  AdapterOptions,
  RequireAuthMiddleware,
  RequireAuthOptions,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';
