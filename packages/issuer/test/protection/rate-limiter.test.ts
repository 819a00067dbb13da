/**
 * Rate limits reached and recovered, on SQLite and on two PostgreSQL instances behind a round-robin
 * balancer (consecutive requests land on different instances, so only a shared count limits them):
 * the Management API per client, and client authentication at the token endpoint per client id and
 * per client address. Each answers 429 with Retry-After and an OAuth error body.
 *
 * Requests are decided in memory and each instance flushes its counts every `rateLimits.syncInterval`
 * ms: on one instance (SQLite) a limit is exact; across two, a burst may pass each instance's own limit
 * until the next flush, then both refuse. The limiter itself is tested with explicit flushes (no timer
 * involved), where the documented slack is exact.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { counterKey } from '../../src/grants/failure-limiter.js';
import { createRateLimiter } from '../../src/protection/rate-limiter.js';
import { openStore } from '../../src/storage/open.js';
import type { FailureCounterStore } from '../../src/storage/tables/failure-counters.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';
import { loadWorld, SECRETS } from '../helpers/fixtures.js';
import {
  adminToken,
  api,
  clientCredentials,
  LogCapture,
  startIssuer,
  type TestIssuer,
} from '../helpers/issuer.js';

/** Window in seconds: long enough that a burst and the wait for one flush end well inside it. */
const WINDOW = 5;
/** Milliseconds between flushes in these tests. */
const SYNC = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Answer = { status: number; body: Record<string, string>; headers: Headers };

/** Wait out the longest `Retry-After` (seconds) of `answers`, plus a little. */
const waitOut = (answers: readonly Answer[]) =>
  sleep((Math.max(...answers.map((res) => Number(res.headers.get('retry-after')))) + 0.2) * 1000);

/** POST to the token endpoint with HTTP Basic; status, body and headers. */
async function token(t: TestIssuer, clientId: string, clientSecret: string): Promise<Answer> {
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

function expectRateLimited(res: Answer, window = WINDOW) {
  expect(res.status).toBe(429);
  expect(res.body.error).toBe('too_many_requests');
  expect(res.body.error_description).toMatch(/retry later/i);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(window);
}

/**
 * Send `count` requests at once: on one instance exactly `limit` pass; on two, each instance passes at
 * most `limit` on its own (so between `limit` and twice it, as many as were sent at most).
 */
async function burst(t: TestIssuer, count: number, limit: number, send: (i: number) => Promise<Answer>) {
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => send(i)));
  const limited = answers.filter((res) => res.status === 429);
  const passed = count - limited.length;
  if (t.instances.length === 1) expect(passed).toBe(limit);
  else {
    expect(passed).toBeGreaterThanOrEqual(limit);
    expect(passed).toBeLessThanOrEqual(Math.min(count, t.instances.length * limit));
  }
  for (const res of limited) expectRateLimited(res);
  return { answers, limited };
}

/**
 * Once the instances have flushed, every instance refuses: send one request to each (round robin)
 * until all are refused; resolves to those answers.
 */
async function refusedEverywhere(
  t: TestIssuer,
  send: () => Promise<Answer>,
  window = WINDOW,
): Promise<Answer[]> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const answers: Answer[] = [];
    for (const _ of t.instances) answers.push(await send());
    if (answers.every((res) => res.status === 429)) {
      for (const res of answers) expectRateLimited(res, window);
      return answers;
    }
    if (Date.now() > deadline) throw new Error('the instances did not converge on the shared count');
    await sleep(SYNC);
  }
}

describe.each(DRIVERS)('%s', (driver) => {
  const rateLimits = { window: WINDOW, syncInterval: SYNC };

  describe('Management API, per client', () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, { rateLimits: { ...rateLimits, managementPerClient: 6 } });
    });
    afterAll(() => t.close());

    it('B57: more requests than the limit in a window → 429 with Retry-After and an OAuth error body; served again after', async () => {
      const admin = await adminToken(t);
      const users = () => api(t, admin, 'GET', '/users') as Promise<Answer>;
      const { limited } = await burst(t, 9, 6, users);
      for (const res of limited) expect(res.body.code).toBe('too_many_requests');
      const refused = await refusedEverywhere(t, users);
      await waitOut([...limited, ...refused]);
      expect((await users()).status).toBe(200);
    });
  });

  describe('token endpoint', () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, {
        rateLimits: { ...rateLimits, tokenPerClient: 5, tokenPerAddress: 1_000 },
      });
      await loadWorld(t);
    });
    afterAll(() => t.close());

    it('B58: wrong secrets of one client id beyond the limit → 429 before any secret is compared; recovered after', async () => {
      const wrong = () => token(t, 'worker', 'wrong-secret');
      const { answers, limited } = await burst(t, 8, 5, wrong);
      for (const res of answers) expect([401, 429]).toContain(res.status);
      // Once refused everywhere, the right secret is refused as well until the window ends; another
      // client is not affected.
      const refused = await refusedEverywhere(t, () => token(t, 'worker', SECRETS.worker));
      expect(
        (await clientCredentials(t.baseUrl, t.admin.clientId, t.admin.clientSecret, {})).status,
      ).not.toBe(429);
      await waitOut([...limited, ...refused]);
      expect((await token(t, 'worker', SECRETS.worker)).status).toBe(200);
    });
  });

  describe('token endpoint, per address', () => {
    let t: TestIssuer;
    beforeAll(async () => {
      t = await startIssuer(driver, {
        rateLimits: { ...rateLimits, tokenPerClient: 1_000, tokenPerAddress: 6 },
      });
      await loadWorld(t);
    });
    afterAll(() => t.close());

    it('B59: one address rotating client ids beyond the limit → 429 for every client from it; recovered after', async () => {
      const { answers, limited } = await burst(t, 9, 6, (i) =>
        token(t, `guessed-client-${i}`, 'wrong-secret'),
      );
      for (const res of answers) expect([401, 429]).toContain(res.status);
      const refused = await refusedEverywhere(t, () => token(t, 'worker', SECRETS.worker));
      await waitOut([...limited, ...refused]);
      expect((await token(t, 'worker', SECRETS.worker)).status).toBe(200);
    });
  });
});

describe('postgres: two instances behind the balancer', () => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer('postgres', {
      rateLimits: { window: 30, syncInterval: SYNC, managementPerClient: 6 },
    });
  });
  afterAll(() => t.close());

  it("B83: a flood spread over two instances passes at most each one's own limit, then every instance refuses, and the database counts every request", async () => {
    const admin = await adminToken(t);
    let sent = 0;
    const users = () => {
      sent += 1;
      return api(t, admin, 'GET', '/users') as Promise<Answer>;
    };
    let passed = 0;
    // 40 requests, 4 at a time: faster than one flush, so the instances decide partly on their own.
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: 4 }, users));
      passed += answers.filter((res) => res.status === 200).length;
    }
    expect(passed).toBeGreaterThanOrEqual(6);
    expect(passed).toBeLessThanOrEqual(2 * 6);
    await refusedEverywhere(t, users, 30);
    // Every request of both instances reaches the shared count (with the next flushes).
    const key = counterKey(`rate\nmanagement\n${t.admin.clientId}`);
    await vi.waitFor(
      async () => {
        expect((await t.issuer.store.failures.get(key, Math.floor(Date.now() / 1000)))?.count).toBe(sent);
      },
      { timeout: 3_000, interval: SYNC },
    );
  });
});

describe('createRateLimiter() across two stores on one PostgreSQL database', () => {
  /** A limiter that flushes only when told to (its timer never fires during a test). */
  const limiterOn = (counters: FailureCounterStore, logs = new LogCapture()) =>
    createRateLimiter({
      window: 60,
      syncInterval: 3_600_000,
      maxKeys: 100,
      keysPerStatement: 2,
      counters,
      log: pino(logs),
      now: () => 100,
    });

  it('B83: decides in memory; a flush sends every key in one statement per keysPerStatement and reads the shared totals; the overshoot is at most what the other counted since its last flush', async () => {
    const database = await freshDatabase('postgres');
    const first = openStore(database);
    const second = openStore(database);
    try {
      await first.migrate();
      const sendA = vi.spyOn(first.failures, 'incrementAll');
      const a = limiterOn(first.failures);
      const b = limiterOn(second.failures);
      const k = { key: 'k', max: 6 };
      const other = { key: 'other', max: 1 };
      // Each alone within the limit: 4 + 4 pass, 2 over it (b has not heard of a's 4 yet).
      for (let i = 0; i < 4; i++) expect(a.hit([k], 100)).toEqual([0]);
      expect(sendA).not.toHaveBeenCalled();
      for (let i = 0; i < 4; i++) expect(b.hit([k, other], 101)).toEqual([0, i === 0 ? 0 : 60]);
      await a.flush();
      expect(sendA).toHaveBeenCalledTimes(1);
      await b.flush();
      // b read the shared total (8): refused at once; a read only its own 4 and passes 2 more, the
      // most it can overshoot by being one flush behind b.
      expect(b.hit([k], 101)).toEqual([59]);
      expect(a.hit([k], 101)).toEqual([0]);
      expect(a.hit([k], 101)).toEqual([0]);
      await a.flush();
      expect(a.hit([k], 101)).toEqual([59]);
      await b.flush();
      expect(b.hit([k], 101)).toEqual([59]);
      // Nothing lost: once both flushed, the store holds every request of both.
      await Promise.all([a.flush(), b.flush()]);
      expect((await first.failures.get(counterKey('rate\nk'), 101))?.count).toBe(4 + 4 + 1 + 3 + 1);
      // Three keys of a, two per statement: two statements in one flush.
      sendA.mockClear();
      a.hit(
        [
          { key: 'x', max: 1 },
          { key: 'y', max: 1 },
        ],
        102,
      );
      await a.flush();
      expect(sendA).toHaveBeenCalledTimes(2);
      // A new window once the shared one ended.
      expect(a.hit([k], 160)).toEqual([0]);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('a failed flush is logged without the keys and sent again by the next one; requests are still decided', async () => {
    const database = await freshDatabase('postgres');
    const store = openStore(database);
    const logs = new LogCapture();
    try {
      await store.migrate();
      let failNext = true;
      const counters: FailureCounterStore = {
        ...store.failures,
        incrementAll: (entries, now) => {
          if (!failNext) return store.failures.incrementAll(entries, now);
          failNext = false;
          return Promise.reject(new Error('connection terminated'));
        },
      };
      const limiter = limiterOn(counters, logs);
      const k = { key: 'client-id-in-clear', max: 2 };
      expect(limiter.hit([k], 100)).toEqual([0]);
      await limiter.flush();
      expect(logs.text).toContain('rate_limit_sync_failed');
      expect(logs.text).not.toContain('client-id-in-clear');
      expect(logs.text).not.toContain(counterKey('rate\nclient-id-in-clear'));
      expect(limiter.hit([k], 100)).toEqual([0]);
      expect(limiter.hit([k], 100)).toEqual([60]);
      await limiter.close();
      expect((await store.failures.get(counterKey('rate\nclient-id-in-clear'), 100))?.count).toBe(3);
    } finally {
      await store.close();
    }
  });
});
