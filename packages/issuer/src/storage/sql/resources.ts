/**
 * API resources and their scopes. Deleting a resource deletes its scopes (and their role grants) by
 * foreign-key cascade.
 *
 * @module
 */
import { newResourceColumns } from '../columns.js';
import type { Executor } from '../executor.js';
import { toResource, toScope } from '../rows.js';
import type { ResourceStore } from '../tables/entities.js';
import { entity, table } from './table.js';

/**
 * The {@link ResourceStore} on `db`.
 *
 * @example
 * ```ts
 * const resources = resourceStore(db);
 * const orders = await resources.findByIndicator('https://orders.example.com');
 * const scopes = orders && (await resources.listScopes(orders.id));
 * ```
 */
export function resourceStore(db: Executor): ResourceStore {
  const resources = table(db, 'resources', toResource, { updatedAt: true });
  const scopes = table(db, 'scopes', toScope);
  return {
    ...entity(resources, newResourceColumns, (patch) => ({
      name: patch.name,
      indicator: patch.indicator,
      access_token_ttl: patch.accessTokenTtl,
      roles_claim: patch.rolesClaim,
    })),
    findByIndicator: (indicator) => resources.find('indicator = ?', [indicator]),
    createScope: (scope, now) =>
      scopes.insert(
        {
          id: scope.id,
          resource_id: scope.resourceId,
          name: scope.name,
          description: scope.description ?? '',
        },
        now,
      ),
    getScope: (resourceId, scopeId) => scopes.find('resource_id = ? AND id = ?', [resourceId, scopeId]),
    getScopeById: scopes.get,
    findScope: (resourceId, name) => scopes.find('resource_id = ? AND name = ?', [resourceId, name]),
    listScopes: (resourceId) =>
      scopes.all(`resource_id = ? ORDER BY name ${db.dialect.binary}`, [resourceId]),
    updateScope: async (resourceId, scopeId, description) => {
      const row = await db.one(
        'UPDATE scopes SET description = ? WHERE resource_id = ? AND id = ? RETURNING *',
        [description, resourceId, scopeId],
      );
      return row && toScope(row);
    },
    deleteScope: (resourceId, scopeId) =>
      scopes.deleteWhere('resource_id = ? AND id = ?', [resourceId, scopeId]),
  };
}
