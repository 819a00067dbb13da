/**
 * Fixed-window rate limits on the store's shared counters (`failure_counters`): one atomic upsert per
 * request counts it, so every issuer instance on one PostgreSQL database sees the same count and
 * spreading requests over instances does not multiply the allowance. Keys are stored as SHA-256
 * digests (`counterKey`), so no client id or address is written to the database in clear.
 *
 * @module
 */
import { counterKey } from '../grants/failure-limiter.js';
import type { FailureCounterStore } from '../storage/store.js';

/**
 * A rate limit: `hit()` counts one request of a key and says how long it must wait when over the
 * limit.
 *
 * @example
 * ```ts
 * const wait = await limit.hit(`management\n${clientId}`, epoch());
 * if (wait > 0) throw new ManagementRateLimitedError(wait);
 * ```
 */
export interface RateLimit {
  /** Count one request of `key`; resolves to the seconds until its window ends when over the limit, else 0. */
  hit(key: string, now: number): Promise<number>;
}

/**
 * Create a limit of `max` requests per key in windows of `window` seconds.
 *
 * @example
 * ```ts
 * const limit = createRateLimit({ max: 600, window: 60 }, store.failures);
 * ```
 */
export function createRateLimit(
  options: { readonly max: number; readonly window: number },
  counters: FailureCounterStore,
): RateLimit {
  return {
    async hit(key, now) {
      const window = await counters.increment(counterKey(`rate\n${key}`), now, options.window);
      return window.count > options.max ? Math.max(window.endsAt - now, 1) : 0;
    },
  };
}
