/**
 * Personal access tokens, stored by digest; a name is unique per user, and a user's deletion deletes
 * their tokens (foreign-key cascade).
 *
 * @module
 */
import { newPersonalAccessTokenColumns } from '../columns.js';
import type { Executor } from '../executor.js';
import { toPersonalAccessToken } from '../rows.js';
import type { PersonalAccessTokenStore } from '../tables/tokens.js';
import { changeWithEvent } from './audit-events.js';
import { table } from './table.js';

const TOUCH = 'UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ? RETURNING *';

/**
 * The {@link PersonalAccessTokenStore} on `db`.
 *
 * @example
 * ```ts
 * const pats = personalAccessTokenStore(db);
 * const pat = await pats.findByHash(hashSecret(value));
 * ```
 */
export function personalAccessTokenStore(db: Executor): PersonalAccessTokenStore {
  const tokens = table(db, 'personal_access_tokens', toPersonalAccessToken);
  return {
    listFor: (userId) => tokens.all(`user_id = ? ORDER BY created_at, id ${db.dialect.binary}`, [userId]),
    create: (token, now) => tokens.insert(newPersonalAccessTokenColumns(token), now),
    findByHash: (tokenHash) => tokens.find('token_hash = ?', [tokenHash]),
    delete: (userId, id) => tokens.deleteWhere('user_id = ? AND id = ?', [userId, id]),
    touch: async (id, now, event) => (await changeWithEvent(db, TOUCH, [now, id], event, now)) !== undefined,
  };
}
