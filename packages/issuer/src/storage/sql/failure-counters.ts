/**
 * Counters in fixed windows (the token-exchange failure limiter, sign-in throttling, the rate limiters'
 * shared totals): one upsert adds to any number of counters atomically, opening a new window for each
 * whose previous one ended.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { num, type Row } from '../rows.js';
import type { FailureCounterStore, FailureWindow } from '../tables/failure-counters.js';

/**
 * A `failure_counters` row (or the `count`, `ends_at` columns of a wider one) as its window.
 *
 * @example
 * ```ts
 * toWindow({ count: '3', ends_at: '160' }); // { count: 3, endsAt: 160 }
 * ```
 */
export const toWindow = (row: Row): FailureWindow => ({ count: num(row.count), endsAt: num(row.ends_at) });

/**
 * The {@link FailureCounterStore} on `db`.
 *
 * @example
 * ```ts
 * const failures = failureCounterStore(db);
 * const { count } = await failures.increment(digest, now, 300);
 * ```
 */
export function failureCounterStore(db: Executor): FailureCounterStore {
  const incrementAll: FailureCounterStore['incrementAll'] = async (entries, now) => {
    const rows = await db.many(
      `INSERT INTO failure_counters (key, count, ends_at) VALUES ${entries.map(() => '(?, ?, ?)').join(', ')}
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN failure_counters.ends_at <= ? THEN excluded.count ELSE failure_counters.count + excluded.count END,
         ends_at = CASE WHEN failure_counters.ends_at <= ? THEN excluded.ends_at ELSE failure_counters.ends_at END
       RETURNING key, count, ends_at`,
      [...entries.flatMap(({ key, window, count }) => [key, count ?? 1, now + window]), now, now],
    );
    const byKey = new Map(rows.map((row) => [String(row.key), toWindow(row)]));
    return entries.map(({ key }) => byKey.get(key)!);
  };
  return {
    get: async (key, now) => {
      const row = await db.one('SELECT count, ends_at FROM failure_counters WHERE key = ? AND ends_at > ?', [
        key,
        now,
      ]);
      return row && toWindow(row);
    },
    increment: async (key, now, window) => (await incrementAll([{ key, window }], now))[0]!,
    incrementAll,
    reset: async (key) => {
      await db.run('DELETE FROM failure_counters WHERE key = ?', [key]);
    },
    purgeExpired: (now) => db.run('DELETE FROM failure_counters WHERE ends_at <= ?', [now]),
  };
}
