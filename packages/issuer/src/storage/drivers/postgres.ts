/**
 * The PostgreSQL storage driver (`pg`, pooled): several issuer processes on one database behave as one
 * server. Selected by a `postgres://` / `postgresql://` URL as `database` (`DATABASE_URL`).
 *
 * - Every query is parameterized; SQL text never contains a value. Statements are prepared once per
 *   connection (`postgres-executor.ts`).
 * - Single-use artifacts are consumed by one conditional update (`UPDATE … WHERE consumed_at IS NULL
 *   AND expires_at > $now RETURNING …`): under READ COMMITTED a concurrent second update re-checks the
 *   row after the first commits and matches nothing, so exactly one caller wins across every process.
 * - Methods that write several rows run in one transaction, or are one statement.
 * - Migrations and start-up run under session advisory locks, so instances started together do not race.
 * - Key and configuration changes are announced with `NOTIFY` (`postgres-keys.ts`, migration 0009),
 *   heard on one LISTEN connection (`postgres-notifications.ts`).
 *
 * The tables live in the connection's `search_path` (usually `public`); to give an issuer its own
 * schema, add `?options=-c%20search_path%3Dmyschema` to the URL.
 *
 * @module
 */
import pg from 'pg';
import { DEFAULTS } from '../../config/defaults.js';
import { isPostgresUrl } from '../database-url.js';
import { createSqlStore } from '../sql/index.js';
import { applyMigrations } from '../sql/migrate.js';
import type { Store } from '../store.js';
import { connectionError } from './postgres-connect-errors.js';
import { LOCK_KEY, PostgresExecutor, PreparedStatements } from './postgres-executor.js';
import { KeyNotifications } from './postgres-keys.js';
import { configNotifications, PgNotifications } from './postgres-notifications.js';

/**
 * Options of {@link openPostgresStore}. Defaults are `DEFAULTS.postgres`.
 *
 * @example
 * ```ts
 * const options: PostgresStoreOptions = { poolSize: 20, onError: (err) => console.warn(err.message) };
 * ```
 */
export interface PostgresStoreOptions {
  /** Most connections the pool opens (queries beyond wait for one), at least 2. Default 10. */
  readonly poolSize?: number | undefined;
  /** Milliseconds to wait for a connection before a query fails. Default 10000. */
  readonly connectionTimeout?: number | undefined;
  /** Milliseconds an unused pooled connection stays open. Default 30000. */
  readonly idleTimeout?: number | undefined;
  /** Called with errors of idle connections and of the notification connection (never thrown). */
  readonly onError?: ((err: Error) => void) | undefined;
}

function integer(
  value: number | undefined,
  option: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    throw new TypeError(`"${option}" must be an integer between ${min} and ${max}`);
  return value;
}

/**
 * Open a PostgreSQL store. No connection is made until the first query; call `migrate()` before use
 * (`createIssuer()` and `gatehouse-issuer migrate` do). Several processes may open the same database.
 *
 * @param url - `postgres://user:password@host:5432/database` (libpq parameters such as `sslmode`
 *   and `options` are honoured).
 *
 * @example
 * ```ts
 * import { openPostgresStore } from '@gatehouse/issuer';
 *
 * const store = openPostgresStore(process.env.DATABASE_URL!, { poolSize: 20 });
 * await store.migrate();
 * ```
 */
export function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Store {
  if (typeof url !== 'string' || !isPostgresUrl(url))
    throw new TypeError('"url" must be a postgres:// or postgresql:// URL');
  if (options.onError !== undefined && typeof options.onError !== 'function')
    throw new TypeError('"onError" must be a function');
  const { postgres } = DEFAULTS;
  const pool = new pg.Pool({
    connectionString: url,
    // Two at least: `exclusive()` holds one connection while its function queries on others.
    max: integer(options.poolSize, 'poolSize', postgres.poolSize, 2, 1_000),
    connectionTimeoutMillis: integer(
      options.connectionTimeout,
      'connectionTimeout',
      postgres.connectionTimeout,
      100,
      600_000,
    ),
    idleTimeoutMillis: integer(options.idleTimeout, 'idleTimeout', postgres.idleTimeout, 1_000, 3_600_000),
    application_name: 'gatehouse-issuer',
  });
  const onError = options.onError ?? (() => undefined);
  // An idle connection that breaks (server restart, network) is dropped by the pool; never crash.
  pool.on('error', (err) => onError(err));
  const statements = new PreparedStatements();
  const notifications = new PgNotifications(url, onError);
  const keyChanges = new KeyNotifications(notifications);

  /**
   * Run `fn` on one connection holding the session advisory lock `name`. A connection that cannot be
   * made (migration and start-up come here first) is a `DatabaseConnectionError` saying what to check.
   */
  const locked = async <T>(name: string, fn: (db: PostgresExecutor) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((err: unknown) => Promise.reject(connectionError(url, err)));
    const db = new PostgresExecutor(client, statements);
    let broken: Error | undefined;
    try {
      await db.one(`SELECT pg_advisory_lock(${LOCK_KEY})`, [name]);
      try {
        return await fn(db);
      } finally {
        await db.one(`SELECT pg_advisory_unlock(${LOCK_KEY})`, [name]);
      }
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      // A connection whose unlock may not have run must not go back to the pool holding the lock.
      client.release(broken);
    }
  };

  let closed = false;
  return createSqlStore(new PostgresExecutor(pool, statements), {
    driver: 'postgres',
    multiNode: true,
    migrate: () => locked('migrate', applyMigrations),
    exclusive: (name, fn) => locked(name, fn),
    close: async () => {
      if (closed) return;
      closed = true;
      await notifications.close();
      await pool.end();
    },
    keyChanges,
    externalChanges: configNotifications(notifications),
    poolUsage: () => ({
      used: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      pending: pool.waitingCount,
      max: pool.options.max,
    }),
  });
}

export { isPostgresUrl } from '../database-url.js';
