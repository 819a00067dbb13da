/**
 * What the SQL store (`sql/`) needs from a database driver: run one statement (for one row, for every
 * row, or for the count of changed rows), run a multi-statement script, run a transaction, and know the
 * few places where the two dialects really differ. Every statement is written once, with `?`
 * placeholders; a driver translates what its database needs (PostgreSQL numbers them `$1 … $n`,
 * SQLite binds booleans as 0/1).
 *
 * @module
 */
import type { Row } from './rows.js';

/**
 * What differs between the dialects, as SQL fragments or flags. Everything else (`RETURNING`,
 * `ON CONFLICT … DO NOTHING / DO UPDATE`, `LIMIT … OFFSET`, `CAST`) is written the same way for both.
 *
 * @example
 * ```ts
 * const sql = `SELECT * FROM roles ORDER BY name ${db.dialect.binary}`;
 * ```
 */
export interface Dialect {
  /** Which migration script applies (`Migration.sqlite` or `Migration.postgres`). */
  readonly name: 'sqlite' | 'postgres';
  /** A collation that orders text by code point, as SQLite does by default (`COLLATE "C"`). */
  readonly binary: string;
  /** The column that orders audit events recorded in the same second (`rowid`, or the `seq` identity). */
  readonly insertionOrder: string;
  /**
   * Whether `WITH x AS (UPDATE … RETURNING …) INSERT …` runs as one statement (PostgreSQL). Where it
   * does not (SQLite), the two statements run in one transaction instead.
   */
  readonly writableCte: boolean;
  /** A one-column (`value`) table of the strings of the JSON array bound to its `?`. */
  readonly jsonTexts: string;
  /**
   * A statement that waits until no other transaction holds the lock named by its `?` and then holds
   * it until its own transaction ends (PostgreSQL: `pg_advisory_xact_lock`); `undefined` where a
   * transaction already excludes every other writer from its start (SQLite's `BEGIN IMMEDIATE`).
   */
  readonly transactionLock: string | undefined;
}

/**
 * One database connection or pool, as the SQL store uses it. Every method is one statement (one round
 * trip on PostgreSQL) except `transaction`. Unique-constraint clashes reject with `StoreConflictError`.
 *
 * @example
 * ```ts
 * const row = await db.one('SELECT * FROM users WHERE id = ?', ['usr_1']);
 * const deleted = await db.run('DELETE FROM users WHERE id = ?', ['usr_1']);
 * ```
 */
export interface Executor {
  readonly dialect: Dialect;
  /** The first row the statement returns, if any. */
  one(sql: string, params?: readonly unknown[]): Promise<Row | undefined>;
  /** Every row the statement returns. */
  many(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Run the statement; resolves to how many rows it inserted, changed or deleted. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Run a script of several statements without parameters (migrations). */
  script(sql: string): Promise<void>;
  /**
   * Run `fn` in a transaction: committed when it resolves, rolled back when it rejects. Statements of
   * `fn` go through the executor it is given; nothing else runs inside the transaction. On that
   * executor `transaction` runs its function inside the same transaction (no nesting).
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
}

/**
 * A unique constraint of the schema and the conflict field (`StoreConflictError.field`) it maps to.
 *
 * @example
 * ```ts
 * const email: UniqueConstraint = { table: 'users', columns: ['email_key'], field: 'user.email' };
 * ```
 */
export interface UniqueConstraint {
  readonly table: string;
  readonly columns: readonly string[];
  readonly field: string;
  /** The primary key (PostgreSQL names it `<table>_pkey`). */
  readonly primary?: true;
  /** A unique index with a name of its own. */
  readonly index?: string;
}

/**
 * Every unique constraint of the schema (migrations `0001`–`0003`), for both drivers' error mapping.
 *
 * @example
 * ```ts
 * UNIQUE_CONSTRAINTS.find((c) => c.field === 'user.email')?.columns; // ['email_key']
 * ```
 */
export const UNIQUE_CONSTRAINTS: readonly UniqueConstraint[] = Object.freeze([
  { table: 'users', columns: ['username_key'], field: 'user.username' },
  { table: 'users', columns: ['email_key'], field: 'user.email' },
  { table: 'users', columns: ['id'], field: 'user.id', primary: true },
  { table: 'applications', columns: ['id'], field: 'application.id', primary: true },
  { table: 'resources', columns: ['indicator'], field: 'resource.indicator' },
  { table: 'resources', columns: ['id'], field: 'resource.id', primary: true },
  { table: 'scopes', columns: ['resource_id', 'name'], field: 'scope.name' },
  { table: 'scopes', columns: ['id'], field: 'scope.id', primary: true },
  { table: 'roles', columns: ['name'], field: 'role.name' },
  { table: 'roles', columns: ['id'], field: 'role.id', primary: true },
  { table: 'signing_keys', columns: ['kid'], field: 'signing_key.kid', primary: true },
  {
    table: 'signing_keys',
    columns: ['status'],
    field: 'signing_key.active',
    index: 'signing_keys_one_active',
  },
  { table: 'subject_tokens', columns: ['id'], field: 'subject_token.id', primary: true },
  { table: 'subject_tokens', columns: ['token_hash'], field: 'subject_token.value' },
  { table: 'personal_access_tokens', columns: ['id'], field: 'personal_access_token.id', primary: true },
  { table: 'personal_access_tokens', columns: ['token_hash'], field: 'personal_access_token.value' },
  { table: 'personal_access_tokens', columns: ['user_id', 'name'], field: 'personal_access_token.name' },
  { table: 'audit_events', columns: ['id'], field: 'audit_event.id', primary: true },
  { table: 'webhook_endpoints', columns: ['id'], field: 'webhook_endpoint.id', primary: true },
] as const satisfies readonly UniqueConstraint[]);

/**
 * The conflict fields keyed the way a driver names a violated constraint.
 *
 * @example
 * ```ts
 * const byColumns = conflictFields((c) => c.columns.map((column) => `${c.table}.${column}`).join(', '));
 * byColumns.get('users.email_key'); // 'user.email'
 * ```
 */
export function conflictFields(name: (constraint: UniqueConstraint) => string): ReadonlyMap<string, string> {
  return new Map(UNIQUE_CONSTRAINTS.map((constraint) => [name(constraint), constraint.field]));
}
