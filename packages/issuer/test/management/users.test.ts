/** `/api/users`: CRUD, password, suspension, roles, pagination, conflicts. */
import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/internal/secrets.js';
import { DRIVERS } from '../helpers/drivers.js';
import { api } from '../helpers/issuer.js';
import { useManagementWorld } from '../helpers/management-world.js';

describe.each(DRIVERS)('%s', (driver) => {
  const world = useManagementWorld(driver);

  describe('users', () => {
    it('creates (201 + Location), reads, updates and deletes (204) a user; never returns the hash', async () => {
      const created = await api(world.t, world.admin, 'POST', '/users', {
        username: 'dave',
        email: 'dave@example.com',
        password: 'password123',
        customData: { team: 'a' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('location')).toBe(`${world.t.baseUrl}/api/users/${created.body.id}`);
      expect(created.body).toMatchObject({
        username: 'dave',
        email: 'dave@example.com',
        suspended: false,
        customData: { team: 'a' },
      });
      expect(created.body.id).toMatch(/^usr_[0-9a-z]{20}$/);
      expect(JSON.stringify(created.body)).not.toMatch(/scrypt|password/i);

      const read = await api(world.t, world.admin, 'GET', `/users/${created.body.id}`);
      expect(read.body).toEqual(created.body);

      const patched = await api(world.t, world.admin, 'PATCH', `/users/${created.body.id}`, {
        email: null,
        customData: { team: 'b' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ email: null, customData: { team: 'b' } });

      expect((await api(world.t, world.admin, 'DELETE', `/users/${created.body.id}`)).status).toBe(204);
      expect((await api(world.t, world.admin, 'GET', `/users/${created.body.id}`)).status).toBe(404);
      expect((await api(world.t, world.admin, 'DELETE', `/users/${created.body.id}`)).status).toBe(404);
    });

    it('409 for a username or email that is taken, case-insensitively', async () => {
      await api(world.t, world.admin, 'POST', '/users', { username: 'erin', email: 'erin@example.com' });
      const again = await api(world.t, world.admin, 'POST', '/users', { username: 'ERIN' });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ code: 'conflict', message: 'user.username is already taken' });
      expect(
        (await api(world.t, world.admin, 'POST', '/users', { username: 'erin2', email: 'Erin@Example.com' }))
          .status,
      ).toBe(409);
    });

    it('400 for bad usernames, emails and short passwords, with the field named', async () => {
      for (const body of [
        { username: 'has space' },
        { username: 'a@b' },
        { username: 'ok', email: 'not-an-email' },
        { username: 'ok', password: 'short' },
        {},
      ]) {
        const res = await api(world.t, world.admin, 'POST', '/users', body);
        expect(res.status).toBe(400);
        expect(res.body.issues.length).toBeGreaterThan(0);
      }
      const empty = await api(world.t, world.admin, 'PATCH', '/users/usr_x', {});
      expect(empty.status).toBe(400);
    });

    it('sets a password (stored as scrypt) and suspends/reinstates', async () => {
      const user = await api(world.t, world.admin, 'POST', '/users', { username: 'frank' });
      expect(
        (
          await api(world.t, world.admin, 'PUT', `/users/${user.body.id}/password`, {
            password: 'new password 1',
          })
        ).status,
      ).toBe(204);
      const stored = await world.t.issuer.store.users.get(user.body.id);
      expect(stored?.passwordHash).toMatch(/^scrypt\$/);
      expect(await verifyPassword('new password 1', stored!.passwordHash!)).toBe(true);
      const suspended = await api(world.t, world.admin, 'PUT', `/users/${user.body.id}/suspension`, {
        suspended: true,
      });
      expect(suspended.body.suspended).toBe(true);
      const back = await api(world.t, world.admin, 'PUT', `/users/${user.body.id}/suspension`, {
        suspended: false,
      });
      expect(back.body.suspended).toBe(false);
      expect(
        (await api(world.t, world.admin, 'PUT', '/users/usr_missing/password', { password: 'whatever123' }))
          .status,
      ).toBe(404);
    });

    it('assigns only user roles; lists and removes them', async () => {
      const user = await api(world.t, world.admin, 'POST', '/users', { username: 'gina' });
      const userRole = await api(world.t, world.admin, 'POST', '/roles', { name: 'gina-role', type: 'User' });
      const m2mRole = await api(world.t, world.admin, 'POST', '/roles', {
        name: 'gina-m2m',
        type: 'MachineToMachine',
      });
      expect(
        (
          await api(world.t, world.admin, 'POST', `/users/${user.body.id}/roles`, {
            roleIds: [m2mRole.body.id],
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/users/${user.body.id}/roles`, {
            roleIds: ['rol_missing'],
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/users/${user.body.id}/roles`, {
            roleIds: [userRole.body.id, userRole.body.id],
          })
        ).status,
      ).toBe(204);
      const list = await api(world.t, world.admin, 'GET', `/users/${user.body.id}/roles`);
      expect(list.body.items.map((r: { name: string }) => r.name)).toEqual(['gina-role']);
      expect(
        (await api(world.t, world.admin, 'DELETE', `/users/${user.body.id}/roles/${userRole.body.id}`))
          .status,
      ).toBe(204);
      expect(
        (await api(world.t, world.admin, 'DELETE', `/users/${user.body.id}/roles/${userRole.body.id}`))
          .status,
      ).toBe(404);
    });

    it('paginates', async () => {
      for (let i = 0; i < 5; i++)
        await api(world.t, world.admin, 'POST', '/users', { username: `page-user-${i}` });
      const all = await api(world.t, world.admin, 'GET', '/users?pageSize=100');
      const first = await api(world.t, world.admin, 'GET', '/users?page=1&pageSize=2');
      const second = await api(world.t, world.admin, 'GET', '/users?page=2&pageSize=2');
      expect(first.body).toMatchObject({ page: 1, pageSize: 2, total: all.body.total });
      expect(first.body.items).toHaveLength(2);
      expect(second.body.items[0].id).toBe(all.body.items[2].id);
    });
  });
});
