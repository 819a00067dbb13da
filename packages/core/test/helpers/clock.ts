/**
 * A frozen `Date` for tests about ages and expiry: exact boundaries instead of a race with the wall
 * clock (a loaded machine can take seconds between signing a token and verifying it).
 */
import { vi } from 'vitest';

/**
 * Freeze `Date` only (sockets and timers stay real) at a whole second; returns a clock mover. Undo
 * with `vi.useRealTimers()` (in an `afterEach`).
 *
 * @example
 * ```ts
 * const advance = freezeDate();
 * advance(14.999); // Date.now() is 14.999 s later
 * ```
 */
export function freezeDate(): (seconds: number) => void {
  vi.useFakeTimers({ toFake: ['Date'] });
  let now = Math.floor(Date.now() / 1000) * 1000;
  vi.setSystemTime(now);
  return (seconds) => {
    now += seconds * 1000;
    vi.setSystemTime(now);
  };
}
