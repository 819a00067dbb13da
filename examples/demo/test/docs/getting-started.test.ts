/**
 * The samples of docs/getting-started.md and README.md, run: the protected Express app, the audit
 * middleware, and the test against examples/express-api.
 */
import { toAuditRecord } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/express';
import { createTestIssuer } from '@gatehouse/testing';
import express from 'express';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../express-api/src/app.ts';
import { bearer, useExampleIssuer } from './example-issuer.ts';

const example = await useExampleIssuer('https://api.example.com/orders');

function protectRoutes() {
  const app = express();
  app.use(
    '/orders',
    requireAuth({
      issuer: 'https://id.example.com/oidc', // your authorization server's issuer identifier
      audience: 'https://api.example.com/orders', // this API's resource indicator
    }),
  );

  // After app.use('/orders', requireAuth(…)), before app.get('/orders', …):
  app.use('/orders', (req, _res, next) => {
    if (req.auth?.delegated) console.log(JSON.stringify(toAuditRecord(req.auth)));
    // {"subject":"customer-42","actor":"support-7","actorChain":["support-7"],...}
    next();
  });

  app.get('/orders', requireScope('read:orders'), (req, res) => {
    res.json({ orders: [], for: req.auth?.subject });
  });
  app.delete('/orders/:id', requireScope('write:orders', { allowDelegation: false }), (_req, res) => {
    res.status(204).end();
  });
  return app;
}

describe('getting started: protect routes, log who really acted', () => {
  it('answers 200, 403 insufficient_scope, 401, and 403 access_denied under impersonation', async () => {
    const app = protectRoutes();
    await request(app)
      .get('/orders')
      .set(bearer(await example.sign({ sub: 'customer-42', scope: 'read:orders' })))
      .expect(200, { orders: [], for: 'customer-42' });
    const denied = await request(app)
      .get('/orders')
      .set(bearer(await example.sign({ scope: 'profile' })));
    expect([denied.status, denied.body.error]).toEqual([403, 'insufficient_scope']);
    await request(app).get('/orders').expect(401);
    const acting = await example.impersonation('support-7', {
      sub: 'customer-42',
      scope: 'read:orders write:orders',
    });
    const refused = await request(app).delete('/orders/1').set(bearer(acting));
    expect([refused.status, refused.body.error]).toEqual([403, 'access_denied']);
    await request(app)
      .delete('/orders/1')
      .set(bearer(await example.sign({ scope: 'write:orders' })))
      .expect(204);
  });

  it('logs one line with customer and actor for an impersonation request, and never the token', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const acting = await example.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
      await request(protectRoutes()).get('/orders').set(bearer(acting)).expect(200);
      expect(log).toHaveBeenCalledTimes(1);
      const line = String(log.mock.calls[0]![0]);
      expect(JSON.parse(line)).toMatchObject({
        subject: 'customer-42',
        actor: 'support-7',
        actorChain: ['support-7'],
      });
      expect(line).not.toContain(acting);
    } finally {
      log.mockRestore();
    }
  });
});

describe('getting started: test it without a network (examples/express-api)', () => {
  it('answers 403 for a token without read:orders', async () => {
    const issuer = await createTestIssuer({ audience: 'https://api.example.com/orders' });
    const app = createApp({ ...issuer.verifierOptions(), fetch: issuer.fetch });

    const token = await issuer.sign({ scope: 'profile' });
    await request(app).get('/orders').auth(token, { type: 'bearer' }).expect(403); // insufficient_scope
  });
});
