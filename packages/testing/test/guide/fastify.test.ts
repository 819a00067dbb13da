import { createVerifier, InsufficientScopeError, isAuthError } from '@gatehouse/core';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestIssuer, onUnhandledRequest } from '../../src/index.js';

// Stand-in for `@gatehouse/fastify` (app.requireAuth / app.requireScope), on core's verifier.
const issuer = await createTestIssuer();
const verifier = createVerifier(issuer.verifierOptions());
const requireScope = (scope: string) => async (request: FastifyRequest, reply: FastifyReply) => {
  try {
    const auth = await verifier.authenticate({
      headers: request.headers,
      rawHeaders: request.raw.rawHeaders,
    });
    if (!auth.hasScope(scope)) throw new InsufficientScopeError([scope], 'all');
    return undefined;
  } catch (error) {
    if (!isAuthError(error)) throw error;
    return reply.code(error.status).headers(error.headers).send(error.toJSON());
  }
};

const server = setupServer(...issuer.handlers);
const app = Fastify();
app.get('/orders', { onRequest: requireScope('read:orders') }, async () => []);
beforeAll(() => server.listen({ onUnhandledRequest }));
afterAll(async () => {
  server.close();
  await app.close();
});

it('fastify.inject: a token with read:orders gets 200, one without gets 403 insufficient_scope', async () => {
  const ok = await app.inject({
    url: '/orders',
    headers: { authorization: `Bearer ${await issuer.sign({ scope: 'read:orders' })}` },
  });
  expect(ok.statusCode).toBe(200);
  const denied = await app.inject({
    url: '/orders',
    headers: { authorization: `Bearer ${await issuer.sign()}` },
  });
  expect(denied.statusCode).toBe(403);
  expect(denied.json()).toMatchObject({ error: 'insufficient_scope' });
  expect(denied.headers['www-authenticate']).toContain('scope="read:orders"');
});

it('fastify.inject: the 503 path when the JWKS is down', async () => {
  const fresh = Fastify();
  const down = createVerifier(issuer.verifierOptions());
  fresh.get('/orders', async (request, reply) => {
    try {
      await down.authenticate({ headers: request.headers });
      return [];
    } catch (error) {
      if (!isAuthError(error)) throw error;
      return reply.code(error.status).headers(error.headers).send(error.toJSON());
    }
  });
  server.use(issuer.outage.serverError());
  const res = await fresh.inject({
    url: '/orders',
    headers: { authorization: `Bearer ${await issuer.sign()}` },
  });
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(res.json()).toMatchObject({ error: 'temporarily_unavailable' });
  server.resetHandlers();
  await fresh.close();
});
