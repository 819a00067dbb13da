/**
 * Counts failed redemptions of unknown subject tokens and personal access tokens per key (client id
 * and remote address) in fixed windows; once `maxFailures` is reached, further exchanges from that key
 * get `429` until the window ends (catalogue B6). Guessing a 256-bit token is hopeless anyway: the
 * limit turns a scan into a visible, slowed-down event.
 *
 * The counters live in the store (`failure_counters`), so every issuer instance on one PostgreSQL
 * database sees the same count: spreading attempts over instances does not multiply the allowance.
 * Keys are stored as SHA-256 digests (no client address is written to the database).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { FailureCounterStore } from '../storage/store.js';

/** A failure counter. */
export interface FailureLimiter {
  /** Seconds until `key` may try again; `0` when it is not blocked. */
  retryAfter(key: string, now: number): Promise<number>;
  /** Count one failure of `key`. */
  fail(key: string, now: number): Promise<void>;
}

/** Options of {@link createFailureLimiter}. */
export interface FailureLimiterOptions {
  /** Failures tolerated per window. */
  readonly maxFailures: number;
  /** Window length in seconds. */
  readonly window: number;
}

const digest = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * Create a limiter on the store's failure counters.
 *
 * @example
 * ```ts
 * const limiter = createFailureLimiter({ maxFailures: 10, window: 300 }, store.failures);
 * const wait = await limiter.retryAfter(key, now);
 * if (wait > 0) throw new TooManyExchangeFailuresError(wait);
 * ```
 */
export function createFailureLimiter(
  options: FailureLimiterOptions,
  counters: FailureCounterStore,
): FailureLimiter {
  return {
    async retryAfter(key, now) {
      const window = await counters.get(digest(key), now);
      return window !== undefined && window.count >= options.maxFailures ? window.endsAt - now : 0;
    },
    async fail(key, now) {
      await counters.increment(digest(key), now, options.window);
    },
  };
}
