/**
 * Fixed-window rate limits on the store's shared counters (`failure_counters`): one atomic upsert
 * counts a request under every key it is limited by (one round trip on PostgreSQL, whatever the number
 * of keys), so every issuer instance on one database sees the same counts and spreading requests over
 * instances does not multiply an allowance. Keys are stored as SHA-256 digests (`counterKey`), so no
 * client id or address is written to the database in clear.
 *
 * @module
 */
import { counterKey } from '../grants/failure-limiter.js';
import type { FailureCounterStore } from '../storage/store.js';

/**
 * One limit a request is counted under: at most `max` requests of `key` per window.
 *
 * @example
 * ```ts
 * const check: RateCheck = { key: `management\n${clientId}`, max: 1_200 };
 * ```
 */
export interface RateCheck {
  readonly key: string;
  readonly max: number;
}

/**
 * Counts requests in fixed windows.
 *
 * @example
 * ```ts
 * const [wait] = await limiter.hit([{ key: `management\n${clientId}`, max: 1_200 }], epoch());
 * if (wait > 0) throw new RateLimitedError(wait);
 * ```
 */
export interface RateLimiter {
  /**
   * Count one request under each check (distinct keys); resolves to each one's wait: the seconds until
   * its window ends when over its `max`, else 0.
   */
  hit(checks: readonly RateCheck[], now: number): Promise<number[]>;
}

/**
 * Create a limiter with windows of `window` seconds.
 *
 * @example
 * ```ts
 * const limiter = createRateLimiter(60, store.failures);
 * ```
 */
export function createRateLimiter(window: number, counters: FailureCounterStore): RateLimiter {
  return {
    async hit(checks, now) {
      const windows = await counters.incrementAll(
        checks.map(({ key }) => ({ key: counterKey(`rate\n${key}`), window })),
        now,
      );
      return windows.map((counted, index) =>
        counted.count > checks[index]!.max ? Math.max(counted.endsAt - now, 1) : 0,
      );
    },
  };
}
