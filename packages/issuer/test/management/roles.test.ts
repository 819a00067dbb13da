/** `/api/roles` and their scopes; the built-in administrator role is protected. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;

  beforeAll(async () => {
    t = await startIssuer(driver);
    admin = await adminToken(t);
  });
  afterAll(() => t.close());

  describe('roles', () => {
    it('refuses U+0000 in stored text (names, descriptions, indicators) with 400 on every driver', async () => {
      const bad = [
        ['POST', '/roles', { name: 'a\u0000b', type: 'User' }],
        ['POST', '/roles', { name: 'ok-name', type: 'User', description: 'x\u0000' }],
        ['POST', '/resources', { name: 'R', indicator: 'https://r.example.com/\u0000' }],
        ['POST', '/applications', { name: 'A\u0000', type: 'MachineToMachine' }],
      ] as const;
      for (const [method, path, body] of bad) {
        const res = await api(t, admin, method, path, body);
        expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      }
    });

    it('creates, lists scopes with their indicator, updates and deletes', async () => {
      const resource = await api(t, admin, 'POST', '/resources', {
        name: 'R',
        indicator: 'https://r.example.com',
      });
      const scope = await api(t, admin, 'POST', `/resources/${resource.body.id}/scopes`, { name: 'r:read' });
      const role = await api(t, admin, 'POST', '/roles', {
        name: 'r-reader',
        type: 'User',
        description: 'Reads R',
      });
      expect(role.status).toBe(201);
      expect(
        (await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [scope.body.id] })).status,
      ).toBe(204);
      expect(
        (await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: ['scp_missing'] })).status,
      ).toBe(404);
      const scopes = await api(t, admin, 'GET', `/roles/${role.body.id}/scopes`);
      expect(scopes.body.items).toEqual([
        expect.objectContaining({ name: 'r:read', indicator: 'https://r.example.com' }),
      ]);
      expect(
        (await api(t, admin, 'PATCH', `/roles/${role.body.id}`, { description: 'Reads R fully' })).body
          .description,
      ).toBe('Reads R fully');
      expect(
        (await api(t, admin, 'PATCH', `/roles/${role.body.id}`, { type: 'MachineToMachine' })).status,
      ).toBe(400);
      expect((await api(t, admin, 'DELETE', `/roles/${role.body.id}/scopes/${scope.body.id}`)).status).toBe(
        204,
      );
      expect((await api(t, admin, 'DELETE', `/roles/${role.body.id}`)).status).toBe(204);
      expect((await api(t, admin, 'GET', `/roles/${role.body.id}`)).status).toBe(404);
    });

    it('refuses duplicate names and unknown types', async () => {
      await api(t, admin, 'POST', '/roles', { name: 'dup-role', type: 'User' });
      expect((await api(t, admin, 'POST', '/roles', { name: 'dup-role', type: 'User' })).status).toBe(409);
      expect((await api(t, admin, 'POST', '/roles', { name: 'x', type: 'Admin' })).status).toBe(400);
    });

    it('protects the built-in administrator role (409)', async () => {
      const list = await api(t, admin, 'GET', '/roles');
      const builtIn = list.body.items.find(
        (r: { system: boolean; type: string }) => r.system && r.type === 'MachineToMachine',
      );
      expect(builtIn).toMatchObject({ type: 'MachineToMachine' });
      expect((await api(t, admin, 'DELETE', `/roles/${builtIn.id}`)).status).toBe(409);
      const scopes = await api(t, admin, 'GET', `/roles/${builtIn.id}/scopes`);
      expect(scopes.body.items.map((s: { name: string }) => s.name)).toEqual(['all']);
    });
  });
});
