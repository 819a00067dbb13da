/** `/api/signing-keys`: list without private parts; rotation publishes the new key, signs with it, keeps the old one. */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;

  beforeAll(async () => {
    t = await startIssuer(driver);
  });
  afterAll(() => t.close());

  const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());

  describe('signing keys', () => {
    it('lists keys without private material', async () => {
      const res = await api(t, await adminToken(t), 'GET', '/signing-keys');
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(1);
      expect(res.body.items[0]).toMatchObject({ alg: 'RS256', status: 'active', retiredAt: null });
      expect(JSON.stringify(res.body)).not.toMatch(/"d"|privateJwk|"p"/);
    });

    it('rotation: new tokens use the new key; old tokens still validate; both keys are published', async () => {
      const before = await adminToken(t);
      const oldKid = header(before).kid;
      const rotated = await api(t, before, 'POST', '/signing-keys/rotate');
      expect(rotated.status).toBe(201);
      expect(rotated.body.kid).not.toBe(oldKid);
      // On PostgreSQL the other instance learns of the rotation by notification, milliseconds later.
      await t.converge();

      const jwks = (await (await fetch(`${t.baseUrl}/oidc/jwks`)).json()) as {
        keys: Array<{ kid: string; d?: string }>;
      };
      expect(jwks.keys.map((key) => key.kid)).toEqual([rotated.body.kid, oldKid]);
      expect(jwks.keys.every((key) => key.d === undefined)).toBe(true);

      const after = await adminToken(t);
      expect(header(after).kid).toBe(rotated.body.kid);
      const verifier = createVerifier({
        issuer: `${t.baseUrl}/oidc`,
        audience: `${t.baseUrl}/api`,
        strict: true,
      });
      await expect(verifier.verify(before)).resolves.toBeDefined();
      await expect(verifier.verify(after)).resolves.toBeDefined();
      // The Management API itself accepts both.
      expect((await api(t, before, 'GET', '/signing-keys')).status).toBe(200);
      const list = await api(t, after, 'GET', '/signing-keys');
      expect(list.body.items.map((key: { status: string }) => key.status)).toEqual(['active', 'retired']);
      expect(list.body.items[1].expiresAt).not.toBeNull();
    });
  });
});
