/**
 * docs/audit-logs.md and README.md: reading `act` with core, the audit line's fields, actor chains.
 */
import { createVerifier, toAuditRecord } from '@gatehouse/core';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../express-api/src/app.ts';
import { useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer('https://api.example.com/orders');

describe('reading act', () => {
  it('core: the customer is the subject, the engineer the actor', async () => {
    const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const verifier = createVerifier({
        issuer: 'https://id.example.com/oidc',
        audience: 'https://api.example.com/orders',
      });

      const auth = await verifier.verify(token, { scopes: ['read:orders'] });
      auth.subject; // 'customer-42': whose data this request is about
      auth.actor?.sub; // 'support-7': who is really acting (undefined without act)
      console.log(JSON.stringify(toAuditRecord(auth)));
      // {"subject":"customer-42","actor":"support-7","actorChain":["support-7"],"delegated":true,...}

      expect([auth.subject, auth.actor?.sub, auth.delegated]).toEqual(['customer-42', 'support-7', true]);
      const record = JSON.parse(String(log.mock.calls[0]![0]));
      expect(Object.keys(record)).toEqual([
        'subject',
        'actor',
        'actorChain',
        'delegated',
        'clientId',
        'jti',
        'issuer',
        'audience',
        'scopes',
        'expiresAt',
      ]);
      expect(record).toMatchObject({ subject: 'customer-42', actor: 'support-7', actorChain: ['support-7'] });
      expect(JSON.stringify(record)).not.toContain(token);
    } finally {
      log.mockRestore();
    }
  });

  it('an actor chain lists the actors, most recent first', async () => {
    const token = await issuer.impersonation(
      { sub: 'support-7', client_id: 'support-console', act: { sub: 'ops-bot' } },
      { sub: 'customer-42' },
    );
    const auth = await createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch }).verify(token);
    expect(toAuditRecord(auth)).toMatchObject({ actor: 'support-7', actorChain: ['support-7', 'ops-bot'] });
    expect(auth.actor).toEqual({ sub: 'support-7', client_id: 'support-console', act: { sub: 'ops-bot' } });
  });

  it('examples/express-api writes one line per impersonated request, refused ones included', async () => {
    const lines: string[] = [];
    const app = createApp({
      ...issuer.verifierOptions(),
      fetch: issuer.fetch,
      logger: { info: (line) => lines.push(line), error: (line) => lines.push(line) },
    });
    const token = await issuer.impersonation('support-7', {
      sub: 'customer-42',
      scope: 'read:orders write:orders',
    });
    await request(app).get('/orders').auth(token, { type: 'bearer' }).expect(200);
    await request(app).delete('/orders/x').auth(token, { type: 'bearer' }).expect(403);
    await request(app)
      .get('/orders')
      .auth(await issuer.sign({ sub: 'customer-42', scope: 'read:orders' }), { type: 'bearer' })
      .expect(200);
    expect(lines.map((line) => JSON.parse(line)).map((l) => [l.event, l.method, l.subject, l.actor])).toEqual(
      [
        ['impersonation', 'GET', 'customer-42', 'support-7'],
        ['impersonation', 'DELETE', 'customer-42', 'support-7'],
      ],
    );
  });
});
