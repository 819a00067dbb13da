/** Seeding: idempotent, validated strictly, client ids never confusable with user ids (B38). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../src/errors.js';
import { verifyPassword, verifySecret } from '../src/internal/secrets.js';
import { DRIVERS } from './helpers/drivers.js';
import { startIssuer, type TestIssuer } from './helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer(driver);
  });
  afterAll(() => t.close());

  const doc = {
    resources: [
      {
        name: 'Orders',
        indicator: 'https://orders.example.com',
        accessTokenTtl: 900,
        scopes: ['read:orders', { name: 'write:orders', description: 'Write' }],
      },
    ],
    roles: [
      {
        name: 'reader',
        type: 'User' as const,
        scopes: [{ resource: 'https://orders.example.com', scope: 'read:orders' }],
      },
      {
        name: 'svc',
        type: 'MachineToMachine' as const,
        scopes: [{ resource: 'https://orders.example.com', scope: 'write:orders' }],
      },
    ],
    users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', roles: ['reader'] }],
    applications: [
      {
        name: 'Web',
        type: 'Traditional' as const,
        clientId: 'web',
        clientSecret: 'w'.repeat(40),
        redirectUris: ['https://web.example.com/cb'],
      },
      { name: 'Worker', type: 'MachineToMachine' as const, roles: ['svc'] },
    ],
  };

  describe('seed', () => {
    it('creates everything once and changes nothing the second time', async () => {
      const first = await t.issuer.seed(doc);
      expect(
        first.resources.created + first.roles.created + first.users.created + first.applications.created,
      ).toBe(6);
      expect(first.generatedSecrets).toEqual([
        { name: 'Worker', clientId: expect.stringMatching(/^app_/), clientSecret: expect.any(String) },
      ]);
      const second = await t.issuer.seed(doc);
      for (const kind of ['resources', 'roles', 'users', 'applications'] as const)
        expect(second[kind]).toEqual({ created: 0, updated: 0 });
      expect(second.generatedSecrets).toEqual([]);
      const alice = await t.issuer.store.users.findByLogin('alice');
      expect(await verifyPassword('password123', alice!.passwordHash!)).toBe(true);
      expect(verifySecret('w'.repeat(40), (await t.issuer.store.applications.get('web'))!.secretHash!)).toBe(
        true,
      );
      const worker = await t.issuer.store.applications.findByName('Worker');
      expect(
        await t.issuer.store.roles.grantedScopes({ applicationId: worker!.id }, 'https://orders.example.com'),
      ).toEqual(['write:orders']);
    });

    it('updates changed fields', async () => {
      const result = await t.issuer.seed({
        ...doc,
        users: [{ username: 'alice', email: 'alice@new.example.com', password: 'password456' }],
      });
      expect(result.users).toEqual({ created: 0, updated: 1 });
      const alice = await t.issuer.store.users.findByLogin('alice');
      expect(alice?.email).toBe('alice@new.example.com');
      expect(await verifyPassword('password456', alice!.passwordHash!)).toBe(true);
    });

    it.each([
      [{ users: [{ username: 'x', isAdmin: true }] }, 'unknown field'],
      [{ applications: [{ name: 'Confusable', type: 'MachineToMachine', clientId: 'usr_abc' }] }, 'usr_'],
      [{ users: [{ username: 'y', roles: ['nope'] }] }, 'does not exist'],
      [{ users: [{ username: 'z', roles: ['svc'] }] }, 'not a User role'],
      [
        {
          roles: [
            { name: 'r', type: 'User', scopes: [{ resource: 'https://orders.example.com', scope: 'nope' }] },
          ],
        },
        'does not exist',
      ],
      [{ applications: [{ name: 'Spa', type: 'SPA' }] }, 'redirect URI'],
    ])('B38/B43: rejects %j', async (bad, text) => {
      const error = await t.issuer.seed(bad).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(ValidationError);
      expect(
        JSON.stringify({
          message: (error as ValidationError).message,
          issues: (error as ValidationError).issues,
        }),
      ).toContain(text);
    });
  });
});
