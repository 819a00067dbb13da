/**
 * The settings table: small named values. Part of the `Store` interface (`../store.ts`); see there for the
 * rules every driver follows.
 *
 * @module
 */

/** Small named values (generated cookie keys, bootstrap markers). */
export interface SettingStore {
  get(key: string): Promise<string | undefined>;
  /** Store `value` unless the key exists; resolves to the value that is stored afterwards. */
  setIfAbsent(key: string, value: string): Promise<string>;
  set(key: string, value: string): Promise<void>;
}
