/**
 * Counts failed redemptions of unknown subject tokens and personal access tokens per key (client id
 * and remote address) in fixed windows; once `maxFailures` is reached, further exchanges from that key
 * get `429` until the window ends (catalogue B6). Guessing a 256-bit token is hopeless anyway: the
 * limit turns a scan into a visible, slowed-down event. In memory, like SQLite itself: single node.
 *
 * @module
 */

/** Most keys tracked; the oldest window is dropped first beyond it. */
const MAX_KEYS = 10_000;

/** A failure counter. */
export interface FailureLimiter {
  /** Seconds until `key` may try again; `0` when it is not blocked. */
  retryAfter(key: string, now: number): number;
  /** Count one failure of `key`. */
  fail(key: string, now: number): void;
}

/** Options of {@link createFailureLimiter}. */
export interface FailureLimiterOptions {
  /** Failures tolerated per window. */
  readonly maxFailures: number;
  /** Window length in seconds. */
  readonly window: number;
}

/**
 * Create a limiter.
 *
 * @example
 * ```ts
 * const limiter = createFailureLimiter({ maxFailures: 10, window: 300 });
 * if (limiter.retryAfter(key, now) > 0) throw new TooManyExchangeFailuresError(limiter.retryAfter(key, now));
 * ```
 */
export function createFailureLimiter(options: FailureLimiterOptions): FailureLimiter {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const current = (key: string, now: number) => {
    const entry = windows.get(key);
    if (entry !== undefined && entry.endsAt <= now) {
      windows.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    retryAfter(key, now) {
      const entry = current(key, now);
      return entry !== undefined && entry.count >= options.maxFailures ? entry.endsAt - now : 0;
    },
    fail(key, now) {
      const entry = current(key, now);
      if (entry !== undefined) {
        entry.count++;
        return;
      }
      if (windows.size >= MAX_KEYS) {
        for (const [stale, value] of windows) if (value.endsAt <= now) windows.delete(stale);
        if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value!);
      }
      windows.set(key, { count: 1, endsAt: now + options.window });
    },
  };
}
