/**
 * Subject tokens for token exchange, stored by digest. Consuming one is a single conditional update
 * (`… WHERE consumed_at IS NULL AND expires_at > now RETURNING *`): under READ COMMITTED a concurrent
 * second update re-checks the row after the first commits and matches nothing, so exactly one caller
 * wins, across every process on the database.
 *
 * @module
 */
import { newSubjectTokenColumns } from '../columns.js';
import type { Executor } from '../executor.js';
import { toSubjectToken } from '../rows.js';
import type { SubjectTokenStore } from '../tables/tokens.js';
import { changeWithEvent } from './audit-events.js';
import { insertImpersonationToken } from './impersonation-tokens.js';
import { table } from './table.js';

const CONSUME = `UPDATE subject_tokens SET consumed_at = ?
  WHERE token_hash = ? AND consumed_at IS NULL AND expires_at > ? RETURNING *`;

/**
 * The {@link SubjectTokenStore} on `db`.
 *
 * @example
 * ```ts
 * const subjectTokens = subjectTokenStore(db);
 * const mine = await subjectTokens.consume(digest, now, successEvent); // the record for one caller only
 * ```
 */
export function subjectTokenStore(db: Executor): SubjectTokenStore {
  const tokens = table(db, 'subject_tokens', toSubjectToken);
  return {
    consume: async (tokenHash, now, event, issued) => {
      const also = issued === undefined ? undefined : insertImpersonationToken(issued, now);
      const row = await changeWithEvent(db, CONSUME, [now, tokenHash, now], event, now, also);
      return row && toSubjectToken(row);
    },
    findByHash: (tokenHash) => tokens.find('token_hash = ?', [tokenHash]),
    get: (id) => tokens.get(id),
    purgeExpired: (before) => db.run('DELETE FROM subject_tokens WHERE expires_at < ?', [before]),
    create: (token, now) => tokens.insert(newSubjectTokenColumns(token), now),
  };
}
