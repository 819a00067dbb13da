/**
 * Rate limits reached and recovered, on SQLite and on two PostgreSQL instances behind a round-robin
 * balancer (consecutive requests land on different instances, so only a shared count limits them):
 * the Management API per client, and client authentication at the token endpoint per client id and
 * per client address. Each answers 429 with Retry-After and an OAuth error body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/protection/rate-limiter.js';
import { openStore } from '../../src/storage/open.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';
import { loadWorld, SECRETS } from '../helpers/fixtures.js';
import { adminToken, api, clientCredentials, startIssuer, type TestIssuer } from '../helpers/issuer.js';

const WINDOW = 3;

/** Wait out a `Retry-After` (seconds), plus a little. */
const waitOut = (retryAfter: string | null) =>
  new Promise((resolve) => setTimeout(resolve, (Number(retryAfter) + 0.2) * 1000));

/** POST to the token endpoint with HTTP Basic; status, body and headers. */
async function token(t: TestIssuer, clientId: string, clientSecret: string) {
  const res = await fetch(`${t.baseUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'https://orders.example.com' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string>, headers: res.headers };
}

function expectRateLimited(res: { status: number; body: Record<string, string>; headers: Headers }) {
  expect(res.status).toBe(429);
  expect(res.body.error).toBe('too_many_requests');
  expect(res.body.error_description).toMatch(/retry later/i);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW);
}

describe.each(DRIVERS)('%s', (driver) => {
  describe('Management API, per client', () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, { rateLimits: { window: WINDOW, managementPerClient: 6 } });
    });
    afterAll(() => t.close());

    it('B57: more requests than the limit in a window → 429 with Retry-After and an OAuth error body; served again after', async () => {
      const admin = await adminToken(t);
      const answers = await Promise.all(Array.from({ length: 9 }, () => api(t, admin, 'GET', '/users')));
      expect(answers.filter((res) => res.status === 200)).toHaveLength(6);
      const limited = answers.filter((res) => res.status === 429);
      expect(limited).toHaveLength(3);
      for (const res of limited) {
        expectRateLimited(res);
        expect(res.body.code).toBe('too_many_requests');
      }
      await waitOut(limited[0]!.headers.get('retry-after'));
      expect((await api(t, admin, 'GET', '/users')).status).toBe(200);
    });
  });

  describe('token endpoint', () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, {
        rateLimits: { window: WINDOW, tokenPerClient: 5, tokenPerAddress: 1_000 },
      });
      await loadWorld(t);
    });
    afterAll(() => t.close());

    it('B58: wrong secrets of one client id beyond the limit → 429 before any secret is compared; recovered after', async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => token(t, 'worker', 'wrong-secret')));
      expect(answers.filter((res) => res.status === 401)).toHaveLength(5);
      const limited = answers.filter((res) => res.status === 429);
      expect(limited).toHaveLength(3);
      for (const res of limited) expectRateLimited(res);
      // The right secret is refused as well until the window ends; another client is not affected.
      expectRateLimited(await token(t, 'worker', SECRETS.worker));
      expect(
        (await clientCredentials(t.baseUrl, t.admin.clientId, t.admin.clientSecret, {})).status,
      ).not.toBe(429);
      await waitOut(limited[0]!.headers.get('retry-after'));
      expect((await token(t, 'worker', SECRETS.worker)).status).toBe(200);
    });
  });

  describe('token endpoint, per address', () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, {
        rateLimits: { window: WINDOW, tokenPerClient: 1_000, tokenPerAddress: 6 },
      });
      await loadWorld(t);
    });
    afterAll(() => t.close());

    it('B59: one address rotating client ids beyond the limit → 429 for every client from it; recovered after', async () => {
      const answers = await Promise.all(
        Array.from({ length: 9 }, (_, i) => token(t, `guessed-client-${i}`, 'wrong-secret')),
      );
      expect(answers.filter((res) => res.status === 401)).toHaveLength(6);
      const limited = answers.filter((res) => res.status === 429);
      expect(limited).toHaveLength(3);
      for (const res of limited) expectRateLimited(res);
      expectRateLimited(await token(t, 'worker', SECRETS.worker));
      await waitOut(limited[0]!.headers.get('retry-after'));
      expect((await token(t, 'worker', SECRETS.worker)).status).toBe(200);
    });
  });
});

describe('createRateLimiter() across two stores on one PostgreSQL database', () => {
  it('counts the requests of both together, every key of a request in one statement', async () => {
    const database = await freshDatabase('postgres');
    const first = openStore(database);
    const second = openStore(database);
    try {
      await first.migrate();
      const a = createRateLimiter(60, first.failures);
      const b = createRateLimiter(60, second.failures);
      const k = { key: 'k', max: 3 };
      const other = { key: 'other', max: 1 };
      expect(await Promise.all([a.hit([k], 100), b.hit([k, other], 100), a.hit([k], 101)])).toEqual([
        [0],
        [0, 0],
        [0],
      ]);
      expect(await b.hit([other, k], 101)).toEqual([59, 59]);
      expect(await a.hit([{ key: 'third', max: 1 }], 101)).toEqual([0]);
      expect(await a.hit([k], 160)).toEqual([0]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
