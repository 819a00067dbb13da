/**
 * One read for a token request: the client's application, the resource, the scopes of it that the
 * application's or the user's roles grant, the open failure window, the subject token or personal
 * access token presented and its user — a single `SELECT` of outer joins on a one-row base, with one
 * row per granted scope (everything else repeats). Only the parts a query asks for are joined and
 * selected, so the statement has a handful of shapes, each prepared once. On PostgreSQL that is one
 * round trip where these lookups took three (client credentials) to six (token exchange).
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

/** A value to look up; no stored value holds U+0000, so such a value matches nothing (as `NULL` does). */
const lookup = (value: string | undefined): string | null =>
  value === undefined || value.includes('\0') ? null : value;

/** One outer join of the read: its alias, the columns it selects, its join and the join's parameters. */
interface Part {
  readonly alias: string;
  readonly columns: readonly string[];
  readonly join: string;
  readonly params: readonly unknown[];
}

const part = (alias: string, columns: readonly string[], join: string, params: readonly unknown[]): Part => ({
  alias,
  columns,
  join,
  params,
});

/** The statement and parameters of `query`: only the parts it asks for are joined and selected. */
function statement(db: Executor, query: TokenRequestQuery): { sql: string; params: unknown[] } {
  const parts: Part[] = [];
  const { applicationId, indicator, failureKey, subjectTokenHash, personalAccessTokenHash, userId } = query;
  if (applicationId !== undefined)
    parts.push(part('a', COLUMNS.applications, 'applications a ON a.id = ?', [lookup(applicationId)]));
  if (indicator !== undefined)
    parts.push(part('r', COLUMNS.resources, 'resources r ON r.indicator = ?', [lookup(indicator)]));
  if (failureKey !== undefined)
    parts.push(
      part('f', ['key', 'count', 'ends_at'], 'failure_counters f ON f.key = ? AND f.ends_at > ?', [
        lookup(failureKey),
        query.now,
      ]),
    );
  if (subjectTokenHash !== undefined)
    parts.push(
      part('t', COLUMNS.subject_tokens, 'subject_tokens t ON t.token_hash = ?', [lookup(subjectTokenHash)]),
    );
  if (personalAccessTokenHash !== undefined)
    parts.push(
      part('p', COLUMNS.personal_access_tokens, 'personal_access_tokens p ON p.token_hash = ?', [
        lookup(personalAccessTokenHash),
      ]),
    );
  // The user: the owner of the token found, else `userId`.
  const owners = [
    ...(subjectTokenHash === undefined ? [] : ['t.user_id']),
    ...(personalAccessTokenHash === undefined ? [] : ['p.user_id']),
    ...(userId === undefined ? [] : ['?']),
  ];
  if (owners.length > 0) {
    const owner = owners.length === 1 ? owners[0] : `coalesce(${owners.join(', ')})`;
    parts.push(
      part('u', COLUMNS.users, `users u ON u.id = ${owner}`, userId === undefined ? [] : [lookup(userId)]),
    );
  }
  const holder = query.scopesOf === 'application' ? 'a' : 'u';
  const grants =
    query.scopesOf !== undefined && indicator !== undefined && parts.some((p) => p.alias === holder)
      ? `LEFT JOIN ${grantsOf(holder === 'a' ? 'application_roles' : 'user_roles')}
           ON h.${holder === 'a' ? 'application_id' : 'user_id'} = ${holder}.id AND s.resource_id = r.id
         ORDER BY s.name ${db.dialect.binary}`
      : '';
  const select = parts.flatMap(({ alias, columns }) =>
    columns.map((column) => `${alias}.${column} AS ${alias}_${column}`),
  );
  return {
    sql: `SELECT ${[...select, grants === '' ? 'NULL AS granted' : 's.name AS granted'].join(', ')}
      FROM (SELECT 1 AS one) q ${parts.map(({ join }) => `LEFT JOIN ${join}`).join(' ')} ${grants}`,
    params: parts.flatMap(({ params }) => params),
  };
}

/** The columns of one alias, unprefixed; `undefined` when it was not read or its outer join matched nothing. */
function found<T>(row: Row | undefined, alias: string, key: string, map: (row: Row) => T): T | undefined {
  if (row === undefined || row[`${alias}_${key}`] == null) return undefined;
  const prefix = `${alias}_`;
  const own: Row = {};
  for (const [key, value] of Object.entries(row))
    if (key.startsWith(prefix)) own[key.slice(prefix.length)] = value;
  return map(own);
}

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
      const { sql, params } = statement(db, query);
      const rows = await db.many(sql, params);
      const first = rows[0];
      const granted = rows.flatMap((row) => (row.granted == null ? [] : [String(row.granted)]));
      const records: TokenRequestRecords = {
        application: found(first, 'a', 'id', toApplication),
        resource: found(first, 'r', 'id', toResource),
        grantedScopes: [...new Set(granted)],
        failures: found(first, 'f', 'key', toWindow),
        subjectToken: found(first, 't', 'id', toSubjectToken),
        personalAccessToken: found(first, 'p', 'id', toPersonalAccessToken),
        user: found(first, 'u', 'id', toUser),
      };
      return records;
    },
  };
}
