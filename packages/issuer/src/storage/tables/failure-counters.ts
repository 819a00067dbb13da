/**
 * The failure counters table: fixed windows of counted failures. Part of the `Store` interface
 * (`../store.ts`); see there for the rules every driver follows.
 *
 * @module
 */

/** A failure-counting window: `count` failures since it began; it ends at `endsAt` (epoch seconds). */
export interface FailureWindow {
  readonly count: number;
  readonly endsAt: number;
}

/**
 * Failure counters in fixed windows, keyed by an opaque string (the token-exchange failure limiter,
 * catalogue B6). Shared by every process on the database, so a client cannot multiply its allowance
 * by spreading attempts over several issuer instances.
 */
export interface FailureCounterStore {
  /** The window of `key` that is still open at `now`, if any. */
  get(key: string, now: number): Promise<FailureWindow | undefined>;
  /**
   * Count one failure, atomically: opens a window of `window` seconds when none is open at `now`,
   * otherwise adds one to the open window. Resolves to the window after counting.
   */
  increment(key: string, now: number, window: number): Promise<FailureWindow>;
  /**
   * {@link FailureCounterStore.increment} of several distinct keys in one statement (one round trip),
   * each by its `count` (default 1; 0 only reads the open window, opening one when none is): resolves to
   * their windows in the order given.
   */
  incrementAll(
    entries: readonly { readonly key: string; readonly window: number; readonly count?: number }[],
    now: number,
  ): Promise<FailureWindow[]>;
  /** Forget `key`'s window (a successful sign-in, a lock placed). */
  reset(key: string): Promise<void>;
  /** Delete windows that ended. Resolves to how many were deleted. */
  purgeExpired(now: number): Promise<number>;
}
