/**
 * `/api/users/{id}/personal-access-tokens`: value shown once, digest stored (B49), listing without
 * values (B48), past expiry refused (B47), revocation by delete (B46 in the grant tests), strict body,
 * unique names, audit events, and the value refused as a Management API bearer (B42).
 */
import { createHash } from 'node:crypto';
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
  });
  afterAll(() => t.close());

  const path = () => `/users/${alice}/personal-access-tokens`;

  describe('personal access tokens', () => {
    it('create → 201 with the value once; the store holds only its digest', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const res = await api(t, admin, 'POST', path(), { name: 'laptop', expiresAt, scopes: ['read:orders'] });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        userId: alice,
        name: 'laptop',
        scopes: ['read:orders'],
        expiresAt: `${expiresAt.slice(0, 19)}.000Z`,
        lastUsedAt: null,
      });
      expect(res.body.id).toMatch(/^pat_/);
      expect(res.body.value).toMatch(/^gpat_[A-Za-z0-9_-]{43}$/);
      expect(res.headers.get('location')).toBe(`${t.baseUrl}/api${path()}/${res.body.id}`);
      const digest = createHash('sha256').update(res.body.value).digest('hex');
      const stored = await t.issuer.store.personalAccessTokens.findByHash(digest);
      expect(stored?.id).toBe(res.body.id);
      expect(JSON.stringify(stored)).not.toContain(res.body.value.slice(5));
    });

    it('B48: listing never returns values', async () => {
      const created = await api(t, admin, 'POST', path(), { name: 'ci' });
      expect(created.body.scopes).toBeNull();
      expect(created.body.expiresAt).toBeNull();
      const list = await api(t, admin, 'GET', path());
      expect(list.status).toBe(200);
      expect(list.body.items.map((item: { name: string }) => item.name)).toContain('ci');
      for (const item of list.body.items) {
        expect(Object.keys(item).sort()).toEqual(
          ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'scopes', 'userId'].sort(),
        );
      }
      expect(JSON.stringify(list.body)).not.toContain(created.body.value);
    });

    it('B47: an expiry in the past → 400', async () => {
      const res = await api(t, admin, 'POST', path(), { name: 'old', expiresAt: '2020-01-01T00:00:00Z' });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([{ path: 'body.expiresAt', message: 'must be in the future' }]);
    });

    it.each([
      ['an unknown field', { name: 'x1', value: 'gpat_mine' }],
      ['a lastUsedAt', { name: 'x2', lastUsedAt: '2030-01-01T00:00:00Z' }],
      ['a non-ISO expiry', { name: 'x3', expiresAt: 'tomorrow' }],
      ['an empty scope list', { name: 'x4', scopes: [] }],
      ['a scope with a space', { name: 'x5', scopes: ['a b'] }],
      ['no name', { scopes: ['a'] }],
    ])('B43: %s → 400', async (_, body) => {
      expect((await api(t, admin, 'POST', path(), body)).status).toBe(400);
    });

    it('a taken name → 409; an unknown user → 404', async () => {
      await api(t, admin, 'POST', path(), { name: 'dup' });
      expect((await api(t, admin, 'POST', path(), { name: 'dup' })).status).toBe(409);
      expect(
        (await api(t, admin, 'POST', '/users/usr_nobody/personal-access-tokens', { name: 'x' })).status,
      ).toBe(404);
      expect((await api(t, admin, 'GET', '/users/usr_nobody/personal-access-tokens')).status).toBe(404);
    });

    it('delete revokes; a second delete or another user’s path → 404; audit events record both', async () => {
      const created = await api(t, admin, 'POST', path(), { name: 'temp' });
      const bob = (await t.issuer.store.users.findByLogin('bob'))!.id;
      expect(
        (await api(t, admin, 'DELETE', `/users/${bob}/personal-access-tokens/${created.body.id}`)).status,
      ).toBe(404);
      expect((await api(t, admin, 'DELETE', `${path()}/${created.body.id}`)).status).toBe(204);
      expect((await api(t, admin, 'DELETE', `${path()}/${created.body.id}`)).status).toBe(404);
      const events = await api(t, admin, 'GET', `/audit-events?userId=${alice}`);
      const types = events.body.items
        .filter(
          (event: { details: { personalAccessTokenId?: string } }) =>
            event.details.personalAccessTokenId === created.body.id,
        )
        .map((event: { type: string }) => event.type);
      expect(types).toEqual(['personal_access_token.revoked', 'personal_access_token.created']);
      expect(JSON.stringify(events.body)).not.toContain(created.body.value);
    });

    it('users:read lists, users:write creates', async () => {
      const reader = await managementToken(t, ['users:read']);
      expect((await api(t, reader, 'GET', path())).status).toBe(200);
      expect((await api(t, reader, 'POST', path(), { name: 'nope' })).status).toBe(403);
    });

    it('B42: a PAT used directly as the Management API bearer → 401', async () => {
      const created = await api(t, admin, 'POST', path(), { name: 'bearer' });
      const res = await api(t, created.body.value, 'GET', '/users');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_token');
    });
  });
});
