/**
 * `@gatehouse/express`: protect Express 5 routes with OAuth 2.0 JWT access tokens.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { requireAuth, requireScope } from '@gatehouse/express';
 *
 * const app = express();
 * app.use(requireAuth({ issuer: 'https://id.example.com', audience: 'https://api.example.com' }));
 * app.get('/orders', requireScope('read:orders'), (req, res) => res.json({ user: req.auth?.subject }));
 * ```
 *
 * @module
 */
export { requireAuth, requireRole, requireScope } from './middleware.js';
export { DEFAULTS } from './options.js';
export type {
  AdapterOptions,
  Middleware,
  RequireAuthHandler,
  RequireAuthOptions,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';
