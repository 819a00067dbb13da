/**
 * The signing keys table. Part of the `Store` interface (`../store.ts`); see there for the rules every
 * driver follows.
 *
 * @module
 */
import type { NewAuditEvent } from '../audit-records.js';
import type { SigningKeyRecord } from '../records.js';

/** Signing keys. */
export interface SigningKeyStore {
  /** Every key: the active one first, then retired ones, newest first. */
  list(): Promise<readonly SigningKeyRecord[]>;
  /** Insert `key` as the only active key only if there is no active key yet; resolves to the active key. */
  insertInitial(key: SigningKeyRecord): Promise<SigningKeyRecord>;
  /**
   * Atomically retire every active key (publishing it until `expiresAt`) and insert `key` as active;
   * `event`, when given, is recorded in the same transaction.
   */
  rotate(key: SigningKeyRecord, now: number, expiresAt: number, event?: NewAuditEvent): Promise<void>;
  /** Delete retired keys whose grace period has ended. Resolves to how many were deleted. */
  purgeExpired(now: number): Promise<number>;
  /**
   * Call `listener` after the keys were changed (`insertInitial` that inserted, `rotate`) through any
   * process on this database: PostgreSQL delivers it with `LISTEN`/`NOTIFY`; SQLite only sees changes
   * made through this store object. It is also called once as soon as the subscription is live (and
   * again whenever a lost notification connection is back), since changes before that were not
   * announced. Best effort: callers still poll. Returns the unsubscribe function.
   */
  watch(listener: () => void): () => void;
}
