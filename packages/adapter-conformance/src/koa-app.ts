/**
 * The suite's routes on Koa 3 with `@gatehouse/koa` and `@koa/router`.
 *
 * @module
 */
import { requireAuth, requireRole, requireScope } from '@gatehouse/koa';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import {
  type AppSetup,
  createNodeServer,
  describeAuth,
  listen,
  ROLES,
  type RunningApp,
  SCOPES,
  STEP_UP,
} from './app.js';

/** Start the Koa app of the suite. */
export function startKoa(setup: AppSetup): Promise<RunningApp> {
  const { verifier, resourceMetadata, origin } = setup;
  const auth = requireAuth({ verifier, resourceMetadata, origin });
  const optional = requireAuth({ verifier, origin, optional: true });
  const noDelegation = requireAuth({ verifier, origin, allowDelegation: false });
  const reply: Middleware = (ctx) => {
    ctx.body = describeAuth(ctx.state.auth);
  };

  const router = new Router();
  router.get('/me', auth, reply);
  router.get('/optional', optional, reply);
  router.get('/optional/scoped', optional, requireScope(SCOPES.one), reply);
  router.get('/scoped/one', auth, requireScope(SCOPES.one), reply);
  router.get('/scoped/all', auth, requireScope(SCOPES.pair), reply);
  router.get('/scoped/any', auth, requireScope(SCOPES.pair, { mode: 'any' }), reply);
  router.get('/no-delegation', noDelegation, reply);
  router.get('/no-delegation/scoped', auth, requireScope(SCOPES.one, { allowDelegation: false }), reply);
  router.get('/roles/one', auth, requireRole(ROLES.one), reply);
  router.get('/roles/all', auth, requireRole(ROLES.pair), reply);
  router.get('/roles/any', auth, requireRole(ROLES.pair, { mode: 'any' }), reply);
  router.get('/roles/scoped', auth, requireScope(SCOPES.one), requireRole(ROLES.one), reply);
  router.get('/step-up', auth, requireScope(SCOPES.one, STEP_UP), reply);
  router.post('/form', bodyParser({ enableTypes: ['form'] }), auth, reply);

  const app = new Koa();
  app.proxy = setup.trustProxy === true;
  app.use(auth.metadata);
  app.use(router.routes());
  return listen(createNodeServer(setup, app.callback()));
}
