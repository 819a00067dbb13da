/**
 * Where the client keeps what must survive between calls: the pending sign-in (PKCE verifier, state,
 * nonce) from `signIn()` to `handleSignInCallback()`, and the session (refresh token and ID token).
 * Access tokens are never stored here: they live only in the client's memory.
 *
 * - `'memory'` (default): a private map inside the client; gone when the process or page ends.
 * - `'sessionStorage'` (browser): survives the sign-in redirect and reloads of the same tab, and is
 *   dropped when the tab closes. Needed in a single-page app that leaves the page to sign in.
 * - any object with `getItem` / `setItem` / `removeItem` (sync or async): your own store. Passing
 *   `localStorage` here puts a refresh token where every script of the origin can read it for as long
 *   as it lives; the client never does that by default.
 *
 * @module
 */

/**
 * A key-value store for the client's state. The Web Storage API (`sessionStorage`) fits as is; the
 * methods may also return promises.
 *
 * @example
 * ```ts
 * import { createClient, type ClientStorage } from '@gatehouse/client';
 * import { readFileSync, writeFileSync } from 'node:fs';
 *
 * // A file-backed store for a command-line tool (keep the file private: it holds a refresh token).
 * const file = './.session.json';
 * const read = (): Record<string, string> => { try { return JSON.parse(readFileSync(file, 'utf8')); } catch { return {}; } };
 * const storage: ClientStorage = {
 *   getItem: (key) => read()[key] ?? null,
 *   setItem: (key, value) => writeFileSync(file, JSON.stringify({ ...read(), [key]: value }), { mode: 0o600 }),
 *   removeItem: (key) => { const all = read(); delete all[key]; writeFileSync(file, JSON.stringify(all), { mode: 0o600 }); },
 * };
 * const client = createClient({ ...options, storage });
 * ```
 */
export interface ClientStorage {
  /** The value stored under `key`, or `null`. */
  getItem(key: string): string | null | Promise<string | null>;
  /** Store `value` under `key`. */
  setItem(key: string, value: string): void | Promise<void>;
  /** Remove `key`. */
  removeItem(key: string): void | Promise<void>;
}

/**
 * The `storage` option: a named built-in store or your own.
 *
 * @example
 * ```ts
 * const storage: StorageOption = typeof window === 'undefined' ? 'memory' : 'sessionStorage';
 * ```
 */
export type StorageOption = 'memory' | 'sessionStorage' | ClientStorage;

/**
 * A new in-memory {@link ClientStorage}, private to whoever holds it. This is what `storage: 'memory'`
 * (the default) uses.
 *
 * @example
 * ```ts
 * import { createMemoryStorage } from '@gatehouse/client';
 *
 * const storage = createMemoryStorage();
 * storage.setItem('k', 'v');
 * storage.getItem('k'); // 'v'
 * ```
 */
export function createMemoryStorage(): ClientStorage & { readonly size: number } {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, String(value));
    },
    removeItem: (key) => {
      items.delete(key);
    },
    get size() {
      return items.size;
    },
  };
}

/**
 * Whether `value` has the three methods of a {@link ClientStorage}.
 *
 * @example
 * ```ts
 * isClientStorage(globalThis.sessionStorage); // true in a browser
 * ```
 */
export function isClientStorage(value: unknown): value is ClientStorage {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.getItem === 'function' &&
    typeof candidate.setItem === 'function' &&
    typeof candidate.removeItem === 'function'
  );
}
