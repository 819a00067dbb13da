import express from 'express';
import { setupServer } from 'msw/node';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestIssuer, onUnhandledRequest } from '../../src/index.js';
import { requireAuth, requireScope } from '../helpers/express-stand-in.js';

const issuer = await createTestIssuer();
const server = setupServer(...issuer.handlers);
beforeAll(() => server.listen({ onUnhandledRequest }));
afterAll(() => server.close());

// As in docs/testing.md §3, with a stand-in for @gatehouse/express.
const app = express();
const auth = requireAuth({ issuer: issuer.issuer, audience: issuer.audience });
app.get('/orders', auth, requireScope('read:orders'), (_req, res) => {
  res.json([]);
});

it('GET /orders with a token lacking read:orders returns 403 insufficient_scope', async () => {
  const token = await issuer.sign({ scope: 'write:orders' });
  const res = await request(app).get('/orders').auth(token, { type: 'bearer' });
  expect(res.status).toBe(403);
  expect(res.body.error).toBe('insufficient_scope');
  expect(res.headers['www-authenticate']).toContain('scope="read:orders"');
});

it('GET /orders with read:orders returns 200', async () => {
  const token = await issuer.sign({ scope: 'read:orders' });
  await request(app).get('/orders').auth(token, { type: 'bearer' }).expect(200, []);
});

it.each([
  'expired',
  'notYetValid',
  'wrongAudience',
  'wrongIssuer',
  'unknownKey',
  'tamperedSignature',
  'algNone',
] as const)('GET /orders with a %s token returns 401 invalid_token', async (kind) => {
  const token = await issuer.tokens[kind]({ scope: 'read:orders' });
  const res = await request(app).get('/orders').auth(token, { type: 'bearer' });
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
});

it('GET /orders answers 503 when the JWKS is down (a fresh app: no cached keys)', async () => {
  server.use(issuer.outage.serverError());
  const fresh = express();
  fresh.get('/orders', requireAuth({ issuer: issuer.issuer, audience: issuer.audience }), (_req, res) => {
    res.json([]);
  });
  const res = await request(fresh)
    .get('/orders')
    .auth(await issuer.sign(), { type: 'bearer' });
  server.resetHandlers();
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(res.body.error).toBe('temporarily_unavailable');
  expect(res.headers['www-authenticate']).toBeUndefined();
});
