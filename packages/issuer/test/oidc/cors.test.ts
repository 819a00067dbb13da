/** clientBasedCORS: a browser app may call the token endpoint from the origin of its redirect URIs only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let spaId: string;
  beforeAll(async () => {
    t = await startIssuer(driver);
    const admin = await adminToken(t);
    const created = await api(t, admin, 'POST', '/applications', {
      name: 'Console',
      type: 'SPA',
      redirectUris: ['https://console.example.com/callback'],
    });
    expect(created.status).toBe(201);
    spaId = created.body.id;
  });
  afterAll(() => t.close());

  const tokenRequest = (origin: string) =>
    fetch(`${t.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'unknown', client_id: spaId }),
    });

  it("allows the origin of the SPA's redirect URI", async () => {
    const res = await tokenRequest('https://console.example.com');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://console.example.com');
    expect(((await res.json()) as { error?: string }).error).toBe('invalid_grant');
  });

  it('refuses any other origin, and the "null" origin', async () => {
    for (const origin of ['https://evil.example.com', 'https://console.example.com.evil.test', 'null']) {
      const res = await tokenRequest(origin);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      await res.body?.cancel();
    }
  });
});
