/**
 * The suite's routes on Fastify 5 with `@gatehouse/fastify` and `@fastify/formbody`. GET routes guard
 * in `onRequest`; the form route in `preHandler`, after the body is parsed.
 *
 * @module
 */
import formbody from '@fastify/formbody';
import gatehouse from '@gatehouse/fastify';
import Fastify, { type RouteHandlerMethod } from 'fastify';
import { type AppSetup, describeAuth, ROLES, type RunningApp, SCOPES, STEP_UP, tlsOptions } from './app.js';

/** Start the Fastify app of the suite. */
export async function startFastify(setup: AppSetup): Promise<RunningApp> {
  const { verifier, resourceMetadata, origin, maxHeaderSize, tls } = setup;
  const app = Fastify({
    ...(tls === undefined ? { http: { maxHeaderSize } } : { https: { maxHeaderSize, ...tlsOptions(tls) } }),
    trustProxy: setup.trustProxy === true,
  });
  await app.register(formbody);
  await app.register(gatehouse, { verifier, resourceMetadata, origin });
  const reply: RouteHandlerMethod = async (request) => describeAuth(request.auth);
  const { requireAuth, optionalAuth, requireScope, requireRole, refuseDelegation } = app;

  app.get('/me', { onRequest: requireAuth }, reply);
  app.get('/optional', { onRequest: optionalAuth }, reply);
  app.get('/optional/scoped', { onRequest: [optionalAuth, requireScope(SCOPES.one)] }, reply);
  app.get('/scoped/one', { onRequest: [requireAuth, requireScope(SCOPES.one)] }, reply);
  app.get('/scoped/all', { onRequest: [requireAuth, requireScope(SCOPES.pair)] }, reply);
  app.get('/scoped/any', { onRequest: [requireAuth, requireScope(SCOPES.pair, { mode: 'any' })] }, reply);
  app.get('/no-delegation', { onRequest: [requireAuth, refuseDelegation] }, reply);
  app.get(
    '/no-delegation/scoped',
    { onRequest: [requireAuth, requireScope(SCOPES.one, { allowDelegation: false })] },
    reply,
  );
  app.get('/roles/one', { onRequest: [requireAuth, requireRole(ROLES.one)] }, reply);
  app.get('/roles/all', { onRequest: [requireAuth, requireRole(ROLES.pair)] }, reply);
  app.get('/roles/any', { onRequest: [requireAuth, requireRole(ROLES.pair, { mode: 'any' })] }, reply);
  app.get(
    '/roles/scoped',
    { onRequest: [requireAuth, requireScope(SCOPES.one), requireRole(ROLES.one)] },
    reply,
  );
  app.get('/step-up', { onRequest: [requireAuth, requireScope(SCOPES.one, STEP_UP)] }, reply);
  app.post('/form', { preHandler: requireAuth }, reply);

  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: address, close: () => app.close() };
}
