/** `/api/resources` and their scopes; the built-in Management API resource is protected. */
import { describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { api } from '../helpers/issuer.js';
import { useManagementWorld } from '../helpers/management-world.js';

describe.each(DRIVERS)('%s', (driver) => {
  const world = useManagementWorld(driver);

  describe('resources', () => {
    it('creates with the default TTL, reads, renames and deletes', async () => {
      const created = await api(world.t, world.admin, 'POST', '/resources', {
        name: 'Inventory',
        indicator: 'https://inventory.example.com',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ accessTokenTtl: 3600, system: false });
      const patched = await api(world.t, world.admin, 'PATCH', `/resources/${created.body.id}`, {
        name: 'Stock',
        accessTokenTtl: 900,
      });
      expect(patched.body).toMatchObject({ name: 'Stock', accessTokenTtl: 900 });
      expect(
        (
          await api(world.t, world.admin, 'PATCH', `/resources/${created.body.id}`, {
            indicator: 'https://other.example.com',
          })
        ).status,
      ).toBe(400);
      expect((await api(world.t, world.admin, 'DELETE', `/resources/${created.body.id}`)).status).toBe(204);
      expect((await api(world.t, world.admin, 'GET', `/resources/${created.body.id}`)).status).toBe(404);
    });

    it('requires an absolute indicator without fragment and refuses duplicates', async () => {
      expect(
        (await api(world.t, world.admin, 'POST', '/resources', { name: 'Rel', indicator: '/api' })).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', '/resources', {
            name: 'Frag',
            indicator: 'https://x.example.com#a',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', '/resources', {
            name: 'TTL',
            indicator: 'https://ttl.example.com',
            accessTokenTtl: 10,
          })
        ).status,
      ).toBe(400);
      await api(world.t, world.admin, 'POST', '/resources', {
        name: 'Dup',
        indicator: 'https://dup.example.com',
      });
      expect(
        (
          await api(world.t, world.admin, 'POST', '/resources', {
            name: 'Dup 2',
            indicator: 'https://dup.example.com',
          })
        ).status,
      ).toBe(409);
    });

    it('manages scopes: 201, duplicate 409, bad token 400, description update, delete 204', async () => {
      const resource = await api(world.t, world.admin, 'POST', '/resources', {
        name: 'Scoped',
        indicator: 'https://scoped.example.com',
      });
      const scope = await api(world.t, world.admin, 'POST', `/resources/${resource.body.id}/scopes`, {
        name: 'read:things',
        description: 'Read',
      });
      expect(scope.status).toBe(201);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/resources/${resource.body.id}/scopes`, {
            name: 'read:things',
          })
        ).status,
      ).toBe(409);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/resources/${resource.body.id}/scopes`, {
            name: 'has space',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/resources/${resource.body.id}/scopes`, {
            name: 'quote"d',
          })
        ).status,
      ).toBe(400);
      const updated = await api(
        world.t,
        world.admin,
        'PATCH',
        `/resources/${resource.body.id}/scopes/${scope.body.id}`,
        {
          description: 'Read things',
        },
      );
      expect(updated.body.description).toBe('Read things');
      expect(
        (await api(world.t, world.admin, 'GET', `/resources/${resource.body.id}/scopes`)).body.items,
      ).toHaveLength(1);
      expect(
        (await api(world.t, world.admin, 'DELETE', `/resources/${resource.body.id}/scopes/${scope.body.id}`))
          .status,
      ).toBe(204);
      expect(
        (await api(world.t, world.admin, 'DELETE', `/resources/${resource.body.id}/scopes/${scope.body.id}`))
          .status,
      ).toBe(404);
    });

    it('protects the Management API resource (409)', async () => {
      const list = await api(world.t, world.admin, 'GET', '/resources');
      const management = list.body.items.find((r: { system: boolean }) => r.system);
      expect(management.indicator).toBe(`${world.t.baseUrl}/api`);
      expect((await api(world.t, world.admin, 'DELETE', `/resources/${management.id}`)).status).toBe(409);
      expect(
        (await api(world.t, world.admin, 'POST', `/resources/${management.id}/scopes`, { name: 'extra' }))
          .status,
      ).toBe(409);
      const scopes = await api(world.t, world.admin, 'GET', `/resources/${management.id}/scopes`);
      expect(scopes.body.items.map((s: { name: string }) => s.name)).toContain('users:write');
    });
  });
});
