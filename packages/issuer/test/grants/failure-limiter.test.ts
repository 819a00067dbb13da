/** The failure limiter (catalogue B6): fixed windows per key, blocking at the limit, bounded memory. */
import { describe, expect, it } from 'vitest';
import { createFailureLimiter } from '../../src/grants/failure-limiter.js';

describe('failure limiter', () => {
  it('blocks a key once it reaches the limit, until its window ends', () => {
    const limiter = createFailureLimiter({ maxFailures: 3, window: 60 });
    for (let i = 0; i < 2; i++) limiter.fail('a', 100);
    expect(limiter.retryAfter('a', 100)).toBe(0);
    limiter.fail('a', 110);
    expect(limiter.retryAfter('a', 110)).toBe(50);
    expect(limiter.retryAfter('b', 110)).toBe(0);
    expect(limiter.retryAfter('a', 159)).toBe(1);
    expect(limiter.retryAfter('a', 160)).toBe(0);
    limiter.fail('a', 161);
    expect(limiter.retryAfter('a', 161)).toBe(0);
  });

  it('stays bounded under many keys and keeps counting recent ones', () => {
    const limiter = createFailureLimiter({ maxFailures: 1, window: 10 });
    for (let i = 0; i < 10_050; i++) limiter.fail(`key-${i}`, 0);
    expect(limiter.retryAfter('key-10049', 0)).toBe(10);
    expect(limiter.retryAfter('key-0', 0)).toBe(0);
    limiter.fail('fresh', 20);
    expect(limiter.retryAfter('fresh', 20)).toBe(10);
  });
});
