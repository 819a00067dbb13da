/**
 * Driver selection: a `postgres://` or `postgresql://` URL opens PostgreSQL, anything else is a SQLite
 * file path (or `:memory:`). Used by `createIssuer()` and the CLI, so `DATABASE_URL` alone switches.
 *
 * @module
 */
import { isPostgresUrl } from './database-url.js';
import { openPostgresStore, type PostgresStoreOptions } from './drivers/postgres.js';
import { openSqliteStore, type SqliteStoreOptions } from './drivers/sqlite.js';
import type { Store } from './store.js';

/**
 * Options of {@link openStore}: pool settings, used only for PostgreSQL, and `onWarning`, used only
 * for SQLite.
 *
 * @example
 * ```ts
 * const options: OpenStoreOptions = { poolSize: 20, onWarning: (warning) => console.warn(warning.message) };
 * ```
 */
export interface OpenStoreOptions extends PostgresStoreOptions, SqliteStoreOptions {}

/**
 * Open the store `database` names. Call `migrate()` before use.
 *
 * @param database - A SQLite file path, `:memory:`, or a PostgreSQL URL.
 * @param options - Pool settings (PostgreSQL) and the file-mode warning callback (SQLite).
 *
 * @example
 * ```ts
 * import { openStore } from '@gatehouse/issuer';
 *
 * const store = openStore(process.env.DATABASE_URL ?? './.data/issuer.sqlite');
 * await store.migrate();
 * ```
 */
export function openStore(database: string, options: OpenStoreOptions = {}): Store {
  const { onWarning, ...postgres } = options;
  return isPostgresUrl(database)
    ? openPostgresStore(database, postgres)
    : openSqliteStore(database, { onWarning });
}

export { describeDatabase } from './database-url.js';
