/**
 * B97: two issuer instances on one PostgreSQL database, both running the delivery loop, deliver each
 * event exactly once (deliveries are claimed atomically), even when the receiver is slow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { loadWorld } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe('postgres: two instances', () => {
  let t: TestIssuer;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startIssuer('postgres');
    await loadWorld(t);
    // A slow receiver: both instances poll while deliveries are in flight.
    receiver = await startWebhookReceiver(async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return 204;
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('B97: deliver each of 30 events exactly once', async () => {
    expect(t.instances).toHaveLength(2);
    const admin = await adminToken(t);
    const hook = await api(t, admin, 'POST', '/webhooks', {
      url: receiver.url,
      events: ['subject_token.created'],
    });
    const alice = (await t.issuer.store.users.findByLogin('alice'))!.id;
    // Through the load balancer: the events are recorded by both instances.
    const minted = await Promise.all(
      Array.from({ length: 30 }, () => api(t, admin, 'POST', '/subject-tokens', { userId: alice })),
    );
    expect(minted.every((res) => res.status === 201)).toBe(true);

    await receiver.until((received) => received.length >= 30);
    const settled = await eventually(
      () => t.issuer.store.webhooks.listDeliveries(hook.body.id, { page: 1, pageSize: 100 }),
      (page) => page.items.every((item) => item.status === 'delivered'),
    );
    // Several more polls of both instances: nothing is sent again.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received).toHaveLength(30);
    const ids = receiver.received.map(
      (delivery) =>
        verifyWebhookSignature({
          secret: hook.body.secret,
          body: delivery.body,
          header: delivery.headers['gatehouse-signature'],
        }).id,
    );
    expect(new Set(ids).size).toBe(30);
    expect(settled.total).toBe(30);
    expect(settled.items.every((item) => item.attempts === 1)).toBe(true);
  });
});
