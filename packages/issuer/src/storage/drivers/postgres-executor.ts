/**
 * The PostgreSQL {@link Executor}: the SQL store's `?` placeholders numbered `$1 … $n`, every statement
 * a named prepared statement (parsed and planned once per connection, prepared again after another
 * process altered a table under it), unique violations as `StoreConflictError`, and transactions on
 * one pooled connection (a connection left in doubt is discarded, not returned to the pool).
 *
 * PostgreSQL text cannot hold U+0000, so no stored value contains it: a statement that looks a row up
 * by such a value matches nothing (as it would on SQLite), and inserting one is refused with a
 * `TypeError`. (The Management API refuses U+0000 in what it stores; only hostile lookups get here.)
 *
 * @module
 */
import pg from 'pg';
import { DEFAULTS } from '../../config/defaults.js';
import { StoreConflictError } from '../../errors.js';
import { conflictFields, type Dialect, type Executor } from '../executor.js';
import type { Row } from '../rows.js';

/**
 * The advisory-lock key of the name bound to its `?`, in the current schema (locks are database-wide,
 * schemas are not).
 *
 * @example
 * ```ts
 * await db.one(`SELECT pg_advisory_lock(${LOCK_KEY})`, ['migrate']);
 * ```
 */
export const LOCK_KEY = "hashtext(coalesce(current_schema(), '') || ':gatehouse:' || CAST(? AS TEXT))";

const POSTGRES: Dialect = Object.freeze({
  name: 'postgres',
  binary: 'COLLATE "C"',
  insertionOrder: 'seq',
  writableCte: true,
  jsonTexts: '(SELECT json_array_elements_text(CAST(? AS json)) AS value)',
  transactionLock: `SELECT pg_advisory_xact_lock(${LOCK_KEY})`,
});

/** Most distinct SQL texts prepared per connection; further ones run unnamed. */
const MAX_PREPARED = DEFAULTS.postgresDriver.maxPreparedStatements;
/** SQLSTATE of "cached plan must not change result type" (a table changed under a prepared plan). */
const PLAN_CHANGED = '0A000';
/** Constraint name → conflict field (PostgreSQL's generated names, or the index's own). */
const CONFLICTS = conflictFields(
  (constraint) =>
    constraint.index ??
    (constraint.primary
      ? `${constraint.table}_pkey`
      : `${constraint.table}_${constraint.columns.join('_')}_key`),
);

type Queryable = pg.Pool | pg.PoolClient;

/** `?` → `$n`, outside quoted literals and identifiers. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|"[^"]*"|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}

/**
 * The prepared statements of one store: names shared by every connection of its pool. A new generation
 * of names is taken when a migration by another process changed a table under a plan.
 *
 * @example
 * ```ts
 * const statements = new PreparedStatements();
 * await pool.query(statements.config('SELECT * FROM users WHERE id = ?', ['usr_1']));
 * ```
 */
export class PreparedStatements {
  readonly #texts = new Map<string, { readonly name: string | undefined; readonly text: string }>();
  #generation = 0;
  #named = 0;

  /** The query config of `sql` with `values`. */
  config(sql: string, values: readonly unknown[]): pg.QueryConfig {
    let entry = this.#texts.get(sql);
    if (entry === undefined) {
      const name = this.#named < MAX_PREPARED ? `gatehouse_${this.#generation}_${this.#named++}` : undefined;
      entry = { name, text: numbered(sql) };
      this.#texts.set(sql, entry);
    }
    return entry.name === undefined
      ? { text: entry.text, values: [...values] }
      : { name: entry.name, text: entry.text, values: [...values] };
  }

  /** Forget every name, so statements are prepared again under new ones. */
  renew(): void {
    this.#generation++;
    this.#named = 0;
    this.#texts.clear();
  }
}

const hasNul = (value: unknown): boolean =>
  typeof value === 'string' ? value.includes('\0') : Array.isArray(value) && value.some(hasNul);

function mapError(err: unknown): unknown {
  const pgError = err as { code?: unknown; constraint?: unknown };
  if (err instanceof Error && pgError.code === '23505') {
    return new StoreConflictError(CONFLICTS.get(String(pgError.constraint)) ?? 'unique value');
  }
  return err;
}

/**
 * The executor on a pool (each statement on any connection, a transaction on one) or on one client.
 *
 * @example
 * ```ts
 * const db = new PostgresExecutor(pool, new PreparedStatements());
 * const user = await db.one('SELECT * FROM users WHERE id = ?', ['usr_1']);
 * ```
 */
export class PostgresExecutor implements Executor {
  readonly dialect = POSTGRES;
  readonly #on: Queryable;
  readonly #statements: PreparedStatements;
  /** Whether this executor runs inside a transaction it did not open (its `transaction` does not nest). */
  readonly #inside: boolean;

  constructor(on: Queryable, statements: PreparedStatements, inside = false) {
    this.#on = on;
    this.#statements = statements;
    this.#inside = inside;
  }

  async one(sql: string, params: readonly unknown[] = []): Promise<Row | undefined> {
    return (await this.#query(sql, params))?.rows[0] as Row | undefined;
  }

  async many(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    return ((await this.#query(sql, params))?.rows ?? []) as Row[];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.#query(sql, params))?.rowCount ?? 0;
  }

  async script(sql: string): Promise<void> {
    await this.#on.query(sql);
  }

  async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    if (this.#inside) return fn(this);
    if (!(this.#on instanceof pg.Pool)) return this.#within(this.#on, fn);
    const client = await this.#on.connect();
    const failure: { rollback?: Error } = {};
    try {
      return await this.#within(client, fn, failure);
    } finally {
      client.release(failure.rollback);
    }
  }

  async #within<T>(
    client: pg.PoolClient,
    fn: (tx: Executor) => Promise<T>,
    failure: { rollback?: Error } = {},
  ): Promise<T> {
    await client.query('BEGIN');
    try {
      const result = await fn(new PostgresExecutor(client, this.#statements, true));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        failure.rollback = rollbackError;
      });
      throw err;
    }
  }

  /** The result, or `undefined` for a statement that cannot match (a value with U+0000). */
  async #query(sql: string, params: readonly unknown[]): Promise<pg.QueryResult | undefined> {
    if (params.some(hasNul)) {
      if (/^\s*INSERT\b/i.test(sql)) throw new TypeError('PostgreSQL text cannot contain U+0000');
      return undefined;
    }
    try {
      return await this.#on.query(this.#statements.config(sql, params));
    } catch (err) {
      if ((err as { code?: unknown }).code !== PLAN_CHANGED) throw mapError(err);
      this.#statements.renew();
      try {
        return await this.#on.query(this.#statements.config(sql, params));
      } catch (retryError) {
        throw mapError(retryError);
      }
    }
  }
}
