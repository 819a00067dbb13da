/**
 * The probes of an instance: `/health/live` (the process is up and serving: always `200`) and
 * `/health/ready` (`200` only when this instance should get traffic: the database answers a cheap read
 * within `DEFAULTS.health.databaseTimeout`, its migrations are the ones this version knows, signing
 * keys are loaded, and the instance is not draining for a shutdown). The database read is shared by
 * concurrent probes and its result reused for `DEFAULTS.health.cacheFor`, so a probe every second from
 * several balancers costs at most one query per second. A failed check is named in the answer, never
 * explained with an error message, a stack or a setting.
 *
 * @module
 */
import type { Logger } from 'pino';
import { DEFAULTS } from './config/defaults.js';
import { MIGRATIONS } from './storage/migrations/index.js';
import { executorOf } from './storage/sql/index.js';
import type { Store } from './storage/store.js';

/**
 * What each readiness check found: `ok`, or why it failed. `migrations` is `unknown` when the database
 * could not be read.
 *
 * @example
 * ```ts
 * const checks: ReadinessChecks = { database: 'ok', migrations: 'ok', signingKeys: 'ok', draining: 'no' };
 * ```
 */
export interface ReadinessChecks {
  readonly database: 'ok' | 'timeout' | 'error';
  readonly migrations: 'ok' | 'pending' | 'unknown';
  readonly signingKeys: 'ok' | 'none';
  readonly draining: 'no' | 'yes';
}

/**
 * The answer of `/health/ready`.
 *
 * @example
 * ```ts
 * const { ready, failed }: Readiness = await health.ready();
 * if (!ready) console.log(failed); // ['draining']
 * ```
 */
export interface Readiness {
  readonly ready: boolean;
  /** The checks that failed, in the order of {@link ReadinessChecks}. */
  readonly failed: readonly (keyof ReadinessChecks)[];
  readonly checks: ReadinessChecks;
}

/**
 * The instance's health.
 *
 * @example
 * ```ts
 * const health: Health = createHealth({ store, log, signingKeys: () => keys.current().signing.length });
 * health.markDraining();
 * (await health.ready()).failed; // ['draining']
 * ```
 */
export interface Health {
  /** Run (or reuse) the checks. Never rejects. */
  ready(): Promise<Readiness>;
  /** From now on `/health/ready` fails its `draining` check (a shutdown has begun). */
  markDraining(): void;
  readonly draining: boolean;
}

/**
 * What {@link createHealth} needs.
 *
 * @example
 * ```ts
 * const deps: HealthDeps = { store, log, signingKeys: () => keys.current().signing.length };
 * ```
 */
export interface HealthDeps {
  readonly store: Store;
  readonly log: Logger;
  /** How many signing keys are loaded (the active one first). */
  readonly signingKeys: () => number;
  /** Bounds of the database check (default `DEFAULTS.health`). */
  readonly timing?: { readonly databaseTimeout: number; readonly cacheFor: number } | undefined;
}

type DatabaseCheck = Pick<ReadinessChecks, 'database' | 'migrations'>;

const TIMED_OUT = Symbol('timed out');

/** `promise`, or {@link TIMED_OUT} after `ms` (the promise goes on; its result is dropped). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * Whether the database answers and holds the newest migration this version knows: one indexed read of
 * `schema_migrations` on the SQL stores; `store.ping()` on any other store (its migrations were applied
 * at start).
 */
function databaseQuery(store: Store): () => Promise<boolean> {
  const db = executorOf(store);
  const latest = MIGRATIONS.at(-1)?.version;
  if (db === undefined || latest === undefined)
    return async () => {
      await store.ping();
      return true;
    };
  return async () =>
    (await db.one('SELECT version FROM schema_migrations WHERE version = ?', [latest])) !== undefined;
}

/**
 * Create the instance's health state.
 *
 * @example
 * ```ts
 * const health = createHealth({ store, log, signingKeys: () => keys.current().signing.length });
 * const { ready, checks } = await health.ready();
 * ```
 */
export function createHealth(deps: HealthDeps): Health {
  const { log } = deps;
  const timing = deps.timing ?? DEFAULTS.health;
  const query = databaseQuery(deps.store);
  const latest = MIGRATIONS.at(-1)?.version;
  let draining = false;
  let cached: { readonly at: number; readonly check: DatabaseCheck } | undefined;
  let running: Promise<DatabaseCheck> | undefined;

  const checkDatabase = async (): Promise<DatabaseCheck> => {
    let check: DatabaseCheck;
    let cause: string | undefined;
    try {
      const current = await within(query(), timing.databaseTimeout);
      check =
        current === TIMED_OUT
          ? { database: 'timeout', migrations: 'unknown' }
          : { database: 'ok', migrations: current ? 'ok' : 'pending' };
    } catch (err) {
      check = { database: 'error', migrations: 'unknown' };
      cause = (err as Error)?.message;
    }
    const before = cached?.check;
    cached = { at: performance.now(), check };
    // Logged when the result changes, not on every probe.
    if (before?.database !== check.database || before?.migrations !== check.migrations) {
      if (check.database === 'ok' && check.migrations === 'ok') {
        if (before !== undefined)
          log.info({ event: 'health.database_ok' }, 'readiness: the database check passes again');
      } else if (check.migrations === 'pending')
        log.warn(
          { event: 'health.migrations_pending', ...check, migration: latest },
          `readiness: the database lacks migration ${latest} of this version; run gatehouse-issuer migrate`,
        );
      else
        log.warn(
          {
            event: 'health.database_failed',
            ...check,
            err: cause === undefined ? undefined : { message: cause },
          },
          check.database === 'timeout'
            ? `readiness: the database did not answer within ${timing.databaseTimeout} ms`
            : 'readiness: the database query failed',
        );
    }
    return check;
  };

  const database = (): Promise<DatabaseCheck> => {
    if (cached !== undefined && performance.now() - cached.at < timing.cacheFor)
      return Promise.resolve(cached.check);
    running ??= checkDatabase().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    get draining() {
      return draining;
    },
    markDraining() {
      draining = true;
    },
    async ready() {
      const checks: ReadinessChecks = {
        ...(await database()),
        signingKeys: deps.signingKeys() > 0 ? 'ok' : 'none',
        draining: draining ? 'yes' : 'no',
      };
      const passed = { database: 'ok', migrations: 'ok', signingKeys: 'ok', draining: 'no' } as const;
      const failed = (Object.keys(passed) as (keyof ReadinessChecks)[]).filter(
        (name) =>
          checks[name] !== passed[name] && !(name === 'migrations' && checks.migrations === 'unknown'),
      );
      return { ready: failed.length === 0, failed, checks };
    },
  };
}
