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
import { hash } from 'node:crypto';
import type { FailureCounterStore, FailureWindow } from '../storage/tables/failure-counters.js';

/**
 * A failure counter.
 *
 * @example
 * ```ts
 * const wait = limiter.blockedFor(records.failures, now);
 * if (wait > 0) throw new TooManyExchangeFailuresError(wait);
 * ```
 */
export interface FailureLimiter {
  /** Seconds until `key` may try again; `0` when it is not blocked. */
  retryAfter(key: string, now: number): Promise<number>;
  /** The same from a window already read (`FailureCounterStore.get` of {@link counterKey}, or none). */
  blockedFor(window: FailureWindow | undefined, now: number): number;
  /** Count one failure of `key`. */
  fail(key: string, now: number): Promise<void>;
}

/**
 * Options of {@link createFailureLimiter}.
 *
 * @example
 * ```ts
 * const options: FailureLimiterOptions = { maxFailures: 10, window: 300 };
 * ```
 */
export interface FailureLimiterOptions {
  /** Failures tolerated per window. */
  readonly maxFailures: number;
  /** Window length in seconds. */
  readonly window: number;
}

/**
 * The limiter key of a client at an address.
 *
 * @example
 * ```ts
 * await limiter.fail(limiterKey(client.clientId, ctx.ip), now);
 * ```
 */
export const limiterKey = (clientId: string, address: string): string => `${clientId}\n${address}`;

/**
 * The key a limiter key is counted under in the store: its SHA-256 digest, so no address is stored.
 *
 * @example
 * ```ts
 * const window = await store.failures.get(counterKey(limiterKey(clientId, ip)), now);
 * ```
 */
export const counterKey = (key: string): string => hash('sha256', key, 'hex');

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
  const blockedFor = (window: FailureWindow | undefined, now: number) =>
    window !== undefined && window.count >= options.maxFailures ? Math.max(window.endsAt - now, 0) : 0;
  return {
    retryAfter: async (key, now) => blockedFor(await counters.get(counterKey(key), now), now),
    blockedFor,
    async fail(key, now) {
      await counters.increment(counterKey(key), now, options.window);
    },
  };
}
