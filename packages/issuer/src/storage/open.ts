/**
 * Driver selection: a `postgres://` or `postgresql://` URL opens PostgreSQL, anything else is a SQLite
 * file path (or `:memory:`). Used by `createIssuer()` and the CLI, so `DATABASE_URL` alone switches.
 *
 * @module
 */
import { isPostgresUrl, openPostgresStore, type PostgresStoreOptions } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

/**
 * Open the store `database` names. Call `migrate()` before use.
 *
 * @param database - A SQLite file path, `:memory:`, or a PostgreSQL URL.
 * @param postgres - Pool settings, used only for PostgreSQL.
 *
 * @example
 * ```ts
 * import { openStore } from '@gatehouse/issuer';
 *
 * const store = openStore(process.env.DATABASE_URL ?? './.data/issuer.sqlite');
 * await store.migrate();
 * ```
 */
export function openStore(database: string, postgres: PostgresStoreOptions = {}): Store {
  return isPostgresUrl(database) ? openPostgresStore(database, postgres) : openSqliteStore(database);
}

/**
 * `database` as it may be printed: a URL loses its password (and any query, which may carry one).
 *
 * @example
 * ```ts
 * describeDatabase('postgres://app:s3cret@db:5432/gatehouse'); // 'postgres://app:***@db:5432/gatehouse'
 * ```
 */
export function describeDatabase(database: string): string {
  if (!isPostgresUrl(database)) return database;
  try {
    const url = new URL(database);
    if (url.password !== '') url.password = '***';
    url.search = '';
    return url.href;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
