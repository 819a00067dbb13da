/**
 * The SQL store: every sub-store written once over an {@link Executor}, and assembled with the parts
 * only a driver can provide (migration locking, the exclusive lock, key-change announcements, closing).
 * `drivers/sqlite.ts` and `drivers/postgres.ts` are the two drivers.
 *
 * @module
 */
import { traceStatements } from '../../tracing/database.js';
import { type ExternalChanges, followConfigChanges } from '../config-changes.js';
import type { Executor } from '../executor.js';
import { observedExecutor, type PoolUsage, registerObservation, type TimingSlot } from '../observation.js';
import type { Store, StoreTables } from '../store.js';
import { applicationStore } from './applications.js';
import { auditEventStore } from './audit-events.js';
import { failureCounterStore } from './failure-counters.js';
import { impersonationTokenStore } from './impersonation-tokens.js';
import { payloadStore } from './payloads.js';
import { personalAccessTokenStore } from './personal-access-tokens.js';
import { resourceStore } from './resources.js';
import { roleStore } from './roles.js';
import { settingStore } from './settings.js';
import { type KeyChanges, signingKeyStore } from './signing-keys.js';
import { subjectTokenStore } from './subject-tokens.js';
import { cachedTokenRequests } from './token-request-cache.js';
import { tokenRequestStore } from './token-requests.js';
import { totpFactorStore } from './totp-factors.js';
import { userStore } from './users.js';
import { webhookStore } from './webhooks.js';

/**
 * What a driver adds to the SQL store.
 *
 * @example
 * ```ts
 * const parts: DriverParts = {
 *   driver: 'sqlite', multiNode: false, keyChanges, migrate: () => applyMigrations(db),
 *   exclusive: (name, fn) => queue(name, fn), close: async () => db.close(),
 * };
 * ```
 */
export interface DriverParts extends Pick<Store, 'driver' | 'multiNode' | 'migrate' | 'exclusive' | 'close'> {
  readonly keyChanges: KeyChanges;
  /** Writes to the database by other processes or instances, as the driver sees them. */
  readonly externalChanges: ExternalChanges;
  /** The connection pool's use now (PostgreSQL), for the issuer's metrics. */
  readonly poolUsage?: (() => PoolUsage) | undefined;
}

/** The executor under each SQL store, for whole-table work (`storage/copy.ts`). */
const EXECUTORS = new WeakMap<Store, Executor>();

/**
 * The executor a store built by {@link createSqlStore} runs on; `undefined` for any other store.
 *
 * @example
 * ```ts
 * const db = executorOf(openSqliteStore(':memory:'));
 * await db?.many('SELECT * FROM users');
 * ```
 */
export function executorOf(store: Store): Executor | undefined {
  return EXECUTORS.get(store);
}

/** The stores of {@link StoreTables} on `db` (the store's executor, or one transaction's). */
function tablesOn(db: Executor): StoreTables {
  return {
    users: userStore(db),
    applications: applicationStore(db),
    resources: resourceStore(db),
    roles: roleStore(db),
    settings: settingStore(db),
    subjectTokens: subjectTokenStore(db),
    impersonationTokens: impersonationTokenStore(db),
    personalAccessTokens: personalAccessTokenStore(db),
    auditEvents: auditEventStore(db),
    webhooks: webhookStore(db),
  };
}

/** Name of the lock {@link Store.transaction} holds (PostgreSQL). */
const TRANSACTION_LOCK = 'store.transaction';

/**
 * A {@link Store} on `db`.
 *
 * @example
 * ```ts
 * const store = createSqlStore(executor, parts);
 * await store.migrate();
 * ```
 */
export function createSqlStore(driverDb: Executor, parts: DriverParts): Store {
  // Timed only once an observer is set (the issuer's metrics, storage/observation.ts); a span per
  // statement inside a traced request (tracing/database.ts) — for both drivers.
  const slot: TimingSlot = { timing: undefined };
  const { db, changes } = followConfigChanges(
    traceStatements(observedExecutor(driverDb, slot)),
    parts.externalChanges,
  );
  const store: Store = {
    driver: parts.driver,
    multiNode: parts.multiNode,
    migrate: () => parts.migrate(),
    exclusive: (name, fn) => parts.exclusive(name, fn),
    transaction: (fn) =>
      db.transaction(async (tx) => {
        const lock = tx.dialect.transactionLock;
        if (lock !== undefined) await tx.one(lock, [TRANSACTION_LOCK]);
        return fn(tablesOn(tx));
      }),
    ping: async () => {
      await db.one('SELECT 1');
    },
    close: () => parts.close(),
    ...tablesOn(db),
    keys: signingKeyStore(db, parts.keyChanges),
    payloads: payloadStore(db),
    failures: failureCounterStore(db),
    tokenRequests: cachedTokenRequests(tokenRequestStore(db), changes),
    totpFactors: totpFactorStore(db),
  };
  EXECUTORS.set(store, db);
  registerObservation(store, slot, parts.driver === 'postgres' ? 'postgresql' : 'sqlite', parts.poolUsage);
  return store;
}
