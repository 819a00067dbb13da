/**
 * The statements every entity table shares (users, applications, resources, roles, tokens): insert a
 * row, get one by id or by a condition, list a page, update the given columns, delete by id. SQL text
 * is built from fixed table and column names only; every value is a parameter.
 *
 * @module
 */
import type { Columns } from '../columns.js';
import type { Executor } from '../executor.js';
import { num, type Row } from '../rows.js';
import type { Page, PageRequest } from '../store.js';
import type { EntityStore } from '../tables/entities.js';

/**
 * An entity table mapped to its records.
 *
 * @example
 * ```ts
 * const users = table(db, 'users', toUser);
 * const alice = await users.find('username_key = ?', ['alice']);
 * ```
 */
export interface Table<T> {
  /**
   * Insert one row (`undefined` columns are left out) created at `now` (`created_at`, and
   * `updated_at` where the table has it); resolves to the stored record.
   */
  insert(columns: Columns, now: number): Promise<T>;
  get(id: string): Promise<T | undefined>;
  /** The first row matching `where` (which may end with an `ORDER BY`). */
  find(where: string, params: readonly unknown[]): Promise<T | undefined>;
  /** Every row matching `where` (which may end with an `ORDER BY`). */
  all(where: string, params: readonly unknown[]): Promise<T[]>;
  /** A page, oldest first (ties by id), of every row or of those matching `filter`. */
  list(
    page: PageRequest,
    filter?: { readonly where: string; readonly params: readonly unknown[] },
  ): Promise<Page<T>>;
  /** Set the defined `columns` and `updated_at` of row `id`; `undefined` when there is no such row. */
  update(id: string, columns: Columns, now: number): Promise<T | undefined>;
  /** Delete rows matching `where`; resolves to whether any existed. */
  deleteWhere(where: string, params: readonly unknown[]): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}

const defined = (columns: Columns) => Object.entries(columns).filter(([, value]) => value !== undefined);

/**
 * The {@link Table} of `name`, its rows mapped with `map`; `updatedAt` when it has that column.
 *
 * @example
 * ```ts
 * const roles = table(db, 'roles', toRole, { updatedAt: true });
 * await roles.update('rol_1', { description: 'Reads orders' }, now);
 * ```
 */
export function table<T>(
  db: Executor,
  name: string,
  map: (row: Row) => T,
  options: { readonly updatedAt?: boolean } = {},
): Table<T> {
  const mapped = (row: Row | undefined) => (row === undefined ? undefined : map(row));
  const find = async (where: string, params: readonly unknown[]) =>
    mapped(await db.one(`SELECT * FROM ${name} WHERE ${where} LIMIT 1`, params));
  const deleteWhere = async (where: string, params: readonly unknown[]) =>
    (await db.run(`DELETE FROM ${name} WHERE ${where}`, params)) > 0;
  return {
    insert: async (columns, now) => {
      const stamps = options.updatedAt ? { created_at: now, updated_at: now } : { created_at: now };
      const entries = defined({ ...columns, ...stamps });
      const names = entries.map(([column]) => column).join(', ');
      const marks = entries.map(() => '?').join(', ');
      const row = await db.one(
        `INSERT INTO ${name} (${names}) VALUES (${marks}) RETURNING *`,
        entries.map(([, value]) => value),
      );
      return map(row!);
    },
    get: (id) => find('id = ?', [id]),
    find,
    all: async (where, params) => (await db.many(`SELECT * FROM ${name} WHERE ${where}`, params)).map(map),
    list: async (page, filter) => {
      const where = filter === undefined ? '' : ` WHERE ${filter.where}`;
      const params = filter?.params ?? [];
      const total = num((await db.one(`SELECT COUNT(*) AS n FROM ${name}${where}`, params))!.n);
      const rows = await db.many(
        `SELECT * FROM ${name}${where} ORDER BY created_at, id ${db.dialect.binary} LIMIT ? OFFSET ?`,
        [...params, page.pageSize, (page.page - 1) * page.pageSize],
      );
      return { items: rows.map(map), page: page.page, pageSize: page.pageSize, total };
    },
    update: async (id, columns, now) => {
      const entries = [...defined(columns), ['updated_at', now] as const];
      const sets = entries.map(([column]) => `${column} = ?`).join(', ');
      return mapped(
        await db.one(`UPDATE ${name} SET ${sets} WHERE id = ? RETURNING *`, [
          ...entries.map(([, value]) => value),
          id,
        ]),
      );
    },
    deleteWhere,
    delete: (id) => deleteWhere('id = ?', [id]),
  };
}

/**
 * The methods every entity store has, from its table and how its records become columns.
 *
 * @example
 * ```ts
 * const roles = table(db, 'roles', toRole, { updatedAt: true });
 * const store = { ...entity(roles, newRoleColumns, (patch) => ({ name: patch.name })), findByName };
 * ```
 */
export function entity<T, New, Patch>(
  rows: Table<T>,
  created: (record: New, now: number) => Columns,
  changed: (patch: Patch, now: number) => Columns,
): EntityStore<T, New, Patch> {
  return {
    get: rows.get,
    list: rows.list,
    create: (record, now) => rows.insert(created(record, now), now),
    update: (id, patch, now) => rows.update(id, changed(patch, now), now),
    delete: rows.delete,
  };
}
