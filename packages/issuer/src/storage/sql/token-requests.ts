/**
 * One read for a token request: the client's application, the resource, the scopes of it that the
 * application's or the user's roles grant, the open failure window, the subject token or personal
 * access token presented and its user — a single `SELECT` of outer joins on a one-row base, returning
 * one row; the granted scopes come as one space-separated value of a correlated subquery (scope tokens
 * hold no space, RFC 6749 §3.3). Only the parts a query asks for are joined and selected, so the
 * statement has a handful of shapes, each prepared once. On PostgreSQL that is one round trip where
 * these lookups took three (client credentials) to six (token exchange).
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
import type { TokenRequestQuery, TokenRequestRecords, TokenRequestStore } from '../tables/token-requests.js';
import { toWindow } from './failure-counters.js';

/** A value to look up; no stored value holds U+0000, so such a value matches nothing (as `NULL` does). */
const lookup = (value: string | undefined): string | null =>
  value === undefined || value.includes('\0') ? null : value;

/** The parts a read may join: alias, the columns it selects (as `<alias>_<column>`), the join. */
const PARTS = {
  a: { columns: COLUMNS.applications, join: 'applications a ON a.id = ?' },
  r: { columns: COLUMNS.resources, join: 'resources r ON r.indicator = ?' },
  f: { columns: ['key', 'count', 'ends_at'], join: 'failure_counters f ON f.key = ? AND f.ends_at > ?' },
  t: { columns: COLUMNS.subject_tokens, join: 'subject_tokens t ON t.token_hash = ?' },
  p: { columns: COLUMNS.personal_access_tokens, join: 'personal_access_tokens p ON p.token_hash = ?' },
  u: { columns: COLUMNS.users, join: 'users u ON u.id = ' },
} as const satisfies Record<string, { columns: readonly string[]; join: string }>;
type Alias = keyof typeof PARTS;
/** Per part: each selected name and its column. */
const names = (alias: Alias) =>
  PARTS[alias].columns.map((column): readonly [name: string, column: string] => [
    `${alias}_${column}`,
    column,
  ]);
const NAMES: Record<Alias, ReadonlyArray<readonly [name: string, column: string]>> = {
  a: names('a'),
  r: names('r'),
  f: names('f'),
  t: names('t'),
  p: names('p'),
  u: names('u'),
};

/**
 * Whether `query` reads granted scopes, and of which resource: the one joined (`r`), the one given by
 * id (`id`, a parameter of the select list), or none (`undefined`).
 */
function scopesOf(query: TokenRequestQuery, aliases: readonly Alias[]): 'r' | 'id' | undefined {
  if (query.scopesOf === undefined || !aliases.includes(query.scopesOf === 'application' ? 'a' : 'u'))
    return undefined;
  if (aliases.includes('r')) return 'r';
  return query.resourceId === undefined ? undefined : 'id';
}

/** The statement of each shape of query (which parts, whose scopes), built once. */
const statements = new Map<string, string>();

/**
 * The statement of `query`: only the parts it asks for are joined and selected. The user is the
 * owner of the token found, else `userId`; the scopes are read when the holder and the resource (joined,
 * or given by id) are.
 */
function statement(db: Executor, query: TokenRequestQuery, aliases: readonly Alias[]): string {
  const scoped = scopesOf(query, aliases);
  const shape = `${db.dialect.name} ${aliases.join('')} ${query.userId === undefined ? '' : 'id'} ${query.scopesOf} ${scoped}`;
  let sql = statements.get(shape);
  if (sql !== undefined) return sql;
  const owners = [
    ...(aliases.includes('t') ? ['t.user_id'] : []),
    ...(aliases.includes('p') ? ['p.user_id'] : []),
    ...(query.userId === undefined ? [] : ['?']),
  ];
  const joins = aliases.map((alias) =>
    alias !== 'u'
      ? PARTS[alias].join
      : `${PARTS.u.join}${owners.length === 1 ? owners[0] : `coalesce(${owners.join(', ')})`}`,
  );
  const holder = query.scopesOf === 'application' ? 'a' : 'u';
  const select = aliases.flatMap((alias) =>
    NAMES[alias].map(([name, column]) => `${alias}.${column} AS ${name}`),
  );
  if (scoped !== undefined) {
    // The resource's scopes (its (resource_id, name) index) that one of the holder's roles grants, as
    // one value: a correlated EXISTS over the join tables' primary keys. Joined as rows instead, the
    // scopes made PostgreSQL's generic plan scan and hash the whole scopes table on every request, and
    // a parenthesised join of the three tables made SQLite build an automatic index and a temporary
    // table. `string_agg` is in both (SQLite ≥ 3.44; node:sqlite has shipped 3.46 or newer from the start).
    const [holders, column] =
      holder === 'a' ? ['application_roles', 'application_id'] : ['user_roles', 'user_id'];
    select.push(`(SELECT string_agg(s.name, ' ') FROM scopes s WHERE s.resource_id = ${scoped === 'id' ? '?' : 'r.id'} AND EXISTS (
      SELECT 1 FROM ${holders} h JOIN role_scopes rs ON rs.role_id = h.role_id
      WHERE h.${column} = ${holder}.id AND rs.scope_id = s.id)) AS granted`);
  } else select.push('NULL AS granted');
  sql = `SELECT ${select.join(', ')}
    FROM (SELECT 1 AS one) q ${joins.map((join) => `LEFT JOIN ${join}`).join(' ')}`;
  statements.set(shape, sql);
  return sql;
}

/** The parts `query` asks for, in join order, and the parameters of their joins. */
function partsOf(query: TokenRequestQuery): { aliases: Alias[]; params: unknown[] } {
  const aliases: Alias[] = [];
  const params: unknown[] = [];
  const add = (alias: Alias, ...values: unknown[]) => {
    aliases.push(alias);
    params.push(...values);
  };
  if (query.applicationId !== undefined) add('a', lookup(query.applicationId));
  if (query.indicator !== undefined) add('r', lookup(query.indicator));
  if (query.failureKey !== undefined) add('f', lookup(query.failureKey), query.now);
  if (query.subjectTokenHash !== undefined) add('t', lookup(query.subjectTokenHash));
  if (query.personalAccessTokenHash !== undefined) add('p', lookup(query.personalAccessTokenHash));
  if (query.userId !== undefined) add('u', lookup(query.userId));
  else if (aliases.includes('t') || aliases.includes('p')) add('u');
  // The select list's resource id comes before the joins' parameters.
  if (scopesOf(query, aliases) === 'id') params.unshift(query.resourceId);
  return { aliases, params };
}

/** The columns of one part, unprefixed and mapped; `undefined` when its outer join matched nothing. */
function found<T>(row: Row | undefined, alias: Alias, map: (row: Row) => T): T | undefined {
  const names = NAMES[alias];
  if (row === undefined || row[names[0]![0]] == null) return undefined;
  const own: Row = {};
  for (const [name, column] of names) own[column] = row[name];
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
      const { aliases, params } = partsOf(query);
      const first = await db.one(statement(db, query, aliases), params);
      const granted = first?.granted == null ? [] : String(first.granted).split(' ');
      const records: TokenRequestRecords = {
        application: aliases.includes('a') ? found(first, 'a', toApplication) : undefined,
        resource: aliases.includes('r') ? found(first, 'r', toResource) : undefined,
        grantedScopes: granted.sort(), // unique per resource; scope tokens are ASCII (RFC 6749 3.3): code-unit order is byte order
        failures: aliases.includes('f') ? found(first, 'f', toWindow) : undefined,
        subjectToken: aliases.includes('t') ? found(first, 't', toSubjectToken) : undefined,
        personalAccessToken: aliases.includes('p') ? found(first, 'p', toPersonalAccessToken) : undefined,
        user: aliases.includes('u') ? found(first, 'u', toUser) : undefined,
      };
      return records;
    },
  };
}
