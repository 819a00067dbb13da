/**
 * What a SQL store lets an observer see (the issuer's metrics, `telemetry/`): the duration of each
 * statement and transaction, and for PostgreSQL the use of the connection pool. Nothing is timed until
 * an observer is set, so a store nobody watches runs exactly as before. Only the statement's first
 * keyword is handed on, never its text or parameters.
 *
 * @module
 */
import type { Executor } from './executor.js';
import type { Store } from './store.js';

/**
 * Called after each statement (`SELECT`, `INSERT`… from its first keyword) or whole transaction
 * (`transaction`), with its duration and the error it failed with, if any.
 *
 * @example
 * ```ts
 * const timing: StatementTiming = (operation, seconds, error) => histogram.record(seconds, { operation });
 * ```
 */
export type StatementTiming = (operation: string, seconds: number, error: unknown) => void;

/**
 * A connection pool's use now.
 *
 * @example
 * ```ts
 * const { used, idle, pending, max }: PoolUsage = observation.poolUsage!();
 * ```
 */
export interface PoolUsage {
  readonly used: number;
  readonly idle: number;
  /** Queries waiting for a connection. */
  readonly pending: number;
  readonly max: number;
}

/**
 * What can be observed of a store built by `createSqlStore`.
 *
 * @example
 * ```ts
 * observationOf(store)?.time((operation, seconds) => console.log(operation, seconds));
 * ```
 */
export interface StoreObservation {
  /** OpenTelemetry's `db.system.name`. */
  readonly system: 'sqlite' | 'postgresql';
  /** Time every statement from now on with `timing` (`undefined`: stop). */
  time(timing: StatementTiming | undefined): void;
  /** The pool's use (PostgreSQL); `undefined` for a single connection. */
  readonly poolUsage: (() => PoolUsage) | undefined;
}

/** Where an observed executor finds its observer (set later, by {@link StoreObservation.time}). */
export interface TimingSlot {
  timing: StatementTiming | undefined;
}

const OBSERVATIONS = new WeakMap<Store, StoreObservation>();

/** First keywords reported as they are; anything else is `OTHER` (the names stay few). */
const KEYWORDS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'CREATE', 'ALTER', 'DROP']);
const operations = new Map<string, string>();

/** The `db.operation.name` of `sql`. */
function operationOf(sql: string): string {
  let operation = operations.get(sql);
  if (operation === undefined) {
    const word = /^\s*([A-Za-z]+)/.exec(sql)?.[1]?.toUpperCase() ?? '';
    operation = KEYWORDS.has(word) ? word : 'OTHER';
    if (operations.size < 4_096) operations.set(sql, operation);
  }
  return operation;
}

/**
 * `db`, timing its statements and transactions for the slot's observer while one is set.
 *
 * @example
 * ```ts
 * const slot: TimingSlot = { timing: undefined };
 * const timed = observedExecutor(db, slot);
 * ```
 */
export function observedExecutor(db: Executor, slot: TimingSlot): Executor {
  const timed = <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const timing = slot.timing;
    if (timing === undefined) return run();
    const start = performance.now();
    return run().then(
      (result) => {
        timing(operation, (performance.now() - start) / 1_000, undefined);
        return result;
      },
      (error: unknown) => {
        timing(operation, (performance.now() - start) / 1_000, error);
        throw error;
      },
    );
  };
  return {
    dialect: db.dialect,
    one: (sql, params) => timed(operationOf(sql), () => db.one(sql, params)),
    many: (sql, params) => timed(operationOf(sql), () => db.many(sql, params)),
    run: (sql, params) => timed(operationOf(sql), () => db.run(sql, params)),
    script: (sql) => db.script(sql),
    transaction: (fn) => timed('transaction', () => db.transaction((tx) => fn(observedExecutor(tx, slot)))),
  };
}

/**
 * Make `store` observable through `slot` (`createSqlStore` does).
 *
 * @example
 * ```ts
 * registerObservation(store, slot, 'sqlite', undefined);
 * ```
 */
export function registerObservation(
  store: Store,
  slot: TimingSlot,
  system: StoreObservation['system'],
  poolUsage: (() => PoolUsage) | undefined,
): void {
  OBSERVATIONS.set(store, {
    system,
    poolUsage,
    time: (timing) => {
      slot.timing = timing;
    },
  });
}

/**
 * What can be observed of `store`; `undefined` for a store not built by `createSqlStore` (a custom driver).
 *
 * @example
 * ```ts
 * const observation = observationOf(issuer.store);
 * ```
 */
export function observationOf(store: Store): StoreObservation | undefined {
  return OBSERVATIONS.get(store);
}
