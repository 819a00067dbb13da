/**
 * The suite's routes on Express 5 with `@gatehouse/express`.
 *
 * @module
 */
import { requireAuth, requireRole, requireScope } from '@gatehouse/express';
import express from 'express';
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

/** Start the Express app of the suite. */
export function startExpress(setup: AppSetup): Promise<RunningApp> {
  const { verifier, resourceMetadata, origin } = setup;
  const auth = requireAuth({ verifier, resourceMetadata, origin });
  const optional = requireAuth({ verifier, origin, optional: true });
  const noDelegation = requireAuth({ verifier, origin, allowDelegation: false });
  const reply: express.RequestHandler = (req, res) => {
    res.json(describeAuth(req.auth));
  };

  const app = express();
  if (setup.trustProxy === true) app.set('trust proxy', true);
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
  app.post('/form', express.urlencoded({ extended: false }), auth, reply);
  return listen(createNodeServer(setup, app));
}
