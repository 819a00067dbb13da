/**
 * Applications (OAuth clients). Flags are bound as booleans (the SQLite driver stores 0/1); the
 * secret is a SHA-256 digest, and changing it records `secret_updated_at`.
 *
 * @module
 */
import { applicationPatchColumns, newApplicationColumns } from '../columns.js';
import type { Executor } from '../executor.js';
import { toApplication } from '../rows.js';
import type { ApplicationStore } from '../tables/entities.js';
import { entity, table } from './table.js';

/**
 * The {@link ApplicationStore} on `db`.
 *
 * @example
 * ```ts
 * const applications = applicationStore(db);
 * await applications.update('app_1', { tokenExchangeEnabled: true }, now);
 * ```
 */
export function applicationStore(db: Executor): ApplicationStore {
  const applications = table(db, 'applications', toApplication, { updatedAt: true });
  return {
    ...entity(applications, newApplicationColumns, applicationPatchColumns),
    // Names are not unique: the oldest application of that name.
    findByName: (name) => applications.find(`name = ? ORDER BY created_at, id ${db.dialect.binary}`, [name]),
  };
}
