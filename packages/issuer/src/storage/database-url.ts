/**
 * What a `database` setting is, as a string: a PostgreSQL URL or not, and how to print it without its
 * password. A leaf module: the drivers, driver selection and the CLI read it.
 *
 * @module
 */

/**
 * Whether `database` names a PostgreSQL database (`postgres://` or `postgresql://`).
 *
 * @example
 * ```ts
 * isPostgresUrl('postgresql://db/gatehouse'); // true
 * isPostgresUrl('./.data/issuer.sqlite'); // false
 * ```
 */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(database);
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
