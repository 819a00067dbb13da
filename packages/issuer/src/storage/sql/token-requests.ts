/**
 * One read for a token request: the client's application, the resource, the scopes of it that the
 * application's or the user's roles grant, the open failure window, the subject token or personal
 * access token presented and its user — a single `SELECT` of outer joins on a one-row base, with one
 * row per granted scope (everything else repeats). On PostgreSQL that is one round trip where these
 * lookups took five or six.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import {
  COLUMNS,
  type Row,
  toApplication,
  toPersonalAccessToken,
  toResource,
  toSubjectToken,
  toUser,
} from '../rows.js';
import type { TokenRequestQuery, TokenRequestRecords, TokenRequestStore } from '../store.js';
import { toWindow } from './failure-counters.js';
import { grantsOf } from './roles.js';

/** Table alias, table, and the columns read from it (selected as `<alias>_<column>`). */
const PARTS = [
  ['a', 'applications'],
  ['r', 'resources'],
  ['t', 'subject_tokens'],
  ['p', 'personal_access_tokens'],
  ['u', 'users'],
] as const;

const SELECT = [
  ...PARTS.flatMap(([alias, table]) =>
    COLUMNS[table].map((column) => `${alias}.${column} AS ${alias}_${column}`),
  ),
  'f.count AS f_count',
  'f.ends_at AS f_ends_at',
].join(', ');

const FROM = `FROM (SELECT 1 AS one) q
  LEFT JOIN applications a ON a.id = ?
  LEFT JOIN resources r ON r.indicator = ?
  LEFT JOIN failure_counters f ON f.key = ? AND f.ends_at > ?
  LEFT JOIN subject_tokens t ON t.token_hash = ?
  LEFT JOIN personal_access_tokens p ON p.token_hash = ?
  LEFT JOIN users u ON u.id = coalesce(t.user_id, p.user_id, ?)`;

/** The statement per `scopesOf`: without scopes, or joined with the grants of the application or user. */
function statement(db: Executor, scopesOf: TokenRequestQuery['scopesOf']): string {
  if (scopesOf === undefined) return `SELECT ${SELECT}, NULL AS granted ${FROM}`;
  const [holders, column, holder] =
    scopesOf === 'application'
      ? ['application_roles', 'application_id', 'a']
      : ['user_roles', 'user_id', 'u'];
  return `SELECT ${SELECT}, s.name AS granted ${FROM}
    LEFT JOIN ${grantsOf(holders)} ON h.${column} = ${holder}.id AND s.resource_id = r.id
    ORDER BY s.name ${db.dialect.binary}`;
}

/** The columns of one alias, unprefixed; `undefined` when its outer join matched nothing. */
function part<T>(row: Row | undefined, alias: string, map: (row: Row) => T): T | undefined {
  if (row === undefined || row[`${alias}_id`] == null) return undefined;
  const prefix = `${alias}_`;
  const own: Row = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith(prefix)) own[key.slice(prefix.length)] = value;
  return map(own);
}

/** A value to look up; no stored value holds U+0000, so such a value matches nothing (as `NULL` does). */
const lookup = (value: string | undefined): string | null =>
  value === undefined || value.includes('\0') ? null : value;

/**
 * The {@link TokenRequestStore} on `db`.
 *
 * @example
 * ```ts
 * const tokenRequests = tokenRequestStore(db);
 * const { application, resource, grantedScopes } = await tokenRequests.read({
 *   now, applicationId: 'worker', indicator: 'https://orders.example.com', scopesOf: 'application',
 * });
 * ```
 */
export function tokenRequestStore(db: Executor): TokenRequestStore {
  return {
    read: async (query) => {
      const rows = await db.many(statement(db, query.scopesOf), [
        lookup(query.applicationId),
        lookup(query.indicator),
        lookup(query.failureKey),
        query.now,
        lookup(query.subjectTokenHash),
        lookup(query.personalAccessTokenHash),
        lookup(query.userId),
      ]);
      const first = rows[0];
      const granted = rows.flatMap((row) => (row.granted == null ? [] : [String(row.granted)]));
      const records: TokenRequestRecords = {
        application: part(first, 'a', toApplication),
        resource: part(first, 'r', toResource),
        grantedScopes: [...new Set(granted)],
        failures:
          first?.f_count == null ? undefined : toWindow({ count: first.f_count, ends_at: first.f_ends_at }),
        subjectToken: part(first, 't', toSubjectToken),
        personalAccessToken: part(first, 'p', toPersonalAccessToken),
        user: part(first, 'u', toUser),
      };
      return records;
    },
  };
}
