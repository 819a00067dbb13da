/**
 * Signing keys: at most one active key (a partial unique index), rotation that retires it and inserts
 * the next one in one transaction. How key changes are serialized and announced is the driver's
 * ({@link KeyChanges}): PostgreSQL takes a transaction-scoped advisory lock and sends `NOTIFY` to every
 * process; SQLite (one process) tells the listeners of its own store.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { json, toKey } from '../rows.js';
import type { SigningKeyRecord } from '../store.js';
import type { SigningKeyStore } from '../tables/signing-keys.js';
import { recordEvent } from './audit-events.js';

/**
 * The driver's part of the key store.
 *
 * @example
 * ```ts
 * const local: KeyChanges = { lock: async () => {}, announce: async () => notifyLocal(), watch: subscribe };
 * ```
 */
export interface KeyChanges {
  /** Inside a key-changing transaction, first: wait for other processes changing keys. */
  lock(tx: Executor): Promise<void>;
  /** Inside the transaction, after a change: have it announced once it commits. */
  announce(tx: Executor): Promise<void>;
  /** `SigningKeyStore.watch`. */
  watch(listener: () => void): () => void;
}

/**
 * The {@link SigningKeyStore} on `db`, with the driver's locking and announcements.
 *
 * @example
 * ```ts
 * const keys = signingKeyStore(db, changes);
 * const active = await keys.insertInitial(generatedKey);
 * ```
 */
export function signingKeyStore(db: Executor, changes: KeyChanges): SigningKeyStore {
  const insert = (tx: Executor, key: SigningKeyRecord) =>
    tx.run(
      `INSERT INTO signing_keys (kid, alg, private_jwk, status, created_at, retired_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [key.kid, key.alg, json(key.privateJwk), key.status, key.createdAt, key.retiredAt, key.expiresAt],
    );
  return {
    list: async () =>
      (
        await db.many(
          `SELECT * FROM signing_keys ORDER BY status = 'active' DESC, created_at DESC, kid ${db.dialect.binary}`,
        )
      ).map(toKey),
    insertInitial: (key) =>
      db.transaction(async (tx) => {
        await changes.lock(tx);
        const active = await tx.one(
          "SELECT * FROM signing_keys WHERE status = 'active' ORDER BY created_at DESC LIMIT 1",
        );
        if (active !== undefined) return toKey(active);
        await insert(tx, { ...key, status: 'active' });
        await changes.announce(tx);
        return toKey((await tx.one('SELECT * FROM signing_keys WHERE kid = ?', [key.kid]))!);
      }),
    rotate: (key, now, expiresAt, event) =>
      db.transaction(async (tx) => {
        await changes.lock(tx);
        await tx.run(
          "UPDATE signing_keys SET status = 'retired', retired_at = ?, expires_at = ? WHERE status = 'active'",
          [now, expiresAt],
        );
        await insert(tx, { ...key, status: 'active', retiredAt: null, expiresAt: null });
        if (event !== undefined) await recordEvent(tx, event, now);
        await changes.announce(tx);
      }),
    purgeExpired: (now) =>
      db.run("DELETE FROM signing_keys WHERE status = 'retired' AND expires_at <= ?", [now]),
    watch: (listener) => changes.watch(listener),
  };
}
