/**
 * Users: usernames and emails are unique case-insensitively (through their lower-cased `*_key`
 * columns); role assignments live in `roles.ts`.
 *
 * @module
 */
import { newUserColumns, userPatchColumns } from '../columns.js';
import type { Executor } from '../executor.js';
import { lower, toUser } from '../rows.js';
import type { UserStore } from '../tables/entities.js';
import { entity, table } from './table.js';

/**
 * The {@link UserStore} on `db`.
 *
 * @example
 * ```ts
 * const users = userStore(db);
 * await users.create({ id: 'usr_1', username: 'Alice' }, now);
 * await users.findByLogin('alice'); // the same user
 * await users.search('ali', { page: 1, pageSize: 20 }); // a page holding Alice
 * ```
 */
export function userStore(db: Executor): UserStore {
  const users = table(db, 'users', toUser, { updatedAt: true });
  return {
    ...entity(users, newUserColumns, userPatchColumns),
    findByLogin: (identifier) => {
      const key = lower(identifier);
      return users.find('username_key = ? OR email_key = ? ORDER BY (username_key = ?) DESC', [
        key,
        key,
        key,
      ]);
    },
    search: (text, page) => {
      const key = lower(text);
      // A substring of the username or email (LIKE's wildcards in `text` match themselves), or the id.
      const pattern = `%${key.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
      return users.list(page, {
        where: "(username_key LIKE ? ESCAPE '\\' OR email_key LIKE ? ESCAPE '\\' OR id = ?)",
        params: [pattern, pattern, text],
      });
    },
  };
}
