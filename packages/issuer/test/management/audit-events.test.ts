/** `GET /api/audit-events`: filters, ISO time bounds, strict query, the `audit:read` scope. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld } from '../helpers/fixtures.js';
import { adminToken, api, managementToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
    admin = await adminToken(t);
    alice = (await t.issuer.store.users.findByLogin('alice'))!.id;
    await t.issuer.store.auditEvents.record(
      { id: 'evt_old', type: 'token_exchange.failed', applicationId: 'web-app', userId: alice, reason: 'x' },
      1_000_000_000,
    );
    await api(t, admin, 'POST', '/subject-tokens', { userId: alice });
  });
  afterAll(() => t.close());

  describe('GET /api/audit-events', () => {
    it('lists newest first and filters by user, application, type and time', async () => {
      const all = await api(t, admin, 'GET', `/audit-events?userId=${alice}`);
      expect(all.status).toBe(200);
      expect(all.body.items.map((e: { type: string }) => e.type)).toEqual([
        'subject_token.created',
        'token_exchange.failed',
      ]);
      expect(all.body.items[1].createdAt).toBe('2001-09-09T01:46:40.000Z');
      const old = await api(t, admin, 'GET', '/audit-events?until=2002-01-01T00:00:00Z');
      expect(old.body.items.map((e: { id: string }) => e.id)).toEqual(['evt_old']);
      const recent = await api(t, admin, 'GET', '/audit-events?since=2002-01-01T00:00:00%2B02:00');
      expect(recent.body.items.map((e: { type: string }) => e.type)).toEqual(['subject_token.created']);
      const app = await api(
        t,
        admin,
        'GET',
        '/audit-events?applicationId=web-app&type=token_exchange.failed',
      );
      expect(app.body.total).toBe(1);
      const actor = await api(t, admin, 'GET', '/audit-events?actorId=usr_nobody');
      expect(actor.body).toMatchObject({ items: [], total: 0 });
      // Any of several types (one page of a console view): counted and paged as one list.
      const several = await api(
        t,
        admin,
        'GET',
        `/audit-events?userId=${alice}&type=token_exchange.failed,subject_token.created&pageSize=1`,
      );
      expect(several.body).toMatchObject({ total: 2, pageSize: 1 });
      expect(several.body.items.map((e: { type: string }) => e.type)).toEqual(['subject_token.created']);
    });

    it.each([
      ['an unknown filter', '?user=x'],
      ['a bad time', '?since=yesterday'],
      ['an unknown type', '?type=login'],
      ['an unknown type among known ones', '?type=subject_token.created,login'],
      ['an empty type', '?type='],
      ['a repeated filter', `?userId=a&userId=b`],
    ])('%s → 400', async (_, query) => {
      const res = await api(t, admin, 'GET', `/audit-events${query}`);
      expect(res.status).toBe(400);
    });

    it('needs all or audit:read', async () => {
      const reader = await managementToken(t, ['audit:read']);
      expect((await api(t, reader, 'GET', '/audit-events')).status).toBe(200);
      const other = await managementToken(t, ['subject-tokens:create']);
      expect((await api(t, other, 'GET', '/audit-events')).status).toBe(403);
    });
  });
});
