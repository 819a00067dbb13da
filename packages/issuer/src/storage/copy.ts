/**
 * Copying everything an issuer keeps from one SQL store into another (SQLite → PostgreSQL for
 * `gatehouse-issuer copy`): every table of the schema but `schema_migrations`, parents before children,
 * rows as they are stored (secret digests, private signing keys, payloads). Both stores are migrated
 * first. The source is read in one transaction (a consistent snapshot) and the target written in one
 * transaction, under the target's `start` lock (an issuer starting meanwhile waits, then finds the
 * data); each table's row count is compared at the end, and any difference rolls everything back.
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.js';
import { CopyError } from '../errors.js';
import type { Executor } from './executor.js';
import { executorOf } from './sql/index.js';
import type { Store } from './store.js';

/**
 * Every table the issuer keeps data in, parents before children (foreign keys), with the columns rows
 * are read in order of (`insertion`: audit events in the order they were recorded, so PostgreSQL's
 * `seq` follows the original order).
 *
 * @example
 * ```ts
 * COPIED_TABLES.map((table) => table.name); // ['users', 'applications', …]
 * ```
 */
export const COPIED_TABLES: ReadonlyArray<{ readonly name: string; readonly order: string }> = Object.freeze([
  { name: 'users', order: 'id' },
  { name: 'applications', order: 'id' },
  { name: 'resources', order: 'id' },
  { name: 'scopes', order: 'id' },
  { name: 'roles', order: 'id' },
  { name: 'role_scopes', order: 'role_id, scope_id' },
  { name: 'user_roles', order: 'user_id, role_id' },
  { name: 'application_roles', order: 'application_id, role_id' },
  { name: 'signing_keys', order: 'created_at, kid' },
  { name: 'settings', order: 'key' },
  { name: 'personal_access_tokens', order: 'id' },
  { name: 'subject_tokens', order: 'id' },
  { name: 'impersonation_tokens', order: 'jti' },
  { name: 'audit_events', order: 'insertion' },
  { name: 'oidc_payloads', order: 'model, id' },
  { name: 'failure_counters', order: 'key' },
  { name: 'webhook_endpoints', order: 'id' },
  { name: 'webhook_subscriptions', order: 'event_type, endpoint_id' },
  { name: 'webhook_deliveries', order: 'event_id, endpoint_id' },
  { name: 'totp_factors', order: 'user_id' },
]);

/**
 * Options of {@link copyStore}.
 *
 * @example
 * ```ts
 * const options: CopyOptions = { force: false, onTable: (table, rows) => console.error(`${table}: ${rows}`) };
 * ```
 */
export interface CopyOptions {
  /** Replace what the target holds (its rows are deleted in the same transaction). Default `false`: refuse. */
  readonly force?: boolean | undefined;
  /** Called after each table is written, with its row count. */
  readonly onTable?: ((table: string, rows: number) => void) | undefined;
}

/**
 * What was copied: rows per table (checked equal in source and target), in copy order.
 *
 * @example
 * ```ts
 * const { tables, total }: CopyReport = await copyStore(source, target);
 * ```
 */
export interface CopyReport {
  readonly tables: ReadonlyArray<{ readonly name: string; readonly rows: number }>;
  readonly total: number;
  /** Rows the target held before (deleted with `force`). */
  readonly replaced: number;
}

const count = async (db: Executor, table: string) =>
  Number((await db.one(`SELECT COUNT(*) AS n FROM ${table}`))!.n);

function sqlExecutor(store: Store, role: string): Executor {
  const db = executorOf(store);
  if (db === undefined) throw new TypeError(`the ${role} must be a store opened by openStore()`);
  return db;
}

async function insertAll(tx: Executor, table: string, rows: readonly Record<string, unknown>[]) {
  const columns = Object.keys(rows[0]!);
  const perInsert = Math.max(1, Math.floor(DEFAULTS.copy.maxValuesPerInsert / columns.length));
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += perInsert) {
    const batch = rows.slice(start, start + perInsert);
    await tx.run(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${batch.map(() => tuple).join(', ')}`,
      batch.flatMap((row) => columns.map((column) => row[column])),
    );
  }
}

/**
 * Copy every row of `source` into `target` (see the module description). Rejects with a
 * {@link CopyError} when the target is not empty and `force` is not set, or when a count differs
 * (nothing is written then).
 *
 * @example
 * ```ts
 * import { copyStore, openStore } from '@gatehouse/issuer';
 *
 * const source = openStore('./.data/issuer.sqlite');
 * const target = openStore(process.env.DATABASE_URL!);
 * const { total } = await copyStore(source, target, { onTable: (t, n) => console.error(`${t}: ${n} rows`) });
 * await Promise.all([source.close(), target.close()]);
 * ```
 */
export async function copyStore(
  source: Store,
  target: Store,
  options: CopyOptions = {},
): Promise<CopyReport> {
  const from = sqlExecutor(source, 'source');
  const to = sqlExecutor(target, 'target');
  await source.migrate();
  await target.migrate();
  return target.exclusive('start', () =>
    from.transaction((read) =>
      to.transaction(async (write) => {
        let replaced = 0;
        for (const { name } of COPIED_TABLES) replaced += await count(write, name);
        if (replaced > 0 && options.force !== true)
          throw new CopyError(
            'target_not_empty',
            `the target database already holds ${replaced} rows (an issuer has run on it): nothing was copied; pass --force to replace them`,
          );
        for (const { name } of [...COPIED_TABLES].reverse()) await write.run(`DELETE FROM ${name}`);
        const tables: Array<{ name: string; rows: number }> = [];
        for (const { name, order } of COPIED_TABLES) {
          const by = order === 'insertion' ? read.dialect.insertionOrder : order;
          // PostgreSQL's `seq` is generated by the target, in insertion order.
          const rows = (await read.many(`SELECT * FROM ${name} ORDER BY ${by}`)).map(
            ({ seq: _, ...row }) => row,
          );
          if (rows.length > 0) await insertAll(write, name, rows);
          tables.push({ name, rows: rows.length });
          options.onTable?.(name, rows.length);
        }
        for (const { name, rows } of tables) {
          const copied = await count(write, name);
          if (copied !== rows)
            throw new CopyError(
              'count_mismatch',
              `${name}: ${rows} rows in the source but ${copied} in the target; the copy was rolled back`,
            );
        }
        return { tables, total: tables.reduce((sum, table) => sum + table.rows, 0), replaced };
      }),
    ),
  );
}
