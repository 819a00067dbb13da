/**
 * The last reads of client-credentials token requests, kept per instance: a query of only an
 * application, a resource and the scopes the application's roles grant (no user, token or failure
 * window) is answered from memory while the configuration has not changed since it was read
 * (`../config-changes.ts`), for at most `DEFAULTS.tokenRequestCache.maxAge`. Such a request then
 * makes no round trip to the database, and on SQLite no statement at all.
 *
 * Every other read (a token exchange, a user's scopes) takes its application and resource from the
 * kept reads too and reads only the rest — the failure window, the token, the user, the scopes the
 * user's roles grant on that resource — so its statement joins two tables fewer and returns about half
 * the columns.
 *
 * A read that overlapped a change is returned but not kept. On PostgreSQL another instance's change
 * reaches this one as a notification, within the time it takes to arrive; while the notification
 * connection is down, every read goes to the database whole.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../../config/defaults.js';
import type { ConfigChanges } from '../config-changes.js';
import type { TokenRequestQuery, TokenRequestRecords, TokenRequestStore } from '../tables/token-requests.js';

interface Entry {
  readonly version: string;
  readonly until: number;
  readonly records: TokenRequestRecords;
}

/** Whether `query` reads only configuration: an application, a resource, the application's scopes. */
const configOnly = (query: TokenRequestQuery): boolean =>
  query.failureKey === undefined &&
  query.subjectTokenHash === undefined &&
  query.personalAccessTokenHash === undefined &&
  query.userId === undefined &&
  query.scopesOf !== 'user';

/** The cache key of a configuration-only query. */
const keyOf = (query: TokenRequestQuery): string =>
  `${query.applicationId ?? ''}\u0000${query.indicator ?? ''}\u0000${query.scopesOf ?? ''}\u0000${query.resourceId ?? ''}`;

/**
 * `store`, answering client-credentials reads from memory while the configuration is unchanged, and
 * the application and resource of every other read.
 *
 * @example
 * ```ts
 * const tokenRequests = cachedTokenRequests(tokenRequestStore(db), changes);
 * await tokenRequests.read({ now, applicationId: 'worker', indicator, scopesOf: 'application' }); // one statement
 * await tokenRequests.read({ now, applicationId: 'worker', indicator, scopesOf: 'application' }); // none
 * ```
 */
export function cachedTokenRequests(
  store: TokenRequestStore,
  changes: ConfigChanges,
  {
    maxEntries,
    maxAge,
  }: { readonly maxEntries: number; readonly maxAge: number } = DEFAULTS.tokenRequestCache,
): TokenRequestStore {
  const entries = new LRUCache<string, Entry>({ max: maxEntries });
  const kept = async (query: TokenRequestQuery): Promise<TokenRequestRecords> => {
    const key = keyOf(query);
    const before = changes.version();
    const now = Date.now();
    const entry = entries.get(key);
    if (before !== undefined && entry !== undefined && entry.version === before && now < entry.until)
      return entry.records;
    const records = await store.read(query);
    // Kept only when no change happened while it was read (a change then may not be in it).
    if (before !== undefined && changes.version() === before)
      entries.set(key, { version: before, until: now + maxAge, records: freeze(records) });
    return records;
  };
  return {
    read: async (query) => {
      if (configOnly(query)) return kept(query);
      // The application's scopes with a user's token: no such read is made; read it whole.
      const split =
        changes.version() !== undefined &&
        query.scopesOf !== 'application' &&
        (query.applicationId !== undefined || query.indicator !== undefined);
      if (!split) return store.read(query);
      const { applicationId, indicator } = query;
      const config = await kept({ now: query.now, applicationId, indicator });
      const rest = await store.read({
        ...query,
        applicationId: undefined,
        indicator: undefined,
        resourceId: config.resource?.id,
      });
      return { ...rest, application: config.application, resource: config.resource };
    },
  };
}

/** The records, shared by the requests that use them, made read-only. */
function freeze(records: TokenRequestRecords): TokenRequestRecords {
  for (const value of Object.values(records))
    if (typeof value === 'object' && value !== null) Object.freeze(value);
  return Object.freeze(records);
}
