import express from 'express';
import { setupServer } from 'msw/node';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestIssuer, onUnhandledRequest } from '../../src/index.js';
import { requireAuth } from '../helpers/express-stand-in.js';

// The impersonation recipe of docs/testing.md.
const issuer = await createTestIssuer();
const server = setupServer(...issuer.handlers);
beforeAll(() => server.listen({ onUnhandledRequest }));
afterAll(() => server.close());

const app = express();
app.get('/me', requireAuth(issuer.verifierOptions()), (req, res) => {
  const { auth } = req as unknown as { auth: { subject: string; actor?: unknown; delegated: boolean } };
  res.json({ subject: auth.subject, actor: auth.actor, delegated: auth.delegated });
});

it('a support agent acting for a customer is seen as the customer, with the agent as actor', async () => {
  const token = await issuer.impersonation('support-agent-7', { sub: 'customer-42', scope: 'read:orders' });
  const res = await request(app).get('/me').auth(token, { type: 'bearer' });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ subject: 'customer-42', actor: { sub: 'support-agent-7' }, delegated: true });
});

it('a delegation chain shows up nested in actor', async () => {
  const token = await issuer.impersonation(
    { sub: 'support-agent-7', act: { sub: 'ops-bot' } },
    { sub: 'customer-42' },
  );
  const res = await request(app).get('/me').auth(token, { type: 'bearer' });
  expect(res.body.actor).toEqual({ sub: 'support-agent-7', act: { sub: 'ops-bot' } });
});

it('a plain token is not delegated', async () => {
  const res = await request(app)
    .get('/me')
    .auth(await issuer.sign(), { type: 'bearer' });
  expect(res.body).toEqual({ subject: 'user-1', delegated: false });
});
