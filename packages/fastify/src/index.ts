/**
 * `@gatehouse/fastify`: protect Fastify 5 routes with OAuth 2.0 JWT access tokens.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import gatehouse from '@gatehouse/fastify';
 *
 * const app = Fastify();
 * await app.register(gatehouse, { issuer: 'https://id.example.com', audience: 'https://api.example.com' });
 * app.get('/orders', { onRequest: [app.requireAuth, app.requireScope('read:orders')] }, async (request) => ({
 *   user: request.auth?.subject,
 * }));
 * ```
 *
 * @module
 */
export { DEFAULTS } from './options.js';
export { gatehouse, gatehouse as default } from './plugin.js';
export type {
  AdapterOptions,
  GatehouseHook,
  GatehouseOptions,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';
