/**
 * The access tokens subject tokens were exchanged for, by SHA-256 digest. Ending impersonations is
 * one transaction: the selected unexpired tokens get `ended_at`, the selected subject tokens not yet
 * redeemed are consumed (so they never will be), and the audit event is recorded — all or nothing.
 *
 * @module
 */
import type { Executor } from '../executor.js';
import { json, num, numOrNull, parse, type Row, strOrNull } from '../rows.js';
import type { ImpersonationSelector, ImpersonationTokenRecord, ImpersonationTokenStore } from '../store.js';
import { auditEventStore } from './audit-events.js';

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
    record: async (token, now) => {
      await db.run(
        `INSERT INTO impersonation_tokens (jti, token_hash, subject_token_id, user_id, actor_id,
           application_id, payload, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
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
      );
    },
    forget: async (jti) => {
      await db.run('DELETE FROM impersonation_tokens WHERE jti = ?', [jti]);
    },
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
        const ended = {
          tokens: (
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
          })),
          subjectTokens: (
            await tx.many(
              `UPDATE subject_tokens SET consumed_at = ?
                 WHERE ${subjects} AND consumed_at IS NULL AND expires_at > ? RETURNING id, user_id`,
              [now, value, now],
            )
          ).map((row) => ({ id: String(row.id), userId: String(row.user_id) })),
        };
        const recorded = event(ended);
        if (recorded !== undefined) await auditEventStore(tx).record(recorded, now);
        return ended;
      }),
    purgeExpired: (before) => db.run('DELETE FROM impersonation_tokens WHERE expires_at < ?', [before]),
  };
}
