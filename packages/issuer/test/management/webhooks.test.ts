/**
 * `/api/webhooks`: the signing secret shown once and stored sealed, never listed (B96); URL rules
 * (B94: https, http only on loopback, no credentials or fragment; F13: no private, link-local,
 * unspecified, mapped or metadata address literal, no internal name) and unknown events refused with
 * 400 `invalid_request`; scopes; delete; the deliveries listing (F17: event bodies only with
 * `audit:read`). Endpoints registered here are on
 * loopback (port 9, where nothing listens): no test targets anything beyond it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_EVENT_TYPES } from '../../src/storage/store.js';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, managementToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;

  beforeAll(async () => {
    t = await startIssuer(driver);
    admin = await adminToken(t);
  });
  afterAll(() => t.close());

  describe('webhook endpoints', () => {
    it('create → 201 with the secret once; stored sealed; listed and read without it (B96)', async () => {
      const res = await api(t, admin, 'POST', '/webhooks', {
        url: 'https://127.0.0.1:9/gatehouse',
        events: ['token_exchange.failed', 'impersonation.ended', 'token_exchange.failed'],
        description: 'SIEM',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        url: 'https://127.0.0.1:9/gatehouse',
        description: 'SIEM',
        events: ['token_exchange.failed', 'impersonation.ended'],
      });
      expect(res.body.id).toMatch(/^whk_/);
      expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(res.headers.get('location')).toBe(`${t.baseUrl}/api/webhooks/${res.body.id}`);

      const stored = await t.issuer.store.webhooks.getEndpoint(res.body.id);
      expect(stored!.secret).toMatch(/^v1\./);
      expect(stored!.secret).not.toContain(res.body.secret.slice(6));

      const read = await api(t, admin, 'GET', `/webhooks/${res.body.id}`);
      expect(read.status).toBe(200);
      expect(Object.keys(read.body).sort()).toEqual([
        'createdAt',
        'description',
        'disabledAt',
        'events',
        'failingSince',
        'id',
        'previousSecretExpiresAt',
        'status',
        'url',
      ]);
      const list = await api(t, admin, 'GET', '/webhooks');
      expect(list.status).toBe(200);
      expect(list.body.items.map((item: { id: string }) => item.id)).toContain(res.body.id);
      expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    });

    it('events default to every webhook event type', async () => {
      const res = await api(t, admin, 'POST', '/webhooks', { url: 'https://127.0.0.1:9/all' });
      expect(res.status).toBe(201);
      expect(res.body.events).toEqual([
        'subject_token.created',
        'token_exchange.succeeded',
        'token_exchange.failed',
        'impersonation.ended',
        'personal_access_token.created',
        'personal_access_token.revoked',
        ...MANAGEMENT_EVENT_TYPES,
      ]);
      expect(res.body.description).toBe('');
    });

    it('B94: http is allowed only on a loopback host', async () => {
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:8080/hook', 'http://[::1]:8080/hook']) {
        const res = await api(t, admin, 'POST', '/webhooks', { url });
        expect(res.status, url).toBe(201);
      }
    });

    it('B94: a bad URL → 400 invalid_request naming body.url, never echoing it', async () => {
      for (const url of [
        'http://hooks.example.com/gatehouse',
        'http://10.0.0.5/hook',
        'ftp://hooks.example.com/x',
        'javascript:alert(1)',
        'https://user:pass@hooks.example.com/x',
        'https://hooks.example.com/x#frag',
        'hooks.example.com/x',
        `https://hooks.example.com/${'a'.repeat(2_100)}`,
      ]) {
        const res = await api(t, admin, 'POST', '/webhooks', { url });
        expect(res.status, url).toBe(400);
        expect(res.body.code).toBe('invalid_request');
        expect(res.body.issues.map((issue: { path: string }) => issue.path)).toEqual(['body.url']);
        expect(JSON.stringify(res.body)).not.toContain('pass@');
      }
    });

    it('F13: a webhook URL whose host is a private, link-local, unspecified, mapped or metadata address literal is refused at registration', async () => {
      for (const url of [
        'https://10.0.0.5/hook',
        'https://172.16.0.1/hook',
        'https://192.168.1.1/hook',
        'https://100.64.0.1/hook',
        'https://[fc00::1]/hook',
        'https://[fe80::1]/hook',
        'https://169.254.1.1/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://2852039166/latest/meta-data', // 169.254.169.254 in decimal
        'https://0xa9.0xfe.0xa9.0xfe/', // and in hex
        'https://[fd00:ec2::254]/',
        'https://100.100.100.200/',
        'https://0.0.0.0/hook',
        'https://[::]/hook',
        'https://[::ffff:10.0.0.1]/hook',
        'https://[::ffff:169.254.169.254]/hook',
        'https://[64:ff9b::a9fe:a9fe]/hook',
        'https://metadata.google.internal/computeMetadata/v1/',
        'https://intranet/hook',
        'https://printer.local/hook',
      ]) {
        const res = await api(t, admin, 'POST', '/webhooks', { url });
        expect(res.status, url).toBe(400);
        expect(res.body.code).toBe('invalid_request');
        expect(res.body.issues, url).toEqual([
          { path: 'body.url', message: expect.stringMatching(/^must not/) },
        ]);
        expect(JSON.stringify(res.body)).not.toContain(new URL(url).hostname);
      }
      expect((await t.issuer.store.webhooks.listEndpoints({ page: 1, pageSize: 100 })).items).not.toEqual(
        expect.arrayContaining([
          expect.objectContaining({ url: expect.stringMatching(/10\.0\.0\.5|169\.254/) }),
        ]),
      );
    });

    it('F13: loopback targets are accepted while the issuer itself runs on loopback', async () => {
      expect(t.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
      for (const url of [
        'https://127.0.0.2:9/hook',
        'https://[::ffff:127.0.0.1]:9/hook',
        'http://localhost:9/x',
      ]) {
        const res = await api(t, admin, 'POST', '/webhooks', { url, events: ['impersonation.ended'] });
        expect(res.status, url).toBe(201);
        expect((await api(t, admin, 'DELETE', `/webhooks/${res.body.id}`)).status).toBe(204);
      }
    });

    it('an unknown event type, an empty list or an unknown field → 400 invalid_request', async () => {
      const unknown = await api(t, admin, 'POST', '/webhooks', {
        url: 'https://hooks.example.com/x',
        events: ['token_exchange.failed', 'sign_in.failed'],
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: 'invalid_request', issues: [{ path: 'body.events.1' }] });
      const empty = await api(t, admin, 'POST', '/webhooks', {
        url: 'https://hooks.example.com/x',
        events: [],
      });
      expect(empty.status).toBe(400);
      expect(empty.body.issues[0].path).toBe('body.events');
      const extra = await api(t, admin, 'POST', '/webhooks', {
        url: 'https://hooks.example.com/x',
        secret: 'mine',
      });
      expect(extra.status).toBe(400);
      expect(extra.body.code).toBe('invalid_request');
      const missing = await api(t, admin, 'POST', '/webhooks', {});
      expect(missing.status).toBe(400);
      expect(missing.body.issues[0].path).toBe('body.url');
    });

    it('delete → 204, then 404; the deliveries of an unknown endpoint → 404', async () => {
      const created = await api(t, admin, 'POST', '/webhooks', { url: 'https://127.0.0.1:9/gone' });
      expect((await api(t, admin, 'DELETE', `/webhooks/${created.body.id}`)).status).toBe(204);
      expect(await t.issuer.store.webhooks.getEndpoint(created.body.id)).toBeUndefined();
      const again = await api(t, admin, 'DELETE', `/webhooks/${created.body.id}`);
      expect(again.status).toBe(404);
      expect(again.body.code).toBe('not_found');
      expect((await api(t, admin, 'GET', `/webhooks/${created.body.id}`)).status).toBe(404);
      expect((await api(t, admin, 'GET', `/webhooks/${created.body.id}/deliveries`)).status).toBe(404);
    });

    it('F17: listing deliveries with webhooks:read shows ids, types, status and timings, the event body only with audit:read', async () => {
      const created = await api(t, admin, 'POST', '/webhooks', {
        url: 'https://127.0.0.1:9/f17',
        events: ['impersonation.ended'],
      });
      const event = await t.issuer.store.auditEvents.record(
        {
          id: 'evt_f17',
          type: 'impersonation.ended',
          userId: 'usr_f17',
          details: { endedBy: 'usr_admin', note: 'only-for-audit-readers' },
        },
        Math.floor(Date.now() / 1000),
      );
      const list = async (token: string) => {
        const res = await api(t, token, 'GET', `/webhooks/${created.body.id}/deliveries`);
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(1);
        return res.body.items[0] as Record<string, unknown>;
      };
      for (const scopes of [['webhooks:read'], ['webhooks:write'], ['webhooks:read', 'users:read']]) {
        const item = await list(await managementToken(t, scopes));
        expect(item, scopes.join()).toMatchObject({
          eventId: event.id,
          eventType: 'impersonation.ended',
          status: expect.stringMatching(/^(pending|failed)$/),
          attempts: expect.any(Number),
          createdAt: expect.any(String),
        });
        expect(item).not.toHaveProperty('event');
        expect(JSON.stringify(item)).not.toContain('only-for-audit-readers');
        expect(JSON.stringify(item)).not.toContain('usr_f17');
      }
      for (const token of [await managementToken(t, ['webhooks:read', 'audit:read']), admin]) {
        const item = await list(token);
        expect(item.event).toMatchObject({
          id: event.id,
          userId: 'usr_f17',
          details: { note: 'only-for-audit-readers' },
        });
      }
      expect((await api(t, admin, 'DELETE', `/webhooks/${created.body.id}`)).status).toBe(204);
    });

    it('F18: rotating the secret shows the new one once, keeps the old one sealed beside it until the overlap ends', async () => {
      const created = await api(t, admin, 'POST', '/webhooks', { url: 'https://127.0.0.1:9/f18' });
      const id = created.body.id as string;
      const before = await t.issuer.store.webhooks.getEndpoint(id);
      const started = Math.floor(Date.now() / 1000);
      const rotated = await api(t, admin, 'POST', `/webhooks/${id}/secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(rotated.body.secret).not.toBe(created.body.secret);
      // The default overlap: 24 hours.
      const expires = Date.parse(rotated.body.previousSecretExpiresAt) / 1000;
      expect(expires - started).toBeGreaterThanOrEqual(86_400);
      expect(expires - started).toBeLessThanOrEqual(86_402);
      const stored = await t.issuer.store.webhooks.getEndpoint(id);
      expect(stored!.previousSecret).toBe(before!.secret);
      expect(stored!.secret).toMatch(/^v1\./);
      expect(stored!.secret).not.toContain(rotated.body.secret.slice(6));
      // Neither secret is shown again.
      const read = await api(t, admin, 'GET', `/webhooks/${id}`);
      expect(read.body.previousSecretExpiresAt).toBe(rotated.body.previousSecretExpiresAt);
      expect(JSON.stringify(read.body)).not.toContain(rotated.body.secret);
      expect(JSON.stringify(read.body)).not.toContain(created.body.secret);
      expect(t.logs.text).not.toContain(rotated.body.secret);

      // An overlap of 0: the replaced secret stops at once.
      const now = await api(t, admin, 'POST', `/webhooks/${id}/secret`, { overlap: 0 });
      expect(now.status).toBe(200);
      expect(now.body.previousSecretExpiresAt).toBeNull();
      const custom = await api(t, admin, 'POST', `/webhooks/${id}/secret`, { overlap: 3_600 });
      expect(Date.parse(custom.body.previousSecretExpiresAt) / 1000 - started).toBeLessThanOrEqual(3_602);
    });

    it('F18: a bad rotation request is a 400 naming the field; webhooks:read cannot rotate; an unknown endpoint is 404', async () => {
      const created = await api(t, admin, 'POST', '/webhooks', { url: 'https://127.0.0.1:9/f18-bad' });
      for (const body of [{ overlap: -1 }, { overlap: 604_801 }, { overlap: 1.5 }, { overlap: '60' }]) {
        const res = await api(t, admin, 'POST', `/webhooks/${created.body.id}/secret`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body).toMatchObject({ code: 'invalid_request', issues: [{ path: 'body.overlap' }] });
      }
      const extra = await api(t, admin, 'POST', `/webhooks/${created.body.id}/secret`, { secret: 'mine' });
      expect(extra.status).toBe(400);
      const reader = await managementToken(t, ['webhooks:read']);
      expect((await api(t, reader, 'POST', `/webhooks/${created.body.id}/secret`)).status).toBe(403);
      const missing = await api(t, admin, 'POST', '/webhooks/whk_missing/secret');
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('not_found');
      // Nothing changed by the refused requests.
      const stored = await t.issuer.store.webhooks.getEndpoint(created.body.id);
      expect(stored!.previousSecret).toBeNull();
    });

    it('webhooks:read lists but cannot register; webhooks:write can; others cannot read', async () => {
      const reader = await managementToken(t, ['webhooks:read']);
      expect((await api(t, reader, 'GET', '/webhooks')).status).toBe(200);
      const refused = await api(t, reader, 'POST', '/webhooks', { url: 'https://hooks.example.com/r' });
      expect(refused.status).toBe(403);
      const writer = await managementToken(t, ['webhooks:write']);
      expect((await api(t, writer, 'POST', '/webhooks', { url: 'https://127.0.0.1:9/w' })).status).toBe(201);
      const auditor = await managementToken(t, ['audit:read']);
      expect((await api(t, auditor, 'GET', '/webhooks')).status).toBe(403);
    });
  });
});
