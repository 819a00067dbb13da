/**
 * The failure limiter (catalogue B6) on every driver: fixed windows per key, blocking at the limit,
 * counters shared by every limiter on the database (instances), keys stored only as digests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFailureLimiter } from '../../src/grants/failure-limiter.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { DRIVERS, freshDatabase } from '../helpers/drivers.js';

describe.each(DRIVERS)('failure limiter (%s)', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = openStore(await freshDatabase(driver));
    await store.migrate();
  });
  afterEach(() => store.close());

  it('blocks a key once it reaches the limit, until its window ends', async () => {
    const limiter = createFailureLimiter({ maxFailures: 3, window: 60 }, store.failures);
    for (let i = 0; i < 2; i++) await limiter.fail('a', 100);
    expect(await limiter.retryAfter('a', 100)).toBe(0);
    await limiter.fail('a', 110);
    expect(await limiter.retryAfter('a', 110)).toBe(50);
    expect(await limiter.retryAfter('b', 110)).toBe(0);
    expect(await limiter.retryAfter('a', 159)).toBe(1);
    expect(await limiter.retryAfter('a', 160)).toBe(0);
    await limiter.fail('a', 161);
    expect(await limiter.retryAfter('a', 161)).toBe(0);
  });

  it('stores keys as digests, never the client address', async () => {
    const limiter = createFailureLimiter({ maxFailures: 1, window: 10 }, store.failures);
    await limiter.fail('client\n203.0.113.9', 0);
    expect(await store.failures.get('client\n203.0.113.9', 0)).toBeUndefined();
    expect(await limiter.retryAfter('client\n203.0.113.9', 0)).toBe(10);
  });
});

describe('failure limiter across instances (postgres)', () => {
  it('counts the failures of every instance together: limiters on separate pools share one window', async () => {
    const database = await freshDatabase('postgres');
    const first = openStore(database);
    const second = openStore(database);
    try {
      await first.migrate();
      const a = createFailureLimiter({ maxFailures: 4, window: 60 }, first.failures);
      const b = createFailureLimiter({ maxFailures: 4, window: 60 }, second.failures);
      await Promise.all([a.fail('k', 100), b.fail('k', 100), a.fail('k', 100)]);
      expect(await a.retryAfter('k', 100)).toBe(0);
      await b.fail('k', 101);
      expect(await a.retryAfter('k', 101)).toBe(59);
      expect(await b.retryAfter('k', 101)).toBe(59);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
