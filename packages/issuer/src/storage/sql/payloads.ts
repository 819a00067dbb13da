/**
 * oidc-provider's artifacts (sessions, interactions, codes, refresh tokens, grants …), keyed by model
 * and id. Consuming one is a single conditional update (`… WHERE consumed_at IS NULL`), so of several
 * concurrent redemptions, in any number of processes, exactly one succeeds.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { json, toPayload } from '../rows.js';
import type { PayloadStore } from '../tables/payloads.js';

/** Not expired at the bound time. */
const LIVE = '(expires_at IS NULL OR expires_at > ?)';

/**
 * The {@link PayloadStore} on `db`.
 *
 * @example
 * ```ts
 * const payloads = payloadStore(db);
 * await payloads.upsert('AuthorizationCode', id, payload, now + 60, { grantId });
 * const first = await payloads.consume('AuthorizationCode', id, now); // true once
 * ```
 */
export function payloadStore(db: Executor): PayloadStore {
  const findWhere = async (where: string, params: readonly unknown[]) => {
    const row = await db.one(
      `SELECT * FROM oidc_payloads WHERE model = ? AND ${where} AND ${LIVE} LIMIT 1`,
      params,
    );
    return row && toPayload(row);
  };
  return {
    upsert: async (model, id, payload, expiresAt, index) => {
      await db.run(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
        [
          model,
          id,
          json(payload),
          index.grantId ?? null,
          index.uid ?? null,
          index.userCode ?? null,
          expiresAt,
        ],
      );
    },
    find: (model, id, now) => findWhere('id = ?', [model, id, now]),
    findByUid: (model, uid, now) => findWhere('uid = ?', [model, uid, now]),
    findByUserCode: (model, userCode, now) => findWhere('user_code = ?', [model, userCode, now]),
    consume: async (model, id, now) =>
      (await db.run(
        `UPDATE oidc_payloads SET consumed_at = ? WHERE model = ? AND id = ? AND consumed_at IS NULL AND ${LIVE}`,
        [now, model, id, now],
      )) === 1,
    destroy: async (model, id) => {
      await db.run('DELETE FROM oidc_payloads WHERE model = ? AND id = ?', [model, id]);
    },
    revokeByGrantId: async (grantId) => {
      await db.run('DELETE FROM oidc_payloads WHERE grant_id = ?', [grantId]);
    },
    purgeExpired: (now) =>
      db.run('DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at <= ?', [now]),
  };
}
