/**
 * F16 through the Management API, on a real issuer (two instances on PostgreSQL) and a real loopback
 * receiver: an endpoint that keeps failing for `webhooks.disableAfter` is disabled — the listing shows
 * it (`status`, `failingSince`, `disabledAt`), the audit trail has `webhook.disabled`, its pending
 * delivery is given up and new events are not queued for it — and `POST /webhooks/{id}/enable` brings
 * it back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { mintSubjectToken, userId } from '../helpers/exchange.js';
import { loadWorld } from '../helpers/fixtures.js';
import { adminToken, api, managementToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let receiver: WebhookReceiver;
  let healthy = false;

  beforeAll(async () => {
    t = await startIssuer(driver, { webhooks: { disableAfter: 1 } });
    await loadWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
    receiver = await startWebhookReceiver(() => (healthy ? 204 : 503));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('F16: an endpoint failing for webhooks.disableAfter is disabled, listed as such and audited; enable brings it back', async () => {
    const created = await api(t, admin, 'POST', '/webhooks', {
      url: receiver.url,
      events: ['subject_token.created'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'active', failingSince: null, disabledAt: null });
    const id = created.body.id as string;
    await mintSubjectToken(t, admin, { userId: alice });

    const disabled = await eventually(
      () => api(t, admin, 'GET', `/webhooks/${id}`),
      (res) => res.body.status === 'disabled',
      15_000,
    );
    expect(disabled.body.failingSince).toEqual(expect.any(String));
    expect(
      Date.parse(disabled.body.disabledAt) - Date.parse(disabled.body.failingSince),
    ).toBeGreaterThanOrEqual(1_000);
    const listed = await api(t, admin, 'GET', '/webhooks');
    expect(listed.body.items.find((item: { id: string }) => item.id === id)).toMatchObject({
      status: 'disabled',
    });

    const audited = await api(t, admin, 'GET', '/audit-events?type=webhook.disabled');
    expect(audited.status).toBe(200);
    expect(audited.body.items).toHaveLength(1);
    expect(audited.body.items[0]).toMatchObject({
      type: 'webhook.disabled',
      reason: 'endpoint_failing',
      details: { webhookId: id, failingSince: disabled.body.failingSince },
    });
    expect(JSON.stringify(audited.body)).not.toContain(receiver.url);

    const given = await eventually(
      () => api(t, admin, 'GET', `/webhooks/${id}/deliveries`),
      (res) => res.body.items.every((item: { status: string }) => item.status === 'failed'),
    );
    expect(given.body.total).toBe(1);
    // While disabled, events are not queued for it.
    await mintSubjectToken(t, admin, { userId: alice });
    expect((await api(t, admin, 'GET', `/webhooks/${id}/deliveries`)).body.total).toBe(1);

    // Enabling takes webhooks:write; then the endpoint receives events again.
    const reader = await managementToken(t, ['webhooks:read']);
    expect((await api(t, reader, 'POST', `/webhooks/${id}/enable`)).status).toBe(403);
    healthy = true;
    const enabled = await api(t, admin, 'POST', `/webhooks/${id}/enable`);
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ id, status: 'active', failingSince: null, disabledAt: null });
    await mintSubjectToken(t, admin, { userId: alice });
    await receiver.until((received) => received.some((delivery) => delivery.status === 204));
    expect((await api(t, admin, 'POST', '/webhooks/whk_unknown/enable')).status).toBe(404);
  });
});
