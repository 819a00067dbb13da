/**
 * The webhook store: deliveries queued with the audit event that describes them (and only for the
 * endpoints subscribed to its type), claimed atomically (B97: of concurrent claimers, on one store or
 * on two connections to one PostgreSQL database, each delivery goes to exactly one), settled only
 * under the claim that is still the row's, bounded per endpoint (F16), skipped and not queued for a
 * disabled endpoint, and copied by `copyStore`; secret rotation (F18).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/open.js';
import type { NewAuditEvent, Store, WebhookDeliveryRecord } from '../../src/storage/store.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';

describe.each(DRIVERS)('%s', (driver) => {
  let store: Store;
  let other: Store;
  let database: string;
  const now = 1_764_165_600;
  let n = 0;
  const event = (type: string, extra: Partial<NewAuditEvent> = {}): NewAuditEvent => ({
    id: `evt_${driver}_${++n}`,
    type: type as NewAuditEvent['type'],
    userId: 'usr_1',
    ...extra,
  });

  beforeAll(async () => {
    // SQLite: one store (one process); PostgreSQL: two pools on one schema, as two issuer processes.
    database = await freshDatabase(driver);
    store = openStore(database);
    await store.migrate();
    other = driver === 'sqlite' ? store : openStore(database);
  });
  afterAll(async () => {
    if (other !== store) await other.close();
    await store.close();
  });

  const endpoint = (id: string, events: readonly string[]) =>
    store.webhooks.createEndpoint(
      {
        id,
        url: `https://hooks.example.com/${id}`,
        description: '',
        events: events as never,
        secret: 'v1.sealed',
      },
      now,
    );
  const drain = async (s: Store, limit = 3) => {
    const claimed: WebhookDeliveryRecord[] = [];
    for (;;) {
      const batch = await s.webhooks.claimDue(Date.now(), Date.now() + 60_000, limit, 1_000);
      if (batch.length === 0) return claimed;
      claimed.push(...batch);
    }
  };

  it('an audit event queues one delivery per subscribed endpoint, with the event as payload', async () => {
    await endpoint('whk_failed', ['token_exchange.failed']);
    await endpoint('whk_both', ['token_exchange.failed', 'subject_token.created']);
    const failed = event('token_exchange.failed', {
      reason: 'subject_token_consumed',
      details: { resource: 'https://orders' },
    });
    await store.auditEvents.record(failed, now);
    await store.auditEvents.record(event('sign_in.failed'), now);
    const created = event('subject_token.created');
    await store.auditEvents.record(created, now);
    const claimed = await drain(store);
    expect(claimed.map((d) => `${d.eventId}→${d.endpointId}`).sort()).toEqual(
      [`${failed.id}→whk_both`, `${failed.id}→whk_failed`, `${created.id}→whk_both`].sort(),
    );
    expect(JSON.parse(claimed.find((d) => d.eventId === failed.id)!.payload)).toEqual({
      id: failed.id,
      type: 'token_exchange.failed',
      createdAt: new Date(now * 1000).toISOString(),
      applicationId: null,
      userId: 'usr_1',
      actorId: null,
      reason: 'subject_token_consumed',
      details: { resource: 'https://orders' },
      traceId: null, // recorded outside a traced request
    });
    for (const d of claimed)
      expect(await store.webhooks.settle(d, { status: 'delivered', httpStatus: 204, error: null }, now)).toBe(
        true,
      );
  });

  it('an event recorded with a change is queued only when the change happened (same statement or transaction)', async () => {
    await store.subjectTokens.create(
      {
        id: 'stk_1',
        tokenHash: 'h'.repeat(64),
        userId: 'usr_1',
        context: {},
        createdBy: 'app',
        expiresAt: now + 600,
      } as never,
      now,
    );
    const won = event('token_exchange.succeeded');
    expect(await store.subjectTokens.consume('h'.repeat(64), now, won)).toBeDefined();
    const lost = event('token_exchange.succeeded');
    expect(await store.subjectTokens.consume('h'.repeat(64), now, lost)).toBeUndefined();
    await endpoint('whk_success', ['token_exchange.succeeded']);
    const again = event('token_exchange.succeeded');
    await store.subjectTokens.create(
      {
        id: 'stk_2',
        tokenHash: 'i'.repeat(64),
        userId: 'usr_1',
        context: {},
        createdBy: 'app',
        expiresAt: now + 600,
      } as never,
      now,
    );
    expect(await store.subjectTokens.consume('i'.repeat(64), now, again)).toBeDefined();
    const claimed = await drain(store);
    expect(claimed.map((d) => d.eventId)).toEqual([again.id]);
    await store.webhooks.settle(claimed[0]!, { status: 'delivered', httpStatus: 200, error: null }, now);
  });

  it('B97: concurrent claimers never get the same delivery', async () => {
    await endpoint('whk_race', ['personal_access_token.revoked']);
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const e = event('personal_access_token.revoked');
      ids.push(e.id);
      await store.auditEvents.record(e, now);
    }
    // Connections open before the race, so every claimer is in it from the start.
    await Promise.all([store.ping(), store.ping(), other.ping(), other.ping()]);
    const results = await Promise.all([drain(store, 1), drain(other, 1), drain(store, 1), drain(other, 1)]);
    const all = results.flat();
    // The claimers shared the work: none locked rows it did not claim (which the others would skip).
    expect(results.filter((r) => r.length > 0).length).toBeGreaterThan(1);
    expect(all.map((d) => d.eventId).sort()).toEqual([...ids].sort());
    expect(new Set(all.map((d) => d.eventId)).size).toBe(60);
    for (const d of all)
      await store.webhooks.settle(d, { status: 'delivered', httpStatus: 204, error: null }, now);
  });

  it('a retry waits for its time; a lapsed claim is taken over and the late settle is refused', async () => {
    await endpoint('whk_retry', ['impersonation.ended']);
    await store.auditEvents.record(event('impersonation.ended'), now);
    const [first] = await store.webhooks.claimDue(Date.now(), Date.now() + 60_000, 10, 10);
    expect(first!.attempts).toBe(1);
    expect(await store.webhooks.claimDue(Date.now(), Date.now() + 60_000, 10, 10)).toEqual([]);
    const retryAt = Date.now() + 5_000;
    await store.webhooks.settle(
      first!,
      { status: 'pending', httpStatus: 500, error: 'http 500', retryAtMs: retryAt },
      now,
    );
    expect(await store.webhooks.claimDue(retryAt - 1, retryAt + 60_000, 10, 10)).toEqual([]);
    const [second] = await store.webhooks.claimDue(retryAt, retryAt + 1_000, 10, 10);
    expect(second).toMatchObject({ attempts: 2, lastError: 'http 500', lastStatus: 500 });
    // The claim lapses (its process died mid-attempt): another claimer takes it; the first one's settle is refused.
    const [third] = await other.webhooks.claimDue(retryAt + 1_000, retryAt + 70_000, 10, 10);
    expect(third!.attempts).toBe(3);
    expect(
      await store.webhooks.settle(second!, { status: 'delivered', httpStatus: 204, error: null }, now),
    ).toBe(false);
    expect(
      await other.webhooks.settle(
        third!,
        { status: 'failed', httpStatus: null, error: 'connection failed' },
        now + 1,
      ),
    ).toBe(true);
    const { items } = await store.webhooks.listDeliveries('whk_retry', { page: 1, pageSize: 10 });
    expect(items[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastError: 'connection failed',
      lastAttemptAt: now + 1,
      deliveredAt: null,
    });
    expect(await store.webhooks.claimDue(retryAt + 100_000, retryAt + 200_000, 10, 10)).toEqual([]);
  });

  it('deleting an endpoint deletes its subscriptions and deliveries', async () => {
    await endpoint('whk_gone', ['impersonation.ended']);
    await store.auditEvents.record(event('impersonation.ended'), now);
    expect((await store.webhooks.listDeliveries('whk_gone', { page: 1, pageSize: 10 })).total).toBe(1);
    expect(await store.webhooks.deleteEndpoint('whk_gone')).toBe(true);
    expect(await store.webhooks.deleteEndpoint('whk_gone')).toBe(false);
    expect((await store.webhooks.listDeliveries('whk_gone', { page: 1, pageSize: 10 })).total).toBe(0);
    await store.auditEvents.record(event('impersonation.ended'), now);
    // Only the remaining subscriber gets it (and the event queued before the deletion).
    expect((await drain(store)).map((d) => d.endpointId)).toEqual(['whk_retry', 'whk_retry']);
  });

  it('the purge deletes settled deliveries created before the cutoff and keeps pending ones', async () => {
    const all = async () =>
      (await store.webhooks.listDeliveries('whk_retry', { page: 1, pageSize: 100 })).items;
    const before = await all();
    expect(before.map((d) => d.status).sort()).toEqual(['failed', 'pending', 'pending']);
    expect(await store.webhooks.purgeSettled(now)).toBe(0);
    // Every settled delivery of the earlier tests (delivered and failed), of every endpoint.
    expect(await store.webhooks.purgeSettled(now + 1)).toBeGreaterThan(60);
    expect((await all()).map((d) => d.status)).toEqual(['pending', 'pending']);
    expect(await store.webhooks.purgeSettled(now + 1)).toBe(0);
  });

  it('F16: a claim takes at most perEndpoint deliveries of an endpoint, counting those already held by anyone', async () => {
    await endpoint('whk_bounded', ['subject_token.created']);
    await endpoint('whk_other', ['subject_token.created']);
    for (let i = 0; i < 5; i++) await store.auditEvents.record(event('subject_token.created'), now);
    const claim = (s: Store) => s.webhooks.claimDue(Date.now(), Date.now() + 60_000, 100, 2);
    const first = await claim(store);
    expect(first.filter((d) => d.endpointId === 'whk_bounded')).toHaveLength(2);
    expect(first.filter((d) => d.endpointId === 'whk_other')).toHaveLength(2);
    // Held by "another process": nothing more for either endpoint until one is settled.
    expect(await claim(other)).toEqual([]);
    await store.webhooks.settle(first[0]!, { status: 'delivered', httpStatus: 204, error: null }, now);
    const next = await claim(other);
    expect(next).toHaveLength(1);
    expect(next[0]!.endpointId).toBe(first[0]!.endpointId);
    for (const d of [...first.slice(1), ...next])
      await store.webhooks.settle(d, { status: 'delivered', httpStatus: 204, error: null }, now);
  });

  it('F16: disabling records webhook.disabled with the change, gives up pending deliveries, queues and claims nothing more', async () => {
    await endpoint('whk_down', ['impersonation.ended']);
    await store.auditEvents.record(event('impersonation.ended'), now);
    await store.auditEvents.record(event('impersonation.ended'), now);
    // One of its two deliveries is held (a process is attempting it).
    const held = (await store.webhooks.claimDue(Date.now(), Date.now() + 60_000, 100, 1)).find(
      (d) => d.endpointId === 'whk_down',
    );
    expect(await store.webhooks.noteFailure('whk_down', now)).toBe(now);
    expect(await store.webhooks.noteFailure('whk_down', now + 50)).toBe(now);
    const disabledEvent = {
      id: `evt_${driver}_disabled`,
      type: 'webhook.disabled' as const,
      details: { webhookId: 'whk_down' },
    };
    // Not failing long enough: nothing changes, no event.
    expect(
      await store.webhooks.disableEndpoint('whk_down', now - 1, disabledEvent, now + 60),
    ).toBeUndefined();
    expect(
      (await store.auditEvents.list({ type: 'webhook.disabled' }, { page: 1, pageSize: 10 })).total,
    ).toBe(0);
    const disabled = await store.webhooks.disableEndpoint('whk_down', now, disabledEvent, now + 60);
    expect(disabled).toMatchObject({ disabledAt: now + 60, failingSince: now });
    expect(
      await store.webhooks.disableEndpoint('whk_down', now, { ...disabledEvent, id: 'evt_again' }, now + 61),
    ).toBeUndefined();
    const audited = await store.auditEvents.list({ type: 'webhook.disabled' }, { page: 1, pageSize: 10 });
    expect(audited.items.map((item) => item.id)).toEqual([disabledEvent.id]);
    // The unheld delivery is given up; the held one's retry is recorded as failed when it settles.
    const deliveries = async () =>
      (await store.webhooks.listDeliveries('whk_down', { page: 1, pageSize: 10 })).items;
    expect((await deliveries()).map((d) => d.status).sort()).toEqual(['failed', 'pending']);
    expect(
      await store.webhooks.settle(
        held!,
        { status: 'pending', httpStatus: 503, error: 'http 503', retryAtMs: Date.now() },
        now + 61,
      ),
    ).toBe(true);
    expect((await deliveries()).map((d) => d.status)).toEqual(['failed', 'failed']);
    await store.auditEvents.record(event('impersonation.ended'), now);
    expect(await deliveries()).toHaveLength(2);
    // (Other endpoints subscribed to the type get theirs.)
    const others = await store.webhooks.claimDue(Date.now(), Date.now() + 60_000, 100, 10);
    expect(others.filter((d) => d.endpointId === 'whk_down')).toEqual([]);
    for (const d of others)
      await store.webhooks.settle(d, { status: 'delivered', httpStatus: 204, error: null }, now);
    // Enabled again: no longer failing, new events are queued.
    expect(await store.webhooks.enableEndpoint('whk_down', now + 70)).toMatchObject({
      disabledAt: null,
      failingSince: null,
    });
    await store.webhooks.noteSuccess('whk_down');
    await store.auditEvents.record(event('impersonation.ended'), now);
    expect(await deliveries()).toHaveLength(3);
    for (const d of await drain(store))
      await store.webhooks.settle(d, { status: 'delivered', httpStatus: 204, error: null }, now);
  });

  it('F18: rotating a secret keeps the replaced one as the previous, until the given time', async () => {
    await endpoint('whk_rotate', ['impersonation.ended']);
    const rotated = await store.webhooks.rotateSecret('whk_rotate', 'v1.new', now + 600, now + 1);
    expect(rotated).toMatchObject({
      secret: 'v1.new',
      previousSecret: 'v1.sealed',
      previousSecretExpiresAt: now + 600,
      updatedAt: now + 1,
    });
    const again = await store.webhooks.rotateSecret('whk_rotate', 'v1.newer', now + 700, now + 2);
    expect(again).toMatchObject({ secret: 'v1.newer', previousSecret: 'v1.new' });
    expect(await store.webhooks.rotateSecret('whk_none', 'v1.x', now, now)).toBeUndefined();
  });
});
