/**
 * TOTP factors (RFC 6238), one per user. Starting an enrolment is one upsert that never replaces a
 * confirmed factor; accepting a code is one conditional update (`… WHERE last_step < ?`), so a code is
 * accepted once even when two requests race, across every process on the database.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { bool, num, type Row } from '../rows.js';
import type { TotpFactorRecord, TotpFactorStore } from '../tables/totp-factors.js';

const toFactor = (row: Row): TotpFactorRecord => ({
  userId: String(row.user_id),
  secret: String(row.secret),
  confirmed: bool(row.confirmed),
  lastStep: num(row.last_step),
});

const BEGIN = `INSERT INTO totp_factors (user_id, secret, confirmed, last_step, created_at, updated_at)
  VALUES (?, ?, ?, 0, ?, ?)
  ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, last_step = 0, updated_at = excluded.updated_at
  WHERE totp_factors.confirmed = ?`;

const ACCEPT = `UPDATE totp_factors SET last_step = ?, confirmed = ?, updated_at = ?
  WHERE user_id = ? AND last_step < ?`;

/**
 * The {@link TotpFactorStore} on `db`.
 *
 * @example
 * ```ts
 * const factors = totpFactorStore(db);
 * await factors.begin('usr_1', encryptedSecret, now);
 * await factors.accept('usr_1', step, now); // true once per step
 * ```
 */
export function totpFactorStore(db: Executor): TotpFactorStore {
  const get = async (userId: string) => {
    const row = await db.one('SELECT * FROM totp_factors WHERE user_id = ?', [userId]);
    return row && toFactor(row);
  };
  return {
    get,
    begin: async (userId, secret, now) => {
      await db.run(BEGIN, [userId, secret, false, now, now, false]);
      return (await get(userId))!;
    },
    accept: async (userId, step, now) => (await db.run(ACCEPT, [step, true, now, userId, step])) > 0,
  };
}
