/**
 * Key changes on PostgreSQL, shared by every process on the database: a change takes a
 * transaction-scoped advisory lock first (so changes are serialized) and sends `NOTIFY` (delivered on
 * commit); a store that `watch`es keys hears them on its notification connection
 * (`postgres-notifications.ts`), and re-reads whenever that connection is (again) live.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import type { KeyChanges } from '../sql/signing-keys.js';
import { LOCK_KEY } from './postgres-executor.js';
import { CHANNELS, type PgNotifications } from './postgres-notifications.js';

/**
 * Key-change announcements of one store.
 *
 * @example
 * ```ts
 * const keyChanges = new KeyNotifications(new PgNotifications(url, (err) => log.warn(err.message)));
 * const unwatch = keyChanges.watch(() => reloadKeys());
 * ```
 */
export class KeyNotifications implements KeyChanges {
  readonly #notifications: PgNotifications;

  constructor(notifications: PgNotifications) {
    this.#notifications = notifications;
  }

  async lock(tx: Executor): Promise<void> {
    await tx.one(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, ['keys']);
  }

  async announce(tx: Executor): Promise<void> {
    await tx.one(`SELECT pg_notify('${CHANNELS.keys}', coalesce(current_schema(), ''))`);
  }

  watch(listener: () => void): () => void {
    return this.#notifications.watch(CHANNELS.keys, listener);
  }
}
