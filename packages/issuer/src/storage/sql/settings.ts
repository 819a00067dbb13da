/**
 * Small named values (generated cookie keys, bootstrap markers): insert-if-absent and upsert.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import type { SettingStore } from '../tables/settings.js';

/**
 * The {@link SettingStore} on `db`.
 *
 * @example
 * ```ts
 * const settings = settingStore(db);
 * const cookieKey = await settings.setIfAbsent('cookie_keys', JSON.stringify([secret]));
 * ```
 */
export function settingStore(db: Executor): SettingStore {
  const get = async (key: string) => {
    const row = await db.one('SELECT value FROM settings WHERE key = ?', [key]);
    return row === undefined ? undefined : String(row.value);
  };
  return {
    get,
    setIfAbsent: async (key, value) => {
      await db.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [
        key,
        value,
      ]);
      return (await get(key))!;
    },
    set: async (key, value) => {
      await db.run(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [key, value],
      );
    },
  };
}
