/**
 * When the configuration a token request reads — applications, resources, scopes, roles and the links
 * between them — may have changed, so an instance can keep its last read of it
 * (`sql/token-request-cache.ts`). Two sources:
 *
 * - this store's own writes: every statement that inserts into, updates or deletes from one of those
 *   tables (and every migration script) counts one change when it has run, and once more when its
 *   transaction has ended — a read on another connection during the transaction still saw the old rows;
 * - writes by anyone else, as the driver sees them: another process on the same SQLite file
 *   (`PRAGMA data_version`), another instance on PostgreSQL (a statement trigger's `NOTIFY`, migration
 *   0009, heard on the instance's LISTEN connection; while that connection is down nothing is kept).
 *
 * @module
 */
import type { Executor } from './executor.js';

/** The tables whose rows a cached token-request read is made of. */
export const CONFIG_TABLES = Object.freeze([
  'applications',
  'resources',
  'scopes',
  'roles',
  'role_scopes',
  'application_roles',
  'user_roles',
] as const);

const WRITES = new RegExp(
  `\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE(?:\\s+TABLE)?)\\s+(?:ONLY\\s+)?(?:${CONFIG_TABLES.join('|')})\\b`,
  'i',
);

/** Statements seen so far and whether each writes a configuration table (the store's are a bounded set). */
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 2_000;

/**
 * Whether `sql` writes a configuration table.
 *
 * @example
 * ```ts
 * writesConfig('UPDATE applications SET name = ? WHERE id = ?'); // true
 * writesConfig('SELECT * FROM applications'); // false
 * ```
 */
export function writesConfig(sql: string): boolean {
  let verdict = verdicts.get(sql);
  if (verdict === undefined) {
    verdict = WRITES.test(sql);
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(sql, verdict);
  }
  return verdict;
}

/**
 * What a driver knows of writes made by others.
 *
 * @example
 * ```ts
 * const external: ExternalChanges = { stamp: () => dataVersion() };
 * ```
 */
export interface ExternalChanges {
  /**
   * A value that changes whenever another process or instance may have changed the database, or
   * `undefined` while that cannot be known (then no read is kept).
   */
  stamp(): number | undefined;
}

/**
 * A point in the configuration's history: equal versions mean no change in between.
 *
 * @example
 * ```ts
 * const before = changes.version();
 * const records = await read();
 * if (before !== undefined && before === changes.version()) keep(records, before);
 * ```
 */
export interface ConfigChanges {
  /** The version now, or `undefined` when changes cannot be followed now. */
  version(): string | undefined;
}

/**
 * Follow the configuration's changes: `db` wrapped so that its writes count, and the version.
 *
 * @example
 * ```ts
 * const { db: counted, changes } = followConfigChanges(db, { stamp: () => 0 });
 * await counted.run('DELETE FROM applications WHERE id = ?', ['app_1']);
 * changes.version(); // differs from before the delete
 * ```
 */
export function followConfigChanges(
  db: Executor,
  external: ExternalChanges,
): { db: Executor; changes: ConfigChanges } {
  let local = 0;
  const changed = () => {
    local++;
  };
  return {
    db: counting(db, changed),
    changes: {
      version: () => {
        const stamp = external.stamp();
        return stamp === undefined ? undefined : `${local}:${stamp}`;
      },
    },
  };
}

/** `db`, counting each configuration write (and each transaction that made one, once it has ended). */
function counting(db: Executor, changed: () => void): Executor {
  const after = <T>(sql: string, result: Promise<T>): Promise<T> =>
    writesConfig(sql) ? result.finally(changed) : result;
  return {
    dialect: db.dialect,
    one: (sql, params) => after(sql, db.one(sql, params)),
    many: (sql, params) => after(sql, db.many(sql, params)),
    run: (sql, params) => after(sql, db.run(sql, params)),
    script: (sql) => db.script(sql).finally(changed),
    transaction: (fn) => {
      let wrote = false;
      const mark = () => {
        wrote = true;
        changed();
      };
      return db
        .transaction((tx) => fn(counting(tx, mark)))
        .finally(() => {
          if (wrote) changed();
        });
    },
  };
}
