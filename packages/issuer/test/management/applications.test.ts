/** `/api/applications`: types, secrets shown once and stored hashed, rotation, M2M roles, token-exchange switch. */
import { describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { api, clientCredentials } from '../helpers/issuer.js';
import { useManagementWorld } from '../helpers/management-world.js';

describe.each(DRIVERS)('%s', (driver) => {
  const world = useManagementWorld(driver);

  describe('applications', () => {
    it('a confidential application gets a secret once; reads never show it; the store keeps only a digest', async () => {
      const created = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Back office',
        type: 'Traditional',
        redirectUris: ['https://app.example.com/cb'],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        type: 'Traditional',
        tokenEndpointAuthMethod: 'client_secret_basic',
        firstParty: true,
        tokenExchangeEnabled: false,
      });
      expect(created.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const read = await api(world.t, world.admin, 'GET', `/applications/${created.body.id}`);
      expect(read.body.clientSecret).toBeUndefined();
      const list = await api(world.t, world.admin, 'GET', '/applications');
      expect(JSON.stringify(list.body)).not.toContain(created.body.clientSecret);
      const stored = await world.t.issuer.store.applications.get(created.body.id);
      expect(stored?.secretHash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('public applications (SPA, Native) have no secret and use none', async () => {
      const spa = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'SPA',
        type: 'SPA',
        redirectUris: ['https://spa.example.com/cb'],
      });
      expect(spa.body.tokenEndpointAuthMethod).toBe('none');
      expect(spa.body.clientSecret).toBeUndefined();
      const native = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Mobile',
        type: 'Native',
        redirectUris: ['com.example.app:/cb'],
      });
      expect(native.status).toBe(201);
      const bad = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'SPA2',
        type: 'SPA',
        redirectUris: ['https://spa.example.com/cb'],
        tokenEndpointAuthMethod: 'client_secret_basic',
      });
      expect(bad.status).toBe(400);
      expect((await api(world.t, world.admin, 'POST', `/applications/${spa.body.id}/secret`)).status).toBe(
        400,
      );
    });

    it('validates redirect URIs by type', async () => {
      expect(
        (
          await api(world.t, world.admin, 'POST', '/applications', {
            name: 'No redirect',
            type: 'Traditional',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', '/applications', {
            name: 'M2M',
            type: 'MachineToMachine',
            redirectUris: ['https://x.example.com/cb'],
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', '/applications', {
            name: 'Frag',
            type: 'SPA',
            redirectUris: ['https://x.example.com/cb#f'],
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', '/applications', {
            name: 'JS',
            type: 'SPA',
            redirectUris: ['javascript:alert(1)'],
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', '/applications', {
            name: 'Rel',
            type: 'SPA',
            redirectUris: ['/cb'],
          })
        ).status,
      ).toBe(400);
    });

    it('rotates a secret: the new one works at once, the old one stops', async () => {
      const m2m = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Rotating',
        type: 'MachineToMachine',
      });
      const resource = `${world.t.baseUrl}/api`;
      expect(
        (await clientCredentials(world.t.baseUrl, m2m.body.clientId, m2m.body.clientSecret, { resource }))
          .status,
      ).toBe(200);
      const rotated = await api(world.t, world.admin, 'POST', `/applications/${m2m.body.id}/secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.clientSecret).not.toBe(m2m.body.clientSecret);
      // On PostgreSQL the other instance hears of the change by notification, milliseconds later
      // (docs/deployment.md): the old secret must stop there too, once that has arrived.
      const oldSecret = () =>
        clientCredentials(world.t.baseUrl, m2m.body.clientId, m2m.body.clientSecret, { resource });
      const deadline = Date.now() + 5_000;
      let refusals = 0;
      // Two refusals in a row: the balancer sends consecutive requests to different instances.
      while (refusals < world.t.instances.length && Date.now() < deadline)
        refusals = (await oldSecret()).status === 401 ? refusals + 1 : 0;
      expect(refusals).toBe(world.t.instances.length);
      for (let i = 0; i < world.t.instances.length; i++) expect((await oldSecret()).status).toBe(401);
      expect(
        (await clientCredentials(world.t.baseUrl, m2m.body.clientId, rotated.body.clientSecret, { resource }))
          .status,
      ).toBe(200);
    });

    it('assigns M2M roles to M2M applications only', async () => {
      const m2m = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Roles m2m',
        type: 'MachineToMachine',
      });
      const web = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Roles web',
        type: 'Traditional',
        redirectUris: ['https://w.example.com/cb'],
      });
      const m2mRole = await api(world.t, world.admin, 'POST', '/roles', {
        name: 'svc',
        type: 'MachineToMachine',
      });
      const userRole = await api(world.t, world.admin, 'POST', '/roles', { name: 'people', type: 'User' });
      expect(
        (
          await api(world.t, world.admin, 'POST', `/applications/${web.body.id}/roles`, {
            roleIds: [m2mRole.body.id],
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/applications/${m2m.body.id}/roles`, {
            roleIds: [userRole.body.id],
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await api(world.t, world.admin, 'POST', `/applications/${m2m.body.id}/roles`, {
            roleIds: [m2mRole.body.id],
          })
        ).status,
      ).toBe(204);
      expect(
        (await api(world.t, world.admin, 'GET', `/applications/${m2m.body.id}/roles`)).body.items,
      ).toHaveLength(1);
      expect(
        (await api(world.t, world.admin, 'DELETE', `/applications/${m2m.body.id}/roles/${m2mRole.body.id}`))
          .status,
      ).toBe(204);
    });

    it('updates fields, including the token-exchange switch and the auth method', async () => {
      const app = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Patchable',
        type: 'MachineToMachine',
      });
      const patched = await api(world.t, world.admin, 'PATCH', `/applications/${app.body.id}`, {
        name: 'Patched',
        tokenExchangeEnabled: true,
        tokenEndpointAuthMethod: 'client_secret_post',
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        name: 'Patched',
        tokenExchangeEnabled: true,
        tokenEndpointAuthMethod: 'client_secret_post',
      });
      expect(
        (
          await api(world.t, world.admin, 'PATCH', `/applications/${app.body.id}`, {
            redirectUris: ['https://x.example.com/cb'],
          })
        ).status,
      ).toBe(400);
      expect(
        (await api(world.t, world.admin, 'PATCH', '/applications/app_missing', { name: 'x' })).status,
      ).toBe(404);
    });

    it('an application cannot delete itself (409); others delete with 204', async () => {
      const self = await api(world.t, world.admin, 'DELETE', `/applications/${world.t.admin.clientId}`);
      expect(self.status).toBe(409);
      const app = await api(world.t, world.admin, 'POST', '/applications', {
        name: 'Doomed',
        type: 'MachineToMachine',
      });
      expect((await api(world.t, world.admin, 'DELETE', `/applications/${app.body.id}`)).status).toBe(204);
      expect((await api(world.t, world.admin, 'GET', `/applications/${app.body.id}`)).status).toBe(404);
    });
  });
});
