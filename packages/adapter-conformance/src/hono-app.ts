/**
 * The suite's routes on Hono 4 with `@gatehouse/hono`. No Node built-in: the same app runs on Node
 * (`@hono/node-server`), Bun (`Bun.serve`) and workerd (a bundled Worker).
 *
 * @module
 */
import type { ResourceMetadataOptions, Verifier } from '@gatehouse/core';
import { requireAuth, requireRole, requireScope } from '@gatehouse/hono';
import { type Context, Hono } from 'hono';
import { describeAuth, ROLES, SCOPES, STEP_UP } from './describe.js';

/** What the app is built from. */
export interface HonoSetup {
  readonly verifier: Verifier;
  readonly origin?: string | undefined;
  readonly resourceMetadata?: ResourceMetadataOptions | undefined;
}

/**
 * The suite's Hono app.
 *
 * @example
 * ```ts
 * export default createHonoApp({ verifier }); // a Worker, or Bun.serve({ fetch: app.fetch })
 * ```
 */
export function createHonoApp(setup: HonoSetup): Hono {
  const { verifier, resourceMetadata, origin } = setup;
  const auth = requireAuth({ verifier, resourceMetadata, origin });
  const optional = requireAuth({ verifier, origin, optional: true });
  const noDelegation = requireAuth({ verifier, origin, allowDelegation: false });
  const reply = (c: Context) => c.body(JSON.stringify(describeAuth(c.get('auth'))), 200, JSON_TYPE);

  const app = new Hono();
  app.use(auth.metadata);
  app.get('/me', auth, reply);
  app.get('/optional', optional, reply);
  app.get('/optional/scoped', optional, requireScope(SCOPES.one), reply);
  app.get('/scoped/one', auth, requireScope(SCOPES.one), reply);
  app.get('/scoped/all', auth, requireScope(SCOPES.pair), reply);
  app.get('/scoped/any', auth, requireScope(SCOPES.pair, { mode: 'any' }), reply);
  app.get('/no-delegation', noDelegation, reply);
  app.get('/no-delegation/scoped', auth, requireScope(SCOPES.one, { allowDelegation: false }), reply);
  app.get('/roles/one', auth, requireRole(ROLES.one), reply);
  app.get('/roles/all', auth, requireRole(ROLES.pair), reply);
  app.get('/roles/any', auth, requireRole(ROLES.pair, { mode: 'any' }), reply);
  app.get('/roles/scoped', auth, requireScope(SCOPES.one), requireRole(ROLES.one), reply);
  app.get('/step-up', auth, requireScope(SCOPES.one, STEP_UP), reply);
  app.post('/form', auth, reply);
  return app;
}

/** Express, Fastify and Koa answer JSON with this content type; Hono's `c.json()` omits the charset. */
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
