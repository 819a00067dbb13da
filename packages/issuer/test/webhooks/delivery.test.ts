/**
 * Webhook deliveries end to end, on a real issuer (two instances on PostgreSQL) and a real loopback
 * receiver: a receiver that fails the first two deliveries and then accepts gets the same signed event
 * three times, with growing waits, and the delivery is recorded; every impersonation event type
 * arrives (the `emit` hook included) and no payload holds a token, secret or PAT value (B96); a failed
 * attempt is recorded with a generic cause (F15); a rotated secret keeps signing for its overlap (F18).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditTrail } from '../../src/internal/audit.js';
import { epoch } from '../../src/internal/ids.js';
import { createLogger } from '../../src/logger.js';
import { emit } from '../../src/webhooks/emit.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  PAT_TOKEN_TYPE,
  signedInTokens,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await startIssuer(driver, { tokenExchange: { maxFailures: 1_000 } });
    await loadWorld(t);
    await loadExchangeWorld(t);
    admin = await adminToken(t);
    alice = await userId(t, 'alice');
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const register = async (receiver: WebhookReceiver, events?: readonly string[]) => {
    receivers.push(receiver);
    const res = await api(t, admin, 'POST', '/webhooks', {
      url: receiver.url,
      ...(events ? { events } : {}),
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };

  it('a receiver failing the first two deliveries gets the same signed event a third time, and it is recorded', async () => {
    const receiver = await startWebhookReceiver((n) => (n <= 2 ? 500 : 204));
    const { id, secret } = await register(receiver, ['personal_access_token.created']);
    const started = Date.now();
    const pat = await api(t, admin, 'POST', `/users/${alice}/personal-access-tokens`, {
      name: 'webhook-retry',
    });
    expect(pat.status).toBe(201);

    await receiver.until((received) => received.some((delivery) => delivery.status === 204));
    expect(receiver.received.map((delivery) => delivery.status)).toEqual([500, 500, 204]);
    const [first, second, third] = receiver.received.map((delivery) => delivery.at - started);
    // Backoff: 1 s after the first failure, 2 s after the second (plus up to one poll interval).
    expect(second! - first!).toBeGreaterThanOrEqual(1_000);
    expect(third! - second!).toBeGreaterThanOrEqual(2_000);

    const eventIds = new Set(receiver.received.map((delivery) => delivery.headers['gatehouse-event-id']));
    expect(eventIds.size).toBe(1);
    for (const delivery of receiver.received) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['gatehouse-event-type']).toBe('personal_access_token.created');
      const event = verifyWebhookSignature({
        secret,
        body: delivery.body,
        header: delivery.headers['gatehouse-signature'],
      });
      expect(event).toMatchObject({
        type: 'personal_access_token.created',
        userId: alice,
        details: { personalAccessTokenId: pat.body.id, name: 'webhook-retry' },
      });
      expect(event.id).toBe([...eventIds][0]);
      expect(event.traceId).toBeNull(); // no OpenTelemetry SDK in this process
      expect(delivery.body).not.toContain(pat.body.value);
    }

    const deliveries = await eventually(
      () => api(t, admin, 'GET', `/webhooks/${id}/deliveries`),
      (res) => res.body.items[0]?.status !== 'pending',
    );
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.total).toBe(1);
    expect(deliveries.body.items[0]).toMatchObject({
      eventId: [...eventIds][0],
      eventType: 'personal_access_token.created',
      status: 'delivered',
      attempts: 3,
      lastStatus: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(deliveries.body.items[0].deliveredAt).not.toBeNull();
    expect(JSON.stringify(deliveries.body)).not.toContain(secret);
  });

  it('B96: every impersonation event arrives, signed, and no payload holds a token, secret or PAT value', async () => {
    const receiver = await startWebhookReceiver();
    const { id, secret } = await register(receiver);
    const samToken = (await signedInTokens(t, 'sam')).access_token as string;
    const subjectToken = await mintSubjectToken(t, admin, { userId: alice });
    const exchanged = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: samToken,
      actor_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(exchanged.status).toBe(200);
    const replayed = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(replayed.status).toBe(400);
    const pat = await api(t, admin, 'POST', `/users/${alice}/personal-access-tokens`, {
      name: 'webhook-all',
    });
    const patExchange = await exchange(t, {
      subject_token: pat.body.value,
      subject_token_type: PAT_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(patExchange.status).toBe(200);
    expect(
      (await api(t, admin, 'DELETE', `/users/${alice}/personal-access-tokens/${pat.body.id}`)).status,
    ).toBe(204);
    const ended = await emit(
      createAuditTrail(
        t.issuer.store,
        createLogger({ ...t.issuer.config, log: { ...t.issuer.config.log, level: 'silent' } }),
        epoch,
      ),
      {
        type: 'impersonation.ended',
        applicationId: null,
        userId: alice,
        actorId: null,
        details: { endedBy: 'test' },
      },
    );

    const types = [
      'subject_token.created',
      'token_exchange.succeeded',
      'token_exchange.failed',
      'personal_access_token.created',
      'personal_access_token.revoked',
      'impersonation.ended',
    ];
    // One of each, a second exchange success (the PAT's), and the endpoint's own registration (a
    // Management API change, recorded with it): eight events, in whatever order they arrive.
    await receiver.until((received) => received.length >= 8);
    const events = receiver.received.map((delivery) =>
      verifyWebhookSignature({
        secret,
        body: delivery.body,
        header: delivery.headers['gatehouse-signature'],
      }),
    );
    expect(events.map((event) => event.type).sort()).toEqual(
      [...types, 'token_exchange.succeeded', 'webhook.created'].sort(),
    );
    expect(new Set(events.map((event) => event.id)).size).toBe(8);
    expect(events.find((event) => event.type === 'impersonation.ended')?.id).toBe(ended.id);
    expect(events.find((event) => event.type === 'token_exchange.failed')).toMatchObject({
      applicationId: 'te-web',
      userId: alice,
      reason: 'subject_token_consumed',
    });
    expect(events.filter((event) => event.type === 'token_exchange.succeeded')).toHaveLength(2);
    const everything = receiver.received.map((delivery) => delivery.body).join('\n');
    for (const value of [
      subjectToken,
      samToken,
      exchanged.body.access_token,
      patExchange.body.access_token,
      pat.body.value,
      secret,
      t.admin.clientSecret,
    ])
      expect(everything).not.toContain(value);
    const listed = await eventually(
      () => api(t, admin, 'GET', `/webhooks/${id}/deliveries?pageSize=100`),
      (res) => res.body.items.every((item: { status: string }) => item.status !== 'pending'),
    );
    expect(listed.body.items.every((item: { status: string }) => item.status === 'delivered')).toBe(true);
    expect(JSON.stringify(listed.body)).not.toContain(subjectToken);
    // The issuer's log names events and endpoints, never the secret or the URL.
    // The store shows the outcome before the dispatcher logs it (settled first, then logged): wait for the line.
    await expect.poll(() => t.logs.text).toContain('webhook_delivered');
    expect(t.logs.text).not.toContain(secret);
    expect(t.logs.text).not.toContain(receiver.url);
  });

  it('F18: during a rotation overlap each delivery is signed with both secrets; after it, with the new one only', async () => {
    const receiver = await startWebhookReceiver();
    const { id, secret: old } = await register(receiver, ['subject_token.created']);
    const rotated = await api(t, admin, 'POST', `/webhooks/${id}/secret`, { overlap: 2 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;

    await mintSubjectToken(t, admin, { userId: alice });
    await receiver.until((received) => received.length === 1);
    const during = receiver.received[0]!;
    const header = String(during.headers['gatehouse-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    // A receiver still holding the old secret, and one already switched, both accept it.
    for (const secret of [old, fresh])
      expect(verifyWebhookSignature({ secret, body: during.body, header }).type).toBe(
        'subject_token.created',
      );

    // Once the overlap is over, only the new secret signs.
    const expires = Date.parse(rotated.body.previousSecretExpiresAt);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires - Date.now()) + 1_000));
    await mintSubjectToken(t, admin, { userId: alice });
    await receiver.until((received) => received.length === 2);
    const after = receiver.received[1]!;
    const single = String(after.headers['gatehouse-signature']);
    expect(single.match(/v1=/g)).toHaveLength(1);
    expect(verifyWebhookSignature({ secret: fresh, body: after.body, header: single }).id).toEqual(
      expect.any(String),
    );
    expect(() => verifyWebhookSignature({ secret: old, body: after.body, header: single })).toThrow(
      expect.objectContaining({ reason: 'bad_signature' }),
    );
    expect(t.logs.text).not.toContain(fresh);
  });

  it('F15: a refused connection is recorded as "connection failed", the low-level code only in the log', async () => {
    // A loopback port nobody listens on: bound, noted, closed.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const hook = await api(t, admin, 'POST', '/webhooks', {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['subject_token.created'],
    });
    expect(hook.status).toBe(201);
    await mintSubjectToken(t, admin, { userId: alice });
    const listed = await eventually(
      () => api(t, admin, 'GET', `/webhooks/${hook.body.id}/deliveries`),
      (res) => res.body.items[0]?.lastError !== null && res.body.items[0]?.lastError !== undefined,
    );
    expect(listed.body.items[0]).toMatchObject({
      status: 'pending',
      lastStatus: null,
      lastError: 'connection failed',
    });
    expect(JSON.stringify(listed.body)).not.toMatch(/ECONN|refused|127\.0\.0\.1/i);
    // The operator's log has the low-level code (written just after the outcome is recorded).
    await eventually(
      async () => t.logs.text,
      (text) => text.includes('"errorCode":"ECONNREFUSED"'),
    );
    expect((await api(t, admin, 'DELETE', `/webhooks/${hook.body.id}`)).status).toBe(204);
  });

  it('a delivery that keeps failing records the last error and is retried, never sent to a deleted endpoint', async () => {
    const receiver = await startWebhookReceiver(() => 503);
    const { id } = await register(receiver, ['subject_token.created']);
    await mintSubjectToken(t, admin, { userId: alice });
    await receiver.until((received) => received.length >= 2);
    const listed = await eventually(
      () => api(t, admin, 'GET', `/webhooks/${id}/deliveries`),
      // Settled after its second attempt (not in the middle of one): the next one is in the future.
      (res) => res.body.items[0]?.attempts >= 2 && Date.parse(res.body.items[0].nextAttemptAt) > Date.now(),
    );
    expect(listed.body.items[0]).toMatchObject({ status: 'pending', lastStatus: 503, lastError: 'http 503' });
    expect(listed.body.items[0].attempts).toBeGreaterThanOrEqual(2);
    expect(Date.parse(listed.body.items[0].nextAttemptAt)).toBeGreaterThan(Date.now());
    expect((await api(t, admin, 'DELETE', `/webhooks/${id}`)).status).toBe(204);
    const count = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(receiver.received.length).toBe(count);
  });
});
