/**
 * Writes a migration once for both dialects. A migration is one template over the few column types
 * and literals that differ — epoch seconds (SQLite `INTEGER`, PostgreSQL `BIGINT`), flags (`INTEGER`
 * 0/1, `BOOLEAN`) — plus text only one dialect has (`pg(…)`, `sqlite(…)`). The SQL it produces for an
 * applied migration must never change: test/storage/migrations.test.ts pins each shipped migration's
 * text by digest.
 *
 * @module
 */

/** What differs between the dialects inside a migration. */
export interface DialectTerms {
  /** Column type of an epoch-seconds timestamp. */
  readonly time: string;
  /** Column type of a flag. */
  readonly flag: string;
  /** A true flag literal. */
  readonly yes: string;
  /** A false flag literal. */
  readonly no: string;
  /** `text` on PostgreSQL, nothing on SQLite. */
  pg(text: string): string;
  /** `text` on SQLite, nothing on PostgreSQL. */
  sqlite(text: string): string;
}

const SQLITE: DialectTerms = Object.freeze({
  time: 'INTEGER',
  flag: 'INTEGER',
  yes: '1',
  no: '0',
  pg: () => '',
  sqlite: (text: string) => text,
});

const POSTGRES: DialectTerms = Object.freeze({
  time: 'BIGINT',
  flag: 'BOOLEAN',
  yes: 'TRUE',
  no: 'FALSE',
  pg: (text: string) => text,
  sqlite: () => '',
});

/** One migration: a sortable version and the SQL it runs, per dialect. */
export interface Migration {
  readonly version: string;
  /** SQL for SQLite. */
  readonly sqlite: string;
  /** SQL for PostgreSQL. */
  readonly postgres: string;
}

/**
 * The SQL of one template in both dialects.
 *
 * @example
 * ```ts
 * const { sqlite, postgres } = bothDialects((d) => `ALTER TABLE t ADD COLUMN at ${d.time};`);
 * ```
 */
export function bothDialects(write: (terms: DialectTerms) => string): {
  readonly sqlite: string;
  readonly postgres: string;
} {
  return { sqlite: write(SQLITE), postgres: write(POSTGRES) };
}

/**
 * A migration, written once: its version and the template of its SQL.
 *
 * @example
 * ```ts
 * export default defineMigration(
 *   '0009_example',
 *   (d) => `ALTER TABLE applications ADD COLUMN example ${d.flag} NOT NULL DEFAULT ${d.no};`,
 * );
 * ```
 */
export function defineMigration(version: string, write: (terms: DialectTerms) => string): Migration {
  return Object.freeze({ version, ...bothDialects(write) });
}
