/**
 * The suite's routes on Hono 4 with `@gatehouse/hono`. No Node built-in: the same app runs on Node
 * (`@hono/node-server`), Bun (`Bun.serve`) and workerd (a bundled Worker).
 *
 * @module
 */
import type { ResourceMetadataOptions, Verifier } from '@gatehouse/core';
import { requireAuth, requireRole, requireScope } from '@gatehouse/hono';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { describeAuth, ROLES, SCOPES, STEP_UP } from './describe.js';

/** What the app is built from. */
export interface HonoSetup {
  readonly verifier: Verifier;
  readonly origin?: string | undefined;
  readonly resourceMetadata?: ResourceMetadataOptions | undefined;
  /**
   * Check every route requirement with `auth.requireScope()` / `auth.requireRole()` (requireAuth and the
   * requirement in one middleware) instead of `requireAuth()` followed by `requireScope()` /
   * `requireRole()`: the same table must get the same answers. Default `false`.
   */
  readonly oneLayer?: boolean | undefined;
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
  const { verifier, resourceMetadata, origin, oneLayer = false } = setup;
  const auth = requireAuth({ verifier, resourceMetadata, origin });
  const scope = (...args: Parameters<typeof requireScope>): MiddlewareHandler[] =>
    oneLayer ? [auth.requireScope(...args)] : [auth, requireScope(...args)];
  const role = (...args: Parameters<typeof requireRole>): MiddlewareHandler[] =>
    oneLayer ? [auth.requireRole(...args)] : [auth, requireRole(...args)];
  const optional = requireAuth({ verifier, origin, optional: true });
  const noDelegation = requireAuth({ verifier, origin, allowDelegation: false });
  const reply = (c: Context) => c.body(JSON.stringify(describeAuth(c.get('auth'))), 200, JSON_TYPE);

  const app = new Hono();
  app.use(auth.metadata);
  app.get('/me', auth, reply);
  app.get('/optional', optional, reply);
  // Hono's typings take a fixed number of handlers: the chain is spread as one (any length works).
  const get = (path: string, chain: MiddlewareHandler[]) =>
    app.get(path, ...(chain as [MiddlewareHandler]), reply);
  get(
    '/optional/scoped',
    oneLayer ? [optional.requireScope(SCOPES.one)] : [optional, requireScope(SCOPES.one)],
  );
  get('/scoped/one', scope(SCOPES.one));
  get('/scoped/all', scope(SCOPES.pair));
  get('/scoped/any', scope(SCOPES.pair, { mode: 'any' }));
  app.get('/no-delegation', noDelegation, reply);
  get('/no-delegation/scoped', scope(SCOPES.one, { allowDelegation: false }));
  get('/roles/one', role(ROLES.one));
  get('/roles/all', role(ROLES.pair));
  get('/roles/any', role(ROLES.pair, { mode: 'any' }));
  // The scope (in one layer or two), then requireRole() after it: it finds the same guard.
  get('/roles/scoped', [...scope(SCOPES.one), requireRole(ROLES.one)]);
  get('/step-up', scope(SCOPES.one, STEP_UP));
  app.post('/form', auth, reply);
  return app;
}

/** Express, Fastify and Koa answer JSON with this content type; Hono's `c.json()` omits the charset. */
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
