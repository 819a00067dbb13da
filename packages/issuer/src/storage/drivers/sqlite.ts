/**
 * The default storage driver: SQLite through Node's built-in `node:sqlite` (no native addon). A file
 * under the data directory (private: see `sqlite-files.ts`), or `:memory:` for tests. Single-node:
 * one issuer process per file.
 *
 * Statements are prepared once per SQL text and run synchronously on the one connection. A transaction
 * (`BEGIN IMMEDIATE`) is serialized in process: while one is open, its own statements run and every
 * other statement or transaction waits for it, so nothing of another request slips into it.
 *
 * @module
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { DEFAULTS } from '../../config/defaults.js';
import { DatabaseFileError, StoreConflictError } from '../../errors.js';
import { conflictFields, type Dialect, type Executor } from '../executor.js';
import type { Row } from '../rows.js';
import { createSqlStore } from '../sql/index.js';
import { applyMigrations } from '../sql/migrate.js';
import type { Store } from '../store.js';
import { type DatabaseFileWarning, prepareDatabaseFile } from './sqlite-files.js';

const SQLITE: Dialect = Object.freeze({
  name: 'sqlite',
  binary: 'COLLATE BINARY',
  insertionOrder: 'rowid',
  writableCte: false,
  jsonTexts: '(SELECT value FROM json_each(?))',
  transactionLock: undefined,
});

/** `UNIQUE constraint failed: <table>.<column>[, …]` → conflict field. */
const CONFLICTS = conflictFields((constraint) =>
  constraint.columns.map((column) => `${constraint.table}.${column}`).join(', '),
);
/** SQLite's extended codes of unique and primary-key violations. */
const UNIQUE_CODES = new Set([2067, 1555]);
/** Primary result codes of file-system trouble: PERM, READONLY, IOERR, FULL, CANTOPEN, NOTADB. */
const FILE_CODES = new Set([3, 8, 10, 13, 14, 26]);

/**
 * Options of {@link openSqliteStore}.
 *
 * @example
 * ```ts
 * const options: SqliteStoreOptions = { onWarning: (warning) => log.warn({ path: warning.path }, warning.message) };
 * ```
 */
export interface SqliteStoreOptions {
  /**
   * Called at open with each existing data directory or database file that group or others may use.
   * Default: `process.emitWarning`.
   */
  readonly onWarning?: ((warning: DatabaseFileWarning) => void) | undefined;
}

/** The connection as an {@link Executor}, with in-process serialization of transactions. */
class SqliteExecutor implements Executor {
  readonly dialect = SQLITE;
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #statements = new Map<string, StatementSync>();
  /** Settles when the last transaction queued so far has ended. */
  #queue: Promise<void> = Promise.resolve();
  /** Settles when the open transaction ends; `undefined` when none is open. */
  #current: Promise<void> | undefined;
  /** What the open transaction's function runs its statements on. */
  readonly #inside: Executor;

  constructor(db: DatabaseSync, path: string) {
    this.#db = db;
    this.#path = path;
    this.#inside = {
      dialect: SQLITE,
      one: async (sql, params = []) => this.#get(sql, params),
      many: async (sql, params = []) => this.#all(sql, params),
      run: async (sql, params = []) => this.#run(sql, params),
      script: async (sql) => this.#exec(sql),
      transaction: (fn) => fn(this.#inside),
    };
  }

  async one(sql: string, params: readonly unknown[] = []): Promise<Row | undefined> {
    await this.#idle();
    return this.#get(sql, params);
  }

  async many(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
    await this.#idle();
    return this.#all(sql, params);
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    await this.#idle();
    return this.#run(sql, params);
  }

  async script(sql: string): Promise<void> {
    await this.#idle();
    this.#exec(sql);
  }

  async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    let release!: () => void;
    const ended = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#queue;
    this.#queue = ended;
    await previous;
    this.#current = ended;
    try {
      this.#exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.#inside);
        this.#exec('COMMIT');
        return result;
      } catch (err) {
        if (this.#db.isTransaction) this.#exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.#current = undefined;
      release();
    }
  }

  /**
   * `PRAGMA data_version`: changes whenever another connection (another process on the file: a CLI
   * command, a second issuer) has committed since this one last looked; `undefined` once closed.
   */
  dataVersion(): number | undefined {
    if (!this.#db.isOpen) return undefined;
    return Number(this.#guard(() => this.#statement('PRAGMA data_version').get()?.data_version));
  }

  async #idle(): Promise<void> {
    while (this.#current !== undefined) await this.#current;
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#guard(() => this.#db.prepare(sql));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #get(sql: string, params: readonly unknown[]): Row | undefined {
    const statement = this.#statement(sql);
    return this.#guard(() => statement.get(...bind(params))) as Row | undefined;
  }

  #all(sql: string, params: readonly unknown[]): Row[] {
    const statement = this.#statement(sql);
    return this.#guard(() => statement.all(...bind(params))) as Row[];
  }

  #run(sql: string, params: readonly unknown[]): number {
    const statement = this.#statement(sql);
    return Number(this.#guard(() => statement.run(...bind(params))).changes);
  }

  #exec(sql: string): void {
    this.#guard(() => this.#db.exec(sql));
  }

  /** Run `fn`, turning unique violations into `StoreConflictError` and file trouble into `DatabaseFileError`. */
  #guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw mapError(err, this.#path);
    }
  }
}

/** Booleans as 0/1; every other value as is. */
const bind = (params: readonly unknown[]): SQLInputValue[] =>
  params.map((value) => (typeof value === 'boolean' ? Number(value) : value) as SQLInputValue);

function mapError(err: unknown, path: string): unknown {
  const code = (err as { errcode?: unknown }).errcode;
  if (!(err instanceof Error) || typeof code !== 'number') return err;
  if (UNIQUE_CODES.has(code)) {
    const columns = err.message.replace(/^UNIQUE constraint failed: /, '');
    return new StoreConflictError(CONFLICTS.get(columns) ?? 'unique value');
  }
  if (FILE_CODES.has(code & 0xff)) return new DatabaseFileError(path, err.message, { cause: err });
  return err;
}

/** Key changes of a single-node store: only the listeners of this store object hear of them. */
function localKeyChanges() {
  const listeners = new Set<() => void>();
  return {
    lock: async () => undefined,
    // Listeners queued now re-read once the transaction has ended (their statements wait for it).
    announce: async () => {
      for (const listener of listeners) queueMicrotask(listener);
    },
    watch: (listener: () => void) => {
      const once = () => listener();
      listeners.add(once);
      queueMicrotask(() => {
        if (listeners.has(once)) once();
      });
      return () => void listeners.delete(once);
    },
  };
}

/** An in-process lock per name: single-node, so this is the whole of `exclusive`. */
function localLocks(): Store['exclusive'] {
  const locks = new Map<string, Promise<unknown>>();
  return async (name, fn) => {
    const previous = locks.get(name) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    locks.set(name, settled);
    try {
      return await run;
    } finally {
      if (locks.get(name) === settled) locks.delete(name);
    }
  };
}

function open(path: string): DatabaseSync {
  try {
    const db = new DatabaseSync(path);
    db.exec('PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
    if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    return db;
  } catch (err) {
    throw mapError(err, path);
  }
}

/**
 * Commits by other connections to the file (a CLI command, another process), seen through
 * `PRAGMA data_version` at most once per `DEFAULTS.tokenRequestCache.otherProcessCheckInterval`: the
 * pragma is a statement (a read transaction, with its file locks), which costs more than the read it
 * would save if asked on every request.
 */
function otherConnections(executor: SqliteExecutor): { stamp(): number | undefined } {
  const interval = DEFAULTS.tokenRequestCache.otherProcessCheckInterval;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let version: number | undefined;
  return {
    stamp: () => {
      const now = performance.now();
      if (now - checkedAt >= interval) {
        version = executor.dataVersion();
        checkedAt = now;
      }
      return version;
    },
  };
}

/**
 * Open (or create) a SQLite store. Call `migrate()` before use; `createIssuer()` does it for you.
 *
 * @param path - A file path (its directory is created `0700`, the file `0600`) or `:memory:`.
 *
 * @example
 * ```ts
 * import { openSqliteStore } from '@gatehouse/issuer';
 *
 * const store = openSqliteStore('./.data/issuer.sqlite');
 * const { applied } = await store.migrate();
 * ```
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  if (typeof path !== 'string' || path.length === 0)
    throw new TypeError('"path" must be a file path or ":memory:"');
  const warn =
    options.onWarning ??
    ((warning: DatabaseFileWarning) => process.emitWarning(warning.message, 'GatehouseWarning'));
  if (path !== ':memory:') for (const warning of prepareDatabaseFile(path)) warn(warning);
  const db = open(path);
  const executor = new SqliteExecutor(db, path);
  return createSqlStore(executor, {
    driver: 'sqlite',
    multiNode: false,
    migrate: () => applyMigrations(executor),
    exclusive: localLocks(),
    close: async () => {
      if (db.isOpen) db.close();
    },
    keyChanges: localKeyChanges(),
    externalChanges: otherConnections(executor),
  });
}
