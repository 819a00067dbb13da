/**
 * The access tokens subject tokens were exchanged for, by SHA-256 digest. Ending impersonations is
 * one transaction: the selected unexpired tokens get `ended_at`, the selected subject tokens not yet
 * redeemed are consumed (so they never will be), and the audit event is recorded — all or nothing.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { json, num, numOrNull, parse, type Row, strOrNull } from '../rows.js';
import type { ImpersonationSelector, ImpersonationTokenRecord, NewImpersonationToken } from '../store.js';
import type { ImpersonationTokenStore } from '../tables/tokens.js';
import { type AlsoInsert, auditEventStore, changeWithEvent } from './audit-events.js';

const toImpersonationToken = (row: Row): ImpersonationTokenRecord => ({
  jti: String(row.jti),
  tokenHash: String(row.token_hash),
  subjectTokenId: String(row.subject_token_id),
  userId: String(row.user_id),
  actorId: strOrNull(row.actor_id),
  applicationId: String(row.application_id),
  payload: parse(row.payload),
  createdAt: num(row.created_at),
  expiresAt: num(row.expires_at),
  endedAt: numOrNull(row.ended_at),
});

/** Columns of a recorded token and their types (the casts let PostgreSQL type the `SELECT`'s parameters). */
const TOKEN_COLUMNS = [
  ['jti', 'TEXT'],
  ['token_hash', 'TEXT'],
  ['subject_token_id', 'TEXT'],
  ['user_id', 'TEXT'],
  ['actor_id', 'TEXT'],
  ['application_id', 'TEXT'],
  ['payload', 'TEXT'],
  ['created_at', 'BIGINT'],
  ['expires_at', 'BIGINT'],
] as const;

/**
 * The `INSERT … SELECT …` of an issued impersonation token, for `changeWithEvent` (it runs with the
 * consumption of the subject token, `FROM` the consumed row on PostgreSQL).
 *
 * @example
 * ```ts
 * await changeWithEvent(db, CONSUME, params, event, now, insertImpersonationToken(issued, now));
 * ```
 */
export function insertImpersonationToken(token: NewImpersonationToken, now: number): AlsoInsert {
  return {
    sql: `INSERT INTO impersonation_tokens (${TOKEN_COLUMNS.map(([column]) => column).join(', ')})
      SELECT ${TOKEN_COLUMNS.map(([, type]) => `CAST(? AS ${type})`).join(', ')}`,
    params: [
      token.jti,
      token.tokenHash,
      token.subjectTokenId,
      token.userId,
      token.actorId,
      token.applicationId,
      json(token.payload),
      now,
      token.expiresAt,
    ],
  };
}

/** The condition (on `impersonation_tokens`, on `subject_tokens`) and value a selector stands for. */
function selection(selector: ImpersonationSelector): { tokens: string; subjects: string; value: string } {
  return 'subjectTokenId' in selector
    ? { tokens: 'subject_token_id = ?', subjects: 'id = ?', value: selector.subjectTokenId }
    : { tokens: 'actor_id = ?', subjects: 'actor_id = ?', value: selector.actorId };
}

/**
 * The {@link ImpersonationTokenStore} on `db`.
 *
 * @example
 * ```ts
 * const tokens = impersonationTokenStore(db);
 * const { tokens: ended } = await tokens.end({ actorId: 'usr_9' }, now, () => undefined);
 * ```
 */
export function impersonationTokenStore(db: Executor): ImpersonationTokenStore {
  return {
    findActive: async (tokenHash, now) => {
      const row = await db.one(
        'SELECT * FROM impersonation_tokens WHERE token_hash = ? AND ended_at IS NULL AND expires_at > ?',
        [tokenHash, now],
      );
      return row && toImpersonationToken(row);
    },
    end: (selector, now, event) =>
      db.transaction(async (tx) => {
        const { tokens, subjects, value } = selection(selector);
        // Subject tokens first: on PostgreSQL this waits for an exchange consuming one of them to
        // commit, so the token statement that follows sees the token it recorded.
        const subjectTokens = (
          await tx.many(
            `UPDATE subject_tokens SET consumed_at = ?
               WHERE ${subjects} AND consumed_at IS NULL AND expires_at > ? RETURNING id, user_id`,
            [now, value, now],
          )
        ).map((row) => ({ id: String(row.id), userId: String(row.user_id) }));
        const tokensEnded = (
          await tx.many(
            `UPDATE impersonation_tokens SET ended_at = ?
               WHERE ${tokens} AND ended_at IS NULL AND expires_at > ?
               RETURNING jti, user_id, subject_token_id`,
            [now, value, now],
          )
        ).map((row) => ({
          jti: String(row.jti),
          userId: String(row.user_id),
          subjectTokenId: String(row.subject_token_id),
        }));
        const ended = { tokens: tokensEnded, subjectTokens };
        const recorded = event(ended);
        if (recorded !== undefined) await auditEventStore(tx).record(recorded, now);
        return ended;
      }),
    revoke: async (tokenHash, applicationId, now, event) =>
      (await changeWithEvent(
        db,
        `UPDATE impersonation_tokens SET ended_at = ?
           WHERE token_hash = ? AND application_id = ? AND ended_at IS NULL AND expires_at > ? RETURNING *`,
        [now, tokenHash, applicationId, now],
        event,
        now,
      )) !== undefined,
    purgeExpired: (before) => db.run('DELETE FROM impersonation_tokens WHERE expires_at < ?', [before]),
  };
}
