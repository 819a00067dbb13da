/**
 * The last reads of client-credentials token requests, kept per instance: a query of only an
 * application, a resource and the scopes the application's roles grant (no user, token or failure
 * window) is answered from memory while the configuration has not changed since it was read
 * (`../config-changes.ts`), for at most `DEFAULTS.tokenRequestCache.maxAge`. Such a request then
 * makes no round trip to the database, and on SQLite no statement at all.
 *
 * A read that overlapped a change is returned but not kept. On PostgreSQL another instance's change
 * reaches this one as a notification, within the time it takes to arrive; while the notification
 * connection is down, every read goes to the database.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../../config/defaults.js';
import type { ConfigChanges } from '../config-changes.js';
import type { TokenRequestQuery, TokenRequestRecords, TokenRequestStore } from '../store.js';

interface Entry {
  readonly version: string;
  readonly until: number;
  readonly records: TokenRequestRecords;
}

/** The cache key of `query`, or `undefined` when its answer is not kept. */
function keyOf(query: TokenRequestQuery): string | undefined {
  if (
    query.failureKey !== undefined ||
    query.subjectTokenHash !== undefined ||
    query.personalAccessTokenHash !== undefined ||
    query.userId !== undefined ||
    query.scopesOf === 'user'
  )
    return undefined;
  return `${query.applicationId ?? ''}\u0000${query.indicator ?? ''}\u0000${query.scopesOf ?? ''}`;
}

/**
 * `store`, answering client-credentials reads from memory while the configuration is unchanged.
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
  return {
    read: async (query) => {
      const key = keyOf(query);
      if (key === undefined) return store.read(query);
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
    },
  };
}

/** The records, shared by the requests that use them, made read-only. */
function freeze(records: TokenRequestRecords): TokenRequestRecords {
  for (const value of Object.values(records))
    if (typeof value === 'object' && value !== null) Object.freeze(value);
  return Object.freeze(records);
}
